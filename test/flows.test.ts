// Flows over REST: the box catalog, saving (every refusal names the box and field), runs of
// every transform into datasets and storage, stop, the 403, restarts, flowlist, activity,
// the plan limit.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePlansFile } from './helpers/fixtures.js';
import { sleep } from './helpers/jobs.js';
import { rawStorage } from './helpers/storage.js';
import { startOnPort, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let p: string;

const put = (file: string, text: string) =>
  rawStorage(s.engine).writeFile(p, file, Buffer.from(text), { createParents: true });

const SALES = [
  'id,region,amount,day,customer',
  '1,EU,5,2024-01-03,c1',
  '2,EU,20,2024-01-15,c2',
  '3,US,30,2024-02-01,c1',
  '4,US,,2024-02-11,c3',
  '5,APAC,12.5,2024-03-05,c2',
  '6,EU,40,2024-03-20,c1',
].join('\n');

const CUSTOMERS = ['customer,name,tier', 'c1,Acme,gold', 'c2,Birch,silver', 'c4,Dune,gold'].join(
  '\n',
);

async function saveFlow(ident: string, def: unknown, name = ident) {
  return s.api('POST', `/projects/${p}/pmd/obj`, { body: { ident, type: 'flow', name, def } });
}

async function run(ident: string) {
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'flow', id: ident },
  });
  expect(r.status, r.text).toBe(201);
  return s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
}

async function aql(query: string) {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    body: { aql: query },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return r.json;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team' });
  p = s.demo;
  await put('/in/sales.csv', SALES);
  await put('/in/customers.csv', CUSTOMERS);
});
afterAll(async () => {
  await s?.close();
});

describe('box catalog', () => {
  it('lists every box type with a JSON Schema of its parameters', async () => {
    const r = await s.api('GET', `/projects/${p}/inflow/box`);
    expect(r.status, r.text).toBe(200);
    const ids = r.json.boxes.map((b: { id: string }) => b.id);
    expect(ids).toEqual([
      'input.storage',
      'input.http',
      'input.postgres',
      'input.sftp',
      'transform.filter',
      'transform.derive',
      'transform.select',
      'transform.aggregate',
      'transform.join',
      'transform.union',
      'transform.sort',
      'transform.dedupe',
      'transform.limit',
      'output.dataset',
      'output.storage',
    ]);
    const one = await s.api('GET', `/projects/${p}/inflow/box/input.http`);
    expect(one.status).toBe(200);
    expect(one.json.kind).toBe('input');
    expect(one.json.params.type).toBe('object');
    expect(one.json.params.required).toEqual(['url']);
    expect(one.json.params.additionalProperties).toBe(false);
    expect(Object.keys(one.json.params.properties)).toContain('pagination');
    const storage = await s.api('GET', `/projects/${p}/inflow/box/input.storage`);
    expect(storage.json.params.properties.glob).toMatchObject({ type: 'boolean' });
    const missing = await s.api('GET', `/projects/${p}/inflow/box/input.ftp`);
    expect(missing.status).toBe(404);
    expect(missing.json.message).toContain('input.storage');
  });
});

describe('saving a flow', () => {
  const src = { id: 'src', type: 'input.storage', path: '/in/sales.csv' };
  const out = { id: 'out', type: 'output.storage', path: '/out/x.csv', format: 'csv' };
  const cases: Array<[string, unknown, string, string]> = [
    [
      'unknown box type',
      { boxes: [{ id: 'a', type: 'input.ftp' }], edges: [] },
      'def.boxes.0.type',
      'unknown box type',
    ],
    [
      'unknown parameter',
      { boxes: [{ ...src, colour: 'red' }, out], edges: [{ from: 'src', to: 'out' }] },
      'def.boxes.0.colour',
      'unknown parameter "colour"',
    ],
    [
      'edge to an unknown box',
      { boxes: [src, out], edges: [{ from: 'src', to: 'nope' }] },
      'def.edges.0.to',
      'no box with id "nope"',
    ],
    [
      'a cycle',
      {
        boxes: [
          { id: 'a', type: 'transform.limit', rows: 1 },
          { id: 'b', type: 'transform.limit', rows: 1 },
        ],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'a' },
        ],
      },
      'def.edges',
      'form a cycle',
    ],
    [
      'an input with incoming edges',
      {
        boxes: [src, { ...src, id: 'src2' }, out],
        edges: [
          { from: 'src', to: 'src2' },
          { from: 'src2', to: 'out' },
        ],
      },
      'def.boxes.1',
      'takes no incoming edges',
    ],
    [
      'an output with outgoing edges',
      {
        boxes: [src, out, { ...out, id: 'out2' }],
        edges: [
          { from: 'src', to: 'out' },
          { from: 'out', to: 'out2' },
        ],
      },
      'def.boxes.1',
      'has no outgoing edges',
    ],
    [
      'a join with one input',
      {
        boxes: [
          src,
          { id: 'j', type: 'transform.join', left: 'src', right: 'x', on: [['a', 'b']] },
          out,
        ],
        edges: [
          { from: 'src', to: 'j' },
          { from: 'j', to: 'out' },
        ],
      },
      'def.boxes.1',
      'takes 2 inputs, but 1 edge leads to it',
    ],
    [
      'a condition that does not parse',
      {
        boxes: [src, { id: 'f', type: 'transform.filter', condition: '[amount] >' }, out],
        edges: [
          { from: 'src', to: 'f' },
          { from: 'f', to: 'out' },
        ],
      },
      'def.boxes.1.condition',
      'box "f"',
    ],
    [
      'a ".." segment in an output path',
      { boxes: [src, { ...out, path: '/../x.csv' }], edges: [{ from: 'src', to: 'out' }] },
      'def.boxes.1.path',
      'must not contain a ".." segment',
    ],
    [
      'a ".." segment in an input path',
      { boxes: [{ ...src, path: '/in/../sales.csv' }, out], edges: [{ from: 'src', to: 'out' }] },
      'def.boxes.0.path',
      'must not contain a ".." segment',
    ],
    [
      'a ".." segment in an SFTP path',
      {
        boxes: [
          { id: 'ftp', type: 'input.sftp', credentials: 'cred.sftp', path: '../etc/passwd' },
          out,
        ],
        edges: [{ from: 'ftp', to: 'out' }],
      },
      'def.boxes.0.path',
      'box "ftp": must not contain a ".." segment',
    ],
    [
      'a storage path project storage would refuse',
      { boxes: [src, { ...out, path: '/out/./x.csv' }], edges: [{ from: 'src', to: 'out' }] },
      'def.boxes.1.path',
      '"." and ".." segments are not allowed',
    ],
    [
      'credentials of the wrong kind',
      {
        boxes: [
          { id: 'pg', type: 'input.postgres', credentials: 'cred.sftp', query: 'SELECT 1' },
          out,
        ],
        edges: [{ from: 'pg', to: 'out' }],
      },
      'def.boxes.0.credentials',
      'needs credentials of kind "postgres"',
    ],
  ];
  beforeAll(async () => {
    const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'cred.sftp',
        type: 'credentials',
        name: 'SFTP box',
        def: { kind: 'sftp', host: 'example.org', user: 'u', secret: 'pw' },
      },
    });
    expect(r.status, r.text).toBe(201);
  });
  it.each(cases)('refuses %s, naming the box and field', async (_what, def, field, words) => {
    const r = await saveFlow(`bad.${field.replace(/\W/g, '')}`, def);
    expect(r.status, r.text).toBe(400);
    expect(r.json.context.field).toBe(field);
    expect(r.json.message).toContain(words);
  });
});

describe('runs', () => {
  it('filters, derives and aggregates a CSV into a dataset with model objects', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/sales.csv' },
        {
          id: 'big',
          type: 'transform.filter',
          condition: '[amount] > 10 AND [region] IN ("EU", "US")',
        },
        {
          id: 'calc',
          type: 'transform.derive',
          columns: {
            net: '[amount] * 0.5',
            month: 'DATE_TRUNC("month", [day])',
            region: 'LOWER([region])',
          },
        },
        {
          id: 'agg',
          type: 'transform.aggregate',
          groupby: ['region'],
          measures: {
            total: 'SUM([net])',
            orders: 'COUNT([id])',
            buyers: 'COUNT_DISTINCT([customer])',
          },
        },
        {
          id: 'out',
          type: 'output.dataset',
          dataset: 'region_sales',
          mode: 'full',
          primarykey: 'region',
        },
      ],
      edges: [
        { from: 'src', to: 'big' },
        { from: 'big', to: 'calc' },
        { from: 'calc', to: 'agg' },
        { from: 'agg', to: 'out' },
      ],
    };
    const saved = await saveFlow('flow.sales', def, 'Sales by region');
    expect(saved.status, saved.text).toBe(201);
    const job = await run('flow.sales');
    expect(job.status, job.message).toBe('OK');
    const result = job.result as { boxes: Record<string, { rows: number }>; outputs: unknown[] };
    expect(result.boxes.src!.rows).toBe(6);
    expect(result.boxes.big!.rows).toBe(3);
    expect(result.boxes.agg!.rows).toBe(2);
    expect(result.outputs).toEqual([
      { box: 'out', type: 'output.dataset', dataset: 'region_sales', mode: 'full', rows: 2 },
    ]);
    // Progress keeps every box's rows after the commit (the loader's own beside them).
    const progress = job.progress as { boxes: Record<string, { status: string; rows: number }> };
    expect(progress.boxes.agg).toMatchObject({ status: 'done', rows: 2 });
    expect(progress.boxes.out).toMatchObject({ status: 'done', rows: 2 });
    const q = await aql('SELECT [region], SUM([total]), SUM([orders]), SUM([buyers])');
    expect(q.data.values.split('\n')).toEqual(['eu\t30\t2\t2', 'us\t15\t1\t1']);
    const obj = await s.api('GET', `/projects/${p}/pmd/obj/fact.region_sales.total`);
    expect(obj.status, obj.text).toBe(200);
  });

  it('joins, unions, selects, sorts, dedupes and limits into a storage file', async () => {
    const def = {
      boxes: [
        { id: 'sales', type: 'input.storage', path: '/in/sales.csv' },
        { id: 'cust', type: 'input.storage', path: '/in/customers.csv' },
        { id: 'extra', type: 'input.storage', path: '/in/extra.ndjson' },
        {
          id: 'j',
          type: 'transform.join',
          left: 'sales',
          right: 'cust',
          on: [['customer', 'customer']],
          how: 'left',
        },
        { id: 'sel', type: 'transform.select', columns: { who: 'name', tier: 'tier', id: 'id' } },
        { id: 'u', type: 'transform.union' },
        { id: 'd', type: 'transform.dedupe', columns: ['who'] },
        { id: 'o', type: 'transform.sort', by: [{ column: 'who', desc: true }] },
        { id: 'l', type: 'transform.limit', rows: 3 },
        { id: 'out', type: 'output.storage', path: '/out/people.csv', format: 'csv' },
      ],
      edges: [
        { from: 'sales', to: 'j' },
        { from: 'cust', to: 'j' },
        { from: 'j', to: 'sel' },
        { from: 'sel', to: 'u' },
        { from: 'extra', to: 'u' },
        { from: 'u', to: 'd' },
        { from: 'd', to: 'o' },
        { from: 'o', to: 'l' },
        { from: 'l', to: 'out' },
      ],
    };
    await put(
      '/in/extra.ndjson',
      '{"who":"Zed","tier":"bronze","id":99}\n{"who":"Acme","tier":"gold","id":1}\n',
    );
    expect((await saveFlow('flow.people', def)).status).toBe(201);
    const job = await run('flow.people');
    expect(job.status, job.message).toBe('OK');
    const rows = (job.result as { boxes: Record<string, { rows: number }> }).boxes;
    expect(rows.j!.rows).toBe(6); // left join keeps every sale
    expect(rows.u!.rows).toBe(8);
    expect(rows.d!.rows).toBe(4); // Acme, Birch, Zed, null
    expect(rows.l!.rows).toBe(3);
    const file = await s.api('GET', `/projects/${p}/webdav/out/people.csv`, {
      accept: '*/*',
    });
    expect(file.status).toBe(200);
    const lines = file.text.trim().split('\n');
    expect(lines[0]).toBe('who,tier,id');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['Zed', 'Birch', 'Acme']);
  });

  it('reads a path literally: glob characters in a file name are plain', async () => {
    await put('/in/lit/report1.csv', 'k,v\nglobbed,1\n');
    await put('/in/lit/report[1].csv', 'k,v\nliteral,2\n');
    const def = (path: string, extra = {}) => ({
      boxes: [
        { id: 'src', type: 'input.storage', path, ...extra },
        { id: 'out', type: 'output.storage', path: '/out/lit.csv', format: 'csv' },
      ],
      edges: [{ from: 'src', to: 'out' }],
    });
    expect((await saveFlow('flow.literal', def('/in/lit/report[1].csv'))).status).toBe(201);
    const job = await run('flow.literal');
    expect(job.status, job.message).toBe('OK');
    const file = await s.api('GET', `/projects/${p}/webdav/out/lit.csv`, { accept: '*/*' });
    expect(file.text.trim().split('\n')).toEqual(['k,v', 'literal,2']);
    expect((await saveFlow('flow.starlit', def('/in/lit/report*.csv'))).status).toBe(201);
    const star = await run('flow.starlit');
    expect(star.status).toBe('ERROR');
    expect(star.message).toBe('box "src" (path): no file or folder at "/in/lit/report*.csv"');
  });

  it('reads every file a pattern matches with glob: true, columns by name', async () => {
    await put('/in/parts/a.csv', 'id,amount\n1,5\n');
    await put('/in/parts/2024/b.csv', 'amount,id,note\n7,2,late\n');
    await put('/in/parts/2024/c.txt', 'not,this\n');
    const def = (path: string) => ({
      boxes: [
        { id: 'src', type: 'input.storage', path, glob: true },
        { id: 'o', type: 'transform.sort', by: [{ column: 'id' }] },
        { id: 'out', type: 'output.storage', path: '/out/parts.csv', format: 'csv' },
      ],
      edges: [
        { from: 'src', to: 'o' },
        { from: 'o', to: 'out' },
      ],
    });
    const read = async (path: string) => {
      await s.api('PUT', `/projects/${p}/pmd/obj/flow.glob`, {
        body: { name: 'Glob', def: def(path) },
      });
      return run('flow.glob');
    };
    expect((await saveFlow('flow.glob', def('/in/parts/*.csv'))).status).toBe(201);
    expect((await run('flow.glob')).status).toBe('OK');
    const one = await s.api('GET', `/projects/${p}/webdav/out/parts.csv`, { accept: '*/*' });
    expect(one.text.trim().split('\n')).toEqual(['id,amount', '1,5']);
    expect((await read('/in/parts/**/*.csv')).status).toBe('OK');
    const both = await s.api('GET', `/projects/${p}/webdav/out/parts.csv`, { accept: '*/*' });
    // Files in path order (/in/parts/2024/b.csv first): its columns come first.
    expect(both.text.trim().split('\n')).toEqual(['amount,id,note', '5,1,', '7,2,late']);
    const none = await read('/in/parts/*.parquet');
    expect(none.status).toBe('ERROR');
    expect(none.message).toBe(
      'box "src" (path): no file in project storage matches "/in/parts/*.parquet"',
    );
  });

  it('names the box and path when storage refuses an output file', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/sales.csv' },
        { id: 'out', type: 'output.storage', path: '/in', format: 'csv' },
      ],
      edges: [{ from: 'src', to: 'out' }],
    };
    expect((await saveFlow('flow.ontofolder', def)).status).toBe(201);
    const job = await run('flow.ontofolder');
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(/^box "out" \(path\): /);
  });

  it('writes Parquet and reads Parquet and JSON arrays back with their types', async () => {
    await put(
      '/in/events.json',
      JSON.stringify([
        { at: '2024-05-01T10:00:00Z', kind: 'click', n: 3, ok: true },
        { at: '2024-05-02T11:30:00Z', kind: 'view', n: 5, ok: false },
      ]),
    );
    const write = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/events.json' },
        { id: 'pq', type: 'output.storage', path: '/out/events.parquet', format: 'parquet' },
      ],
      edges: [{ from: 'src', to: 'pq' }],
    };
    const read = {
      boxes: [
        { id: 'pq', type: 'input.storage', path: '/out/events.parquet' },
        { id: 'twice', type: 'transform.derive', columns: { n2: '[n] * 2' } },
        { id: 'out', type: 'output.dataset', dataset: 'events', mode: 'full' },
      ],
      edges: [
        { from: 'pq', to: 'twice' },
        { from: 'twice', to: 'out' },
      ],
    };
    expect((await saveFlow('flow.pqw', write)).status).toBe(201);
    expect((await saveFlow('flow.pqr', read)).status).toBe(201);
    expect((await run('flow.pqw')).status).toBe('OK');
    const job = await run('flow.pqr');
    expect(job.status, job.message).toBe('OK');
    const types = Object.fromEntries(
      (
        await Promise.all(
          ['at', 'kind', 'n', 'ok', 'n2'].map((c) =>
            s.api(
              'GET',
              `/projects/${p}/pmd/obj/${c === 'n' || c === 'n2' ? 'fact' : 'attr'}.events.${c}`,
            ),
          ),
        )
      ).map((r, i) => [['at', 'kind', 'n', 'ok', 'n2'][i], r.json?.object?.def?.dataType]),
    );
    expect(types).toEqual({
      at: 'datetime',
      kind: 'string',
      n: 'integer',
      ok: 'boolean',
      n2: 'integer',
    });
    expect((await aql('SELECT SUM([n2])')).data.values).toBe('16');
  });

  it('loads references between datasets, so AQL joins them', async () => {
    const def = {
      boxes: [
        { id: 'cust', type: 'input.storage', path: '/in/customers.csv' },
        { id: 'sales', type: 'input.storage', path: '/in/sales.csv' },
        {
          id: 'known',
          type: 'transform.join',
          left: 'sales',
          right: 'cust',
          on: [['customer', 'customer']],
          how: 'inner',
        },
        { id: 'slim', type: 'transform.select', columns: ['id', 'customer', 'amount'] },
        {
          id: 'dim',
          type: 'output.dataset',
          dataset: 'customer_dim',
          mode: 'full',
          primarykey: 'customer',
          columns: { name: { label: 'Customer Name' }, customer: { label: 'Customer Key' } },
        },
        {
          id: 'facts',
          type: 'output.dataset',
          dataset: 'known_sales',
          mode: 'full',
          primarykey: 'id',
          references: { customer: 'customer_dim' },
          columns: {
            amount: { label: 'Known Amount' },
            id: { label: 'Known Sale' },
            customer: { label: 'Sale Customer' },
          },
        },
      ],
      edges: [
        { from: 'cust', to: 'dim' },
        { from: 'sales', to: 'known' },
        { from: 'cust', to: 'known' },
        { from: 'known', to: 'slim' },
        { from: 'slim', to: 'facts' },
      ],
    };
    expect((await saveFlow('flow.refs', def)).status).toBe(201);
    const job = await run('flow.refs');
    expect(job.status, job.message).toBe('OK');
    expect((job.result as { boxes: Record<string, { rows: number }> }).boxes.known!.rows).toBe(5);
    const attr = await s.api('GET', `/projects/${p}/pmd/obj/attr.known_sales.customer`);
    expect(attr.json.object.def.reference).toEqual({
      dataset: 'customer_dim',
      attribute: 'attr.customer_dim.customer',
    });
    expect(
      (await aql('SELECT [Customer Name], SUM([Known Amount]) ORDER BY [Customer Name]')).data
        .values,
    ).toBe('Acme\t75\nBirch\t32.5');
  });

  it('turns nested objects of JSON records into columns named by their path', async () => {
    await put(
      '/in/orders.ndjson',
      [
        { id: 1, customer: { name: 'Acme', address: { city: 'Oslo' } }, items: [1, 2] },
        { id: 2, customer: { name: 'Birch', address: { city: 'Lima' } }, items: [] },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/orders.ndjson' },
        { id: 'oslo', type: 'transform.filter', condition: '[customer.address.city] = "Oslo"' },
        { id: 'out', type: 'output.dataset', dataset: 'nested', mode: 'full' },
      ],
      edges: [
        { from: 'src', to: 'oslo' },
        { from: 'oslo', to: 'out' },
      ],
    };
    expect((await saveFlow('flow.nested', def)).status).toBe(201);
    const job = await run('flow.nested');
    expect(job.status, job.message).toBe('OK');
    const ds = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    const nested = ds.json.dataload.datasets.find((d: { name: string }) => d.name === 'nested');
    expect(nested.rows).toBe(1);
    const city = await s.api('GET', `/projects/${p}/pmd/obj/attr.nested.customer_address_city`);
    expect(city.status, city.text).toBe(200);
    expect(city.json.object.name).toBe('customer.address.city');
    // Arrays stay one column, stored as JSON text.
    expect((await aql('SELECT [items]')).data.values).toBe('[1,2]');
  });

  it('names the box, the field and the closest column for an unknown column', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/sales.csv' },
        { id: 'big', type: 'transform.filter', condition: '[amout] > 10' },
        { id: 'out', type: 'output.storage', path: '/out/never.csv', format: 'csv' },
      ],
      edges: [
        { from: 'src', to: 'big' },
        { from: 'big', to: 'out' },
      ],
    };
    expect((await saveFlow('flow.typo', def)).status).toBe(201);
    const job = await run('flow.typo');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('box "big" (condition): unknown column [amout]');
    expect(job.message).toContain('did you mean [amount]');
    expect(await rawStorage(s.engine).stat(p, '/out/never.csv')).toBeNull();
  });

  it('reports type mismatches in expressions and join keys', async () => {
    const def = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/sales.csv' },
        { id: 'cust', type: 'input.storage', path: '/in/customers.csv' },
        { id: 'j', type: 'transform.join', left: 'src', right: 'cust', on: [['id', 'customer']] },
        { id: 'out', type: 'output.storage', path: '/out/never.csv', format: 'csv' },
      ],
      edges: [
        { from: 'src', to: 'j' },
        { from: 'cust', to: 'j' },
        { from: 'j', to: 'out' },
      ],
    };
    expect((await saveFlow('flow.badjoin', def)).status).toBe(201);
    const job = await run('flow.badjoin');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('box "j" (on.0): type mismatch');
    const def2 = {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/sales.csv' },
        { id: 'f', type: 'transform.filter', condition: '[region] > [amount]' },
        { id: 'out', type: 'output.storage', path: '/out/never.csv', format: 'csv' },
      ],
      edges: [
        { from: 'src', to: 'f' },
        { from: 'f', to: 'out' },
      ],
    };
    expect((await saveFlow('flow.badtype', def2)).status).toBe(201);
    const job2 = await run('flow.badtype');
    expect(job2.status).toBe('ERROR');
    expect(job2.message).toMatch(/box "f" \(condition\): .*text/);
  });

  it('upserts in incremental mode and keeps the dataset on a failed run', async () => {
    await put('/in/day1.csv', 'sku,qty\na,1\nb,2\n');
    await put('/in/day2.csv', 'sku,qty\nb,20\nc,30\n');
    const flow = (file: string, mode: string) => ({
      boxes: [
        { id: 'src', type: 'input.storage', path: file },
        { id: 'out', type: 'output.dataset', dataset: 'stock', mode, primarykey: 'sku' },
      ],
      edges: [{ from: 'src', to: 'out' }],
    });
    expect((await saveFlow('flow.stock1', flow('/in/day1.csv', 'full'))).status).toBe(201);
    expect((await saveFlow('flow.stock2', flow('/in/day2.csv', 'incremental'))).status).toBe(201);
    expect((await run('flow.stock1')).status).toBe('OK');
    const second = await run('flow.stock2');
    expect(second.status, second.message).toBe('OK');
    const q = await aql('SELECT [sku], SUM([qty]) ORDER BY [sku]');
    expect(q.data.values).toBe('a\t1\nb\t20\nc\t30');
    // A duplicate key fails the whole run: the dataset stays as it was.
    await put('/in/day3.csv', 'sku,qty\nd,1\nd,2\n');
    expect((await saveFlow('flow.stock3', flow('/in/day3.csv', 'incremental'))).status).toBe(201);
    const bad = await run('flow.stock3');
    expect(bad.status).toBe('ERROR');
    expect(bad.message).toMatch(/^box "out" \(primarykey\): dataset "stock": .*not unique/);
    expect((await aql('SELECT [sku], SUM([qty]) ORDER BY [sku]')).data.values).toBe(
      'a\t1\nb\t20\nc\t30',
    );
  });

  it('lists flows with inputs, outputs and the last run; fullLoad adds def and triggers', async () => {
    const r = await s.api('GET', `/projects/${p}/inflow/flowlist`);
    expect(r.status, r.text).toBe(200);
    const f = r.json.flows.find((x: { id: string }) => x.id === 'flow.sales');
    expect(f).toMatchObject({
      id: 'flow.sales',
      name: 'Sales by region',
      inputs: [{ box: 'src', type: 'input.storage', source: '/in/sales.csv' }],
      outputs: [{ box: 'out', type: 'output.dataset', target: 'region_sales' }],
      running: false,
      lastRun: { status: 'OK' },
    });
    expect(f.def).toBeUndefined();
    const typo = r.json.flows.find((x: { id: string }) => x.id === 'flow.typo');
    expect(typo.lastRun.status).toBe('ERROR');
    expect(typo.lastRun.message).toContain('amout');
    const t = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        ident: 'trig.sales',
        type: 'trigger',
        name: 'Nightly sales',
        def: { type: 'flowTimer', flow: 'flow.sales', cron: '0 3 * * *', enabled: false },
      },
    });
    expect(t.status, t.text).toBe(201);
    const full = await s.api('GET', `/projects/${p}/inflow/flowlist?fullLoad=true`);
    const ff = full.json.flows.find((x: { id: string }) => x.id === 'flow.sales');
    expect(ff.def.boxes).toHaveLength(5);
    expect(ff.triggers).toEqual([
      { id: 'trig.sales', name: 'Nightly sales', type: 'flowTimer', enabled: false },
    ]);
  });

  it('records flow_run activity for the start and the end of every run', async () => {
    const r = await s.api('GET', `/projects/${p}/activity?types=flow_run&limit=100`);
    expect(r.status).toBe(200);
    const mine = r.json.activity.filter((a: { object?: string }) => a.object === 'flow.sales');
    expect(mine.map((a: { detail: { phase: string } }) => a.detail.phase).sort()).toEqual([
      'end',
      'start',
    ]);
    const end = mine.find((a: { detail: { phase: string } }) => a.detail.phase === 'end');
    expect(end.detail.status).toBe('OK');
    expect(end.detail.outputs[0].rows).toBe(2);
  });

  it('refuses to run or stop what does not exist, and runs only for MD Admins', async () => {
    const missing = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: { type: 'flow', id: 'flow.nope' },
    });
    expect(missing.status).toBe(404);
    const noId = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: { type: 'flow' },
    });
    expect(noId.status).toBe(400);
    const notRunning = await s.api('POST', `/projects/${p}/kodiak/transform/stop`, {
      body: { id: 'flow.sales' },
    });
    expect(notRunning.status).toBe(409);
    await s.api('POST', `/projects/${p}/users`, { body: { id: 'member@example.com' } });
    const member = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      as: 'member@example.com',
      body: { type: 'flow', id: 'flow.sales' },
    });
    expect(member.status).toBe(403);
  });
});

export { fs, os, path, sleep, startOnPort, writePlansFile };
