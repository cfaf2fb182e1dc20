// The semantic model over HTTP (spec "Semantic model"): objects and their defs, batches
// (all or nothing, ≤ 1000), revisions, dependencies, ACL visibility on every read path,
// encrypted credentials, search ranking, folders, the LDM/ODM graphs and the checks.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadDataset, metadataBytes } from './helpers/fixtures.js';
import { invite, startTestServer, type ApiOptions, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MDADMIN = 'model-md@example.com';
const ANALYST = 'model-analyst@example.com'; // member with role "sales"
const PLAIN = 'model-plain@example.com'; // member without roles
const FINANCE = 'model-finance@example.com'; // member of the userrole object "userrole.finance"

let s: TestServer;
let p: string;

const col = (
  id: string,
  dataType: string,
  objectType = 'A',
  extra: Record<string, unknown> = {},
) => ({ id, originalheader: id, objectType, dataType, label: id, ...extra });

const api = (method: string, path: string, opts?: ApiOptions) => s.api(method, path, opts);
const obj = (path = '') => `/projects/${p}/pmd/obj${path}`;
const idents = (list: Array<{ ident: string }>) => list.map((o) => o.ident);

/** Loads `csv` as dataset `cluster` of `project` with an inline prescription; waits for OK. */
async function load(
  project: string,
  cluster: string,
  csv: string,
  prescription: { primarykey: string; columns: unknown[] },
): Promise<void> {
  await rawStorage(s.engine).writeFile(project, `/${cluster}.csv`, Buffer.from(csv));
  const r = await api('POST', `/projects/${project}/kodiak/transform/execute`, {
    body: {
      type: 'cluster',
      clusters: {
        [cluster]: { source_type: 'webdav', source: `/${cluster}.csv`, prescription },
      },
    },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
}

async function create(body: unknown, project = p) {
  const r = await api('POST', `/projects/${project}/pmd/obj`, { body });
  expect(r.status, r.text).toBe(201);
  return r.json.objects as Array<{ ident: string; [k: string]: unknown }>;
}

const metric = (name: string, aql: string, extra: Record<string, unknown> = {}) => ({
  type: 'metric',
  name,
  def: { aql },
  ...extra,
});

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
  p = await createProject(s, 'model', 'Model');
  await invite(s, p, MDADMIN, { mdadmin: true });
  await invite(s, p, ANALYST, { roles: ['sales'] });
  await invite(s, p, PLAIN);
  await invite(s, p, FINANCE);
  await load(p, 'carriers', 'carrier_code,carrier_name\nAA,American\nDL,Delta\n', {
    primarykey: 'carrier_code',
    columns: [
      col('carrier_code', 'string', 'A', { label: 'Carrier Code' }),
      col('carrier_name', 'string', 'L', { label: 'Carrier Name', labelOf: 'carrier_code' }),
    ],
  });
  await load(p, 'flights', 'flight_id,carrier_code,distance\n1,AA,100\n2,DL,200\n3,AA,300\n', {
    primarykey: 'flight_id',
    columns: [
      col('flight_id', 'integer', 'A', { label: 'Flight' }),
      col('carrier_code', 'string', 'A', { label: 'Flight Carrier' }),
      col('distance', 'integer', 'F', { label: 'Distance' }),
    ],
  });
});
afterAll(() => s?.close());

describe('graphs of a loaded model', () => {
  it('pmd/graph/ldm: datasets with columns, key and rows; the reference as an edge', async () => {
    const r = await api('GET', `/projects/${p}/pmd/graph/ldm`, { as: PLAIN });
    expect(r.status, r.text).toBe(200);
    expect(r.json.datasets).toEqual([
      {
        name: 'carriers',
        rows: 2,
        primaryKey: 'carrier_code',
        columns: [
          {
            id: 'carrier_code',
            ident: 'attr.carriers.carrier_code',
            type: 'attribute',
            name: 'Carrier Code',
            dataType: 'string',
            primaryKey: true,
          },
          {
            id: 'carrier_name',
            ident: 'label.carriers.carrier_name',
            type: 'label',
            name: 'Carrier Name',
            dataType: 'string',
            primaryKey: false,
            labelOf: 'carrier_code',
          },
        ],
      },
      {
        name: 'flights',
        rows: 3,
        primaryKey: 'flight_id',
        columns: [
          expect.objectContaining({ ident: 'attr.flights.flight_id', primaryKey: true }),
          expect.objectContaining({ ident: 'attr.flights.carrier_code', primaryKey: false }),
          expect.objectContaining({ ident: 'fact.flights.distance', type: 'fact' }),
        ],
      },
    ]);
    expect(r.json.references).toEqual([
      {
        from: 'flights',
        column: 'carrier_code',
        attribute: 'attr.flights.carrier_code',
        to: 'carriers',
        target: 'attr.carriers.carrier_code',
      },
    ]);
  });

  it('pmd/graph/odm: objects as nodes, dependencies as edges', async () => {
    await create([
      metric('Total Distance', 'SELECT SUM([Distance])', { ident: 'metric.odm_total' }),
      {
        ident: 'report.odm',
        type: 'report',
        name: 'ODM report',
        def: {
          aql: 'SELECT [Carrier Name], [metric.odm_total]',
          visualization: { type: 'bar', x: 'Carrier Name', y: 'Total Distance' },
        },
      },
    ]);
    const r = await api('GET', `/projects/${p}/pmd/graph/odm`);
    expect(r.status, r.text).toBe(200);
    expect(r.json.nodes).toEqual(
      expect.arrayContaining([
        { ident: 'metric.odm_total', type: 'metric', name: 'Total Distance' },
        { ident: 'fact.flights.distance', type: 'fact', name: 'Distance' },
      ]),
    );
    expect(r.json.edges).toEqual(
      expect.arrayContaining([
        { from: 'metric.odm_total', to: 'fact.flights.distance' },
        { from: 'report.odm', to: 'metric.odm_total' },
        { from: 'report.odm', to: 'label.carriers.carrier_name' },
        { from: 'label.carriers.carrier_name', to: 'attr.carriers.carrier_code' },
        { from: 'attr.flights.carrier_code', to: 'attr.carriers.carrier_code' },
      ]),
    );
    const csv = await api('GET', `/projects/${p}/pmd/graph/odm?format=csv`);
    expect(csv.text.split('\r\n')[0]).toBe('from,to');
  });
});

describe('create, read, list', () => {
  it('creates one object: 201, a generated ident, object.<type> links, Location', async () => {
    const r = await api('POST', obj(), {
      body: metric('Flights Count', 'SELECT COUNT([Flight])', { description: 'How many' }),
      as: MDADMIN,
    });
    expect(r.status, r.text).toBe(201);
    const [o] = r.json.objects;
    expect(o).toMatchObject({
      ident: 'metric.flights_count',
      type: 'metric',
      name: 'Flights Count',
      description: 'How many',
      def: { aql: 'SELECT COUNT([Flight])' },
      acl: [],
      tag: [],
      revision: 1,
      createdBy: MDADMIN,
    });
    expect(o.link[0]).toEqual({
      href: `/api/v1/projects/${p}/pmd/obj/metric.flights_count`,
      id: 'metric.flights_count',
      title: 'Flights Count',
      rel: 'object.metric',
    });
    expect(r.headers.get('location')).toBe(`/api/v1/projects/${p}/pmd/obj/metric.flights_count`);
    // A name with the same slug gets the next free identifier (the same title is refused).
    const [again] = await create(metric('Flights-Count', 'SELECT COUNT([Flight])'));
    expect(again!.ident).toBe('metric.flights_count_2');
    await api('DELETE', obj('/metric.flights_count_2'));
  });

  it('GET one object; unknown → 404', async () => {
    const r = await api('GET', obj('/metric.flights_count'), { as: PLAIN });
    expect(r.status, r.text).toBe(200);
    expect(r.json.object).toMatchObject({ ident: 'metric.flights_count', type: 'metric' });
    expect(r.json.link[0].rel).toBe('object.metric');
    expect((await api('GET', obj('/metric.nope'))).status).toBe(404);
  });

  it('lists by rel (repeatable) and query, with paging and CSV', async () => {
    const metrics = await api('GET', obj('?rel=object.metric'));
    expect(metrics.status, metrics.text).toBe(200);
    expect(new Set(metrics.json.objects.map((o: { type: string }) => o.type))).toEqual(
      new Set(['metric']),
    );
    expect(metrics.json.link.every((l: { rel: string }) => l.rel === 'object.metric')).toBe(true);
    const two = await api('GET', obj('?rel=object.fact&rel=object.label'));
    expect(idents(two.json.objects).sort()).toEqual([
      'fact.flights.distance',
      'label.carriers.carrier_name',
    ]);
    const q = await api('GET', obj('?query=how%20MANY'));
    expect(idents(q.json.objects)).toEqual(['metric.flights_count']);
    const page = await api('GET', obj('?rel=object.attribute&limit=1&offset=1'));
    expect(page.json.objects).toHaveLength(1);
    expect(page.json.paging).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.json.paging.next).toContain('rel=object.attribute');
    const bad = await api('GET', obj('?rel=object.widget'));
    expect(bad.status).toBe(400);
    expect(bad.json.context.allowed).toContain('object.metric');
    const csv = await api('GET', obj('?rel=object.metric&format=csv'));
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(csv.text.split('\r\n')[0]).toBe(
      'ident,type,name,description,tag,revision,updated,updatedBy',
    );
  });

  it('validates defs: each type its schema; errors name the field', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'metric', name: 'X', def: {} }, /def\.aql/],
      [{ type: 'metric', name: 'X', def: { aql: 'SELECT 1', extra: 1 } }, /def/],
      [
        {
          type: 'report',
          name: 'X',
          def: { aql: 'SELECT [Flight]', visualization: { type: 'x' } },
        },
        /def\.visualization\.type/,
      ],
      [
        {
          type: 'trigger',
          name: 'X',
          def: { type: 'flowTimer', flow: 'flow.x', enabled: true },
        },
        /def\.cron/,
      ],
      [{ type: 'credentials', name: 'X', def: { kind: 'ftp', secret: 's' } }, /def\.kind/],
      [{ type: 'metric', name: 'X', def: { aql: 'SELECT SUM([Nope])' } }, /\[Nope\]/],
      [{ type: 'widget', name: 'X', def: {} }, /type: must be one of/],
      [{ type: 'metric', name: 'X', ident: 'attr.x.y', def: { aql: 'SELECT 1' } }, /data loads/],
      [{ type: 'metric', name: 'X', ident: 'bad ident', def: { aql: 'SELECT 1' } }, /ident/],
      [
        { type: 'metric', name: 'X', def: { aql: 'S' }, acl: [{ userrole: 'r', acl: 'rw' }] },
        /acl/,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await api('POST', obj(), { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.message).toMatch(message);
    }
  });

  it('refuses attribute, label and fact: data loads create them', async () => {
    const r = await api('POST', obj(), {
      body: { type: 'attribute', name: 'A', def: { dataset: 'x', column: 'y' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/created by data loads/);
  });

  it('a duplicate ident → 409', async () => {
    const r = await api('POST', obj(), {
      body: metric('Again', 'SELECT COUNT([Flight])', { ident: 'metric.flights_count' }),
    });
    expect(r.status).toBe(409);
  });

  it('dashboards must name reports; layouts their items', async () => {
    const bad = await api('POST', obj(), {
      body: {
        type: 'dashboard',
        name: 'D',
        def: { items: [{ id: 'a', report: 'metric.flights_count' }] },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/def\.items\.0\.report.*expected report/);
    const layout = await api('POST', obj(), {
      body: {
        type: 'dashboard',
        name: 'D',
        def: {
          items: [{ id: 'a', report: 'report.odm' }],
          layout: [{ item: 'b', x: 0, y: 0, w: 1, h: 1 }],
        },
      },
    });
    expect(layout.status).toBe(400);
    expect(layout.json.message).toMatch(/def\.layout\.0\.item/);
    const [ok] = await create({
      type: 'dashboard',
      name: 'Flights board',
      def: {
        items: [{ id: 'a', report: 'report.odm', title: 'By carrier' }],
        layout: [{ item: 'a', x: 0, y: 0, w: 6, h: 4 }],
        filters: [{ attribute: 'attr.carriers.carrier_code', values: ['AA'] }],
      },
    });
    expect(ok).toMatchObject({ ident: 'dashboard.flights_board', type: 'dashboard' });
  });

  it('triggers name flows, flows their credentials', async () => {
    const noFlow = await api('POST', obj(), {
      body: {
        type: 'trigger',
        name: 'T',
        def: { type: 'flowTimer', flow: 'flow.none', cron: '0 6 * * *', enabled: true },
      },
    });
    expect(noFlow.status).toBe(400);
    expect(noFlow.json.message).toMatch(/def\.flow/);
    const made = await create([
      {
        ident: 'credentials.sftp',
        type: 'credentials',
        name: 'SFTP',
        def: { kind: 'sftp', host: 'h', secret: 'x' },
      },
      {
        ident: 'flow.nightly',
        type: 'flow',
        name: 'Nightly',
        def: {
          boxes: [
            { id: 'in', type: 'input.sftp', credentials: 'credentials.sftp', path: '/x.csv' },
            { id: 'out', type: 'output.dataset', dataset: 'nightly', mode: 'full' },
          ],
          edges: [{ from: 'in', to: 'out' }],
        },
      },
      {
        ident: 'trigger.nightly',
        type: 'trigger',
        name: 'Nightly at six',
        def: { type: 'flowTimer', flow: 'flow.nightly', cron: '0 6 * * *', enabled: true },
      },
    ]);
    expect(idents(made)).toEqual(['credentials.sftp', 'flow.nightly', 'trigger.nightly']);
  });
});

describe('batches', () => {
  it('all or nothing: one bad item → 400 naming its index, nothing created', async () => {
    const before = (await api('GET', obj('?limit=1000'))).json.paging.total;
    const r = await api('POST', obj(), {
      body: [
        metric('Batch ok', 'SELECT SUM([Distance])', { ident: 'metric.batch_ok' }),
        metric('Batch bad', 'SELECT SUM([No Such Thing])', { ident: 'metric.batch_bad' }),
      ],
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/^invalid object: 1\.def\.aql/);
    expect(r.json.context.index).toBe(1);
    const shape = await api('POST', obj(), {
      body: [metric('Batch ok', 'SELECT SUM([Distance])'), { type: 'metric', name: 'x' }],
    });
    expect(shape.status).toBe(400);
    expect(shape.json.message).toMatch(/1\.def/);
    expect((await api('GET', obj('/metric.batch_ok'))).status).toBe(404);
    expect((await api('GET', obj('?limit=1000'))).json.paging.total).toBe(before);
  });

  it('objects of one batch may depend on each other (by ident or by title)', async () => {
    const made = await create([
      metric('Batch base', 'SELECT SUM([Distance])', { ident: 'metric.batch_base' }),
      metric('Batch double', 'SELECT [batch base] * 2', { ident: 'metric.batch_double' }),
    ]);
    expect(idents(made)).toEqual(['metric.batch_base', 'metric.batch_double']);
  });

  it('duplicate idents inside one batch → 409', async () => {
    const r = await api('POST', obj(), {
      body: [
        metric('D1', 'SELECT SUM([Distance])', { ident: 'metric.dup_in_batch' }),
        metric('D2', 'SELECT SUM([Distance])', { ident: 'metric.dup_in_batch' }),
      ],
    });
    expect(r.status).toBe(409);
    expect(r.json.context.index).toBe(1);
  });

  it('1000 objects in one call are fine; 1001 → 400 and nothing is created', async () => {
    const q = await createProject(s, 'model-batch', 'Batch');
    const folders = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        type: 'folder',
        name: `${tag} ${i}`,
        def: { content: [] },
      }));
    const tooMany = await api('POST', `/projects/${q}/pmd/obj`, { body: folders(1001, 'Big') });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.message).toMatch(/at most 1000/);
    const made = await create(folders(1000, 'Ok'), q);
    expect(made).toHaveLength(1000);
    const list = await api('GET', `/projects/${q}/pmd/obj?rel=object.folder&limit=1`);
    expect(list.json.paging.total).toBe(1000);
  });
});

describe('change, history, delete', () => {
  it('PUT replaces the definition and keeps revisions; history lists them', async () => {
    await create(metric('Hist', 'SELECT SUM([Distance])', { ident: 'metric.hist', tag: ['a'] }));
    const version = async () =>
      (await api('GET', `/projects/${p}/kodiak/dataload`)).json.dataload.modelVersion as number;
    const v0 = await version();
    const r = await api('PUT', obj('/metric.hist'), {
      body: { name: 'Hist 2', def: { aql: 'SELECT MAX([Distance])', format: '#,##0' } },
      as: MDADMIN,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.object).toMatchObject({
      name: 'Hist 2',
      revision: 2,
      tag: [],
      def: { aql: 'SELECT MAX([Distance])', format: '#,##0' },
      updatedBy: MDADMIN,
    });
    expect(await version()).toBe(v0 + 1);
    // The same definition again changes nothing: no revision, no version.
    const same = await api('PUT', obj('/metric.hist'), {
      body: { ...r.json.object, link: undefined },
    });
    expect(same.status, same.text).toBe(200);
    expect(same.json.object.revision).toBe(2);
    expect(await version()).toBe(v0 + 1);

    const h = await api('GET', obj('/metric.hist/history'));
    expect(h.status, h.text).toBe(200);
    expect(h.json.history.map((x: { revision: number }) => x.revision)).toEqual([2, 1]);
    expect(h.json.history[0]).toMatchObject({ user: MDADMIN });
    expect(h.json.history[0].link[0].href).toBe(
      `/api/v1/projects/${p}/pmd/obj/metric.hist/history/2`,
    );
    const first = await api('GET', obj('/metric.hist/history/1'));
    expect(first.status, first.text).toBe(200);
    expect(first.json.object).toMatchObject({
      ident: 'metric.hist',
      name: 'Hist',
      revision: 1,
      tag: ['a'],
      def: { aql: 'SELECT SUM([Distance])' },
    });
    expect((await api('GET', obj('/metric.hist/history/9'))).status).toBe(404);
    expect((await api('GET', obj('/metric.hist/history/x'))).status).toBe(400);
    const withHistory = await api('GET', obj('/metric.hist?history=1'));
    expect(withHistory.json.history).toHaveLength(2);
  });

  it('PUT cannot change the type or the ident', async () => {
    const t = await api('PUT', obj('/metric.hist'), {
      body: { type: 'filter', name: 'x', def: { aql: '[Flight] = 1' } },
    });
    expect(t.status).toBe(400);
    expect(t.json.message).toMatch(/type cannot change/);
    const i = await api('PUT', obj('/metric.hist'), {
      body: { ident: 'metric.other', name: 'x', def: { aql: 'SELECT 1' } },
    });
    expect(i.status).toBe(400);
    expect((await api('PUT', obj('/metric.none'), { body: { name: 'x' } })).status).toBe(404);
  });

  it('load-created objects: name, description, tag and acl change; def and delete do not', async () => {
    const ident = 'attr.flights.flight_id';
    const cur = (await api('GET', obj(`/${ident}`))).json.object;
    const ok = await api('PUT', obj(`/${ident}`), {
      body: { name: 'Flight', description: 'One flight', tag: ['core'], def: cur.def },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.object).toMatchObject({ description: 'One flight', tag: ['core'] });
    const noDef = await api('PUT', obj(`/${ident}`), { body: { name: 'Flight' } });
    expect(noDef.status, noDef.text).toBe(200);
    const changed = await api('PUT', obj(`/${ident}`), {
      body: { name: 'Flight', def: { ...cur.def, dataType: 'string' } },
    });
    expect(changed.status).toBe(400);
    expect(changed.json.message).toMatch(/created by data loads/);
    const del = await api('DELETE', obj(`/${ident}`));
    expect(del.status).toBe(400);
    expect(del.json.message).toMatch(/delete the dataset's column by reloading/);
  });

  it('DELETE → 409 with the dependents while others use it, 204 once free', async () => {
    await create([
      metric('Base', 'SELECT SUM([Distance])', { ident: 'metric.del_base' }),
      metric('Uses base by title', 'SELECT [Base] / 2', { ident: 'metric.del_user' }),
      { ident: 'folder.del', type: 'folder', name: 'Del folder', def: { content: [] } },
    ]);
    let r = await api('DELETE', obj('/metric.del_base'));
    expect(r.status).toBe(409);
    expect(r.json.context.dependents).toEqual([
      { ident: 'metric.del_user', type: 'metric', name: 'Uses base by title' },
    ]);
    const preds = await api('GET', obj('/metric.del_user?predecessors=1&successors=1'));
    expect(idents(preds.json.predecessors)).toEqual(['metric.del_base']);
    expect(preds.json.successors).toEqual([]);
    expect(preds.json.predecessors[0].link[0].rel).toBe('object.metric');
    const succ = await api('GET', obj('/fact.flights.distance?successors=1'));
    expect(idents(succ.json.successors)).toContain('metric.del_base');

    expect((await api('DELETE', obj('/metric.del_user'))).status).toBe(204);
    // A folder holding it is a dependent too.
    await api('POST', `/projects/${p}/pmd/modifyfolder`, {
      body: { ident: 'folder.del', op: 'add', content: ['metric.del_base'] },
    });
    r = await api('DELETE', obj('/metric.del_base'));
    expect(r.status).toBe(409);
    expect(idents(r.json.context.dependents)).toEqual(['folder.del']);
    await api('POST', `/projects/${p}/pmd/modifyfolder`, {
      body: { ident: 'folder.del', op: 'remove', content: ['metric.del_base'] },
    });
    expect((await api('DELETE', obj('/metric.del_base'), { as: MDADMIN })).status).toBe(204);
    expect((await api('GET', obj('/metric.del_base'))).status).toBe(404);
    expect((await api('DELETE', obj('/metric.del_base'))).status).toBe(404);
  });

  it('every change is an obj_action activity event', async () => {
    const r = await api('GET', `/projects/${p}/activity?types=obj_action&limit=1000`);
    const events = r.json.activity as Array<{ object: string; detail: { action: string } }>;
    const of = (ident: string) =>
      events.filter((e) => e.object === ident).map((e) => e.detail.action);
    expect(of('metric.del_base')).toEqual(['delete', 'create']);
    expect(of('folder.del')).toEqual(['update', 'update', 'create']);
    expect(of('metric.hist')).toEqual(['update', 'create']);
  });
});

describe('ACL visibility on every read path', () => {
  const SEES: Record<string, string[]> = {
    [ANALYST]: ['metric.acl_open', 'metric.acl_sales'],
    [PLAIN]: ['metric.acl_open'],
    [FINANCE]: ['metric.acl_open', 'metric.acl_finance'],
  };
  const ACL_METRICS = [
    'metric.acl_open',
    'metric.acl_sales',
    'metric.acl_board',
    'metric.acl_denied',
    'metric.acl_finance',
  ];
  const hidden = (user: string) => ACL_METRICS.filter((m) => !SEES[user]!.includes(m));

  beforeAll(async () => {
    await create([
      {
        ident: 'userrole.finance',
        type: 'userrole',
        name: 'Finance',
        def: { members: [FINANCE] },
      },
      metric('ACL open', 'SELECT SUM([Distance])', { ident: 'metric.acl_open' }),
      metric('ACL sales', 'SELECT SUM([Distance])', {
        ident: 'metric.acl_sales',
        acl: [{ userrole: 'sales', acl: 'r----' }],
      }),
      metric('ACL board secret', 'SELECT MAX([Distance])', {
        ident: 'metric.acl_board',
        acl: [{ userrole: 'board', acl: 'rwdsa' }],
      }),
      metric('ACL denied', 'SELECT MIN([Distance])', {
        ident: 'metric.acl_denied',
        acl: [{ userrole: 'sales', acl: '-wdsa' }],
      }),
      metric('ACL finance', 'SELECT AVG([Distance])', {
        ident: 'metric.acl_finance',
        acl: [{ userrole: 'userrole.finance', acl: 'r----' }],
      }),
      metric('ACL uses all', 'SELECT [metric.acl_sales] + [metric.acl_board]', {
        ident: 'metric.acl_user',
      }),
      {
        ident: 'folder.acl',
        type: 'folder',
        name: 'ACL folder',
        def: { content: ACL_METRICS },
      },
    ]);
  });

  it.each([ANALYST, PLAIN, FINANCE])('%s: lists', async (user) => {
    const r = await api('GET', obj('?rel=object.metric&limit=1000'), { as: user });
    expect(r.status, r.text).toBe(200);
    const got = idents(r.json.objects).filter((i) => ACL_METRICS.includes(i));
    expect(got.sort()).toEqual([...SEES[user]!].sort());
    const q = await api('GET', obj('?query=acl&limit=1000'), { as: user });
    for (const h of hidden(user)) expect(idents(q.json.objects)).not.toContain(h);
  });

  it.each([ANALYST, PLAIN, FINANCE])('%s: get, history and revisions → 404', async (user) => {
    for (const m of ACL_METRICS) {
      const ok = SEES[user]!.includes(m);
      for (const path of [`/${m}`, `/${m}/history`, `/${m}/history/1`, `/${m}?successors=1`])
        expect((await api('GET', obj(path), { as: user })).status, `${m}${path}`).toBe(
          ok ? 200 : 404,
        );
    }
  });

  it.each([ANALYST, PLAIN, FINANCE])('%s: search and bulk', async (user) => {
    const r = await api('GET', `/projects/${p}/app/obj/search?query=acl`, { as: user });
    expect(r.status, r.text).toBe(200);
    for (const h of hidden(user)) expect(idents(r.json.hits)).not.toContain(h);
    for (const v of SEES[user]!) expect(idents(r.json.hits)).toContain(v);
    const b = await api('GET', `/projects/${p}/pmd/bulkobj?idents=${ACL_METRICS.join(',')}`, {
      as: user,
    });
    expect(b.status, b.text).toBe(200);
    expect(idents(b.json.objects).sort()).toEqual([...SEES[user]!].sort());
    expect(b.json.missing.sort()).toEqual(hidden(user).sort());
  });

  it.each([ANALYST, PLAIN, FINANCE])('%s: graph, predecessors and folder content', async (user) => {
    const g = await api('GET', `/projects/${p}/pmd/graph/odm`, { as: user });
    const nodes = idents(g.json.nodes);
    const ends = g.json.edges.flatMap((e: { from: string; to: string }) => [e.from, e.to]);
    for (const h of hidden(user)) {
      expect(nodes).not.toContain(h);
      expect(ends).not.toContain(h);
    }
    const d = await api('GET', obj('/metric.acl_user?predecessors=1'), { as: user });
    expect(idents(d.json.predecessors)).toEqual(
      ['metric.acl_sales', 'metric.acl_board'].filter((m) => SEES[user]!.includes(m)),
    );
    const f = await api('GET', obj('/folder.acl'), { as: user });
    expect(f.json.object.def.content).toEqual(ACL_METRICS.filter((m) => SEES[user]!.includes(m)));
  });

  it('Admin and MD Admin see everything', async () => {
    for (const user of [MDADMIN, undefined]) {
      const b = await api('GET', `/projects/${p}/pmd/bulkobj?idents=${ACL_METRICS.join(',')}`, {
        as: user,
      });
      expect(idents(b.json.objects)).toEqual(ACL_METRICS);
    }
  });

  it('ldm leaves out columns the member cannot read', async () => {
    const cur = (await api('GET', obj('/fact.flights.distance'))).json.object;
    const put = await api('PUT', obj('/fact.flights.distance'), {
      body: { name: cur.name, def: cur.def, acl: [{ userrole: 'sales', acl: 'r----' }] },
    });
    expect(put.status, put.text).toBe(200);
    const columns = async (user: string) =>
      (await api('GET', `/projects/${p}/pmd/graph/ldm`, { as: user })).json.datasets
        .find((d: { name: string }) => d.name === 'flights')
        .columns.map((c: { ident: string }) => c.ident);
    expect(await columns(ANALYST)).toContain('fact.flights.distance');
    expect(await columns(PLAIN)).not.toContain('fact.flights.distance');
    await api('PUT', obj('/fact.flights.distance'), {
      body: { name: cur.name, def: cur.def, acl: [] },
    });
    expect(await columns(PLAIN)).toContain('fact.flights.distance');
  });

  it('members cannot write (403)', async () => {
    const r = await api('PUT', obj('/metric.acl_sales'), {
      as: ANALYST,
      body: { name: 'x', def: { aql: 'SELECT 1' } },
    });
    expect(r.status).toBe(403);
  });
});

describe('credentials', () => {
  const SECRET = 'Pa55-very-secret-9f3b1c77';

  it('encrypts the secret at rest and never returns it', async () => {
    const [made] = await create({
      ident: 'credentials.warehouse',
      type: 'credentials',
      name: 'Warehouse',
      def: { kind: 'postgres', host: 'db.example.com', port: 5432, user: 'u', secret: SECRET },
    });
    expect(made!.def).toEqual({
      kind: 'postgres',
      host: 'db.example.com',
      port: 5432,
      user: 'u',
      secretSet: true,
    });
    const reads = [
      obj('/credentials.warehouse'),
      obj('/credentials.warehouse/history/1'),
      obj('?rel=object.credentials'),
      obj('?rel=object.credentials&format=csv'),
      `/projects/${p}/pmd/bulkobj?idents=credentials.warehouse`,
      `/projects/${p}/app/obj/search?query=warehouse`,
      `/projects/${p}/activity?types=obj_action`,
    ];
    for (const path of reads) {
      const r = await api('GET', path);
      expect(r.status, path).toBe(200);
      expect(r.text, path).not.toContain(SECRET);
      expect(r.text, path).not.toContain('secretEnc');
    }
    // A PUT without the secret keeps it while it goes where it went (another host would need
    // it again: flow-credentials.test.ts); the engine can still read it.
    const get = (await api('GET', obj('/credentials.warehouse'))).json.object;
    const put = await api('PUT', obj('/credentials.warehouse'), {
      body: { ...get, link: undefined, def: { ...get.def, database: 'archive' } },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.object.def).toMatchObject({ database: 'archive', secretSet: true });
    const admin = await s.engine.actor({ email: 'admin@example.com' }, p);
    expect(await s.engine.objects.secretOf(admin, 'credentials.warehouse')).toBe(SECRET);

    const bytes = metadataBytes(s.dataDir);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(Buffer.from(SECRET))).toBe(false);
    const keyFile = path.join(s.dataDir, 'keys', 'secrets.key');
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
  });

  it('a credentials object needs a secret when created', async () => {
    const r = await api('POST', obj(), {
      body: { type: 'credentials', name: 'No secret', def: { kind: 'http' } },
    });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/def\.secret/);
  });
});

describe('search', () => {
  beforeAll(async () => {
    await create([
      metric('Net Zorbex', 'SELECT SUM([Distance])', { ident: 'metric.s_word' }),
      metric('Zorbex Growth', 'SELECT SUM([Distance])', { ident: 'metric.s_prefix' }),
      metric('Prezorbexian', 'SELECT SUM([Distance])', { ident: 'metric.s_sub' }),
      metric('Zorbex', 'SELECT SUM([Distance])', { ident: 'metric.s_exact' }),
      metric('Alpha', 'SELECT SUM([Distance])', {
        ident: 'metric.s_desc',
        description: 'Zorbex in the description only',
      }),
      metric('Beta', 'SELECT SUM([Distance])', { ident: 'metric.s_tag', tag: ['zorbex'] }),
    ]);
  });

  it('ranks exact name > prefix > word > substring, name hits above other fields', async () => {
    const r = await api('GET', `/projects/${p}/app/obj/search?query=zorbex`);
    expect(r.status, r.text).toBe(200);
    expect(idents(r.json.hits)).toEqual([
      'metric.s_exact',
      'metric.s_prefix',
      'metric.s_word',
      'metric.s_sub',
      'metric.s_tag',
      'metric.s_desc',
    ]);
    expect(r.json.hits[0]).toMatchObject({ field: 'name', match: 'exact' });
    expect(r.json.hits[0].link[0].rel).toBe('object.metric');
  });

  it('finds datasets by name with datasets=true, only those the reader reads a column of', async () => {
    await load(p, 'zorbex_sales', 'zorbex_region\nEU\n', {
      primarykey: '',
      columns: [
        {
          id: 'zorbex_region',
          originalheader: 'zorbex_region',
          objectType: 'A',
          dataType: 'string',
          label: 'Zone',
        },
      ],
    });
    const col = (await api('GET', obj('/attr.zorbex_sales.zorbex_region'))).json.object;
    const only = await api('PUT', obj('/attr.zorbex_sales.zorbex_region'), {
      body: { ...col, link: undefined, acl: [{ userrole: 'sales', acl: 'r----' }] },
    });
    expect(only.status, only.text).toBe(200);
    const find = (user?: string, more = '&datasets=true') =>
      api('GET', `/projects/${p}/app/obj/search?query=zorbex${more}`, { as: user });
    const admin = await find();
    expect(admin.status, admin.text).toBe(200);
    const hit = admin.json.hits.find((h: { type: string }) => h.type === 'dataset');
    expect(hit).toMatchObject({
      ident: 'dataset.zorbex_sales',
      name: 'zorbex_sales',
      field: 'name',
      match: 'prefix',
    });
    expect(hit.link[0]).toMatchObject({ rel: 'dataset', id: 'dataset.zorbex_sales' });
    // Ranked with the objects: a prefix of the name below the exact "Zorbex", above a word.
    expect(idents(admin.json.hits).slice(0, 3)).toEqual([
      'metric.s_exact',
      'metric.s_prefix',
      'dataset.zorbex_sales',
    ]);
    // Only when asked; only for a reader of one of its columns.
    expect(idents((await find(undefined, '')).json.hits)).not.toContain('dataset.zorbex_sales');
    expect(idents((await find(ANALYST)).json.hits)).toContain('dataset.zorbex_sales');
    expect(idents((await find(PLAIN)).json.hits)).not.toContain('dataset.zorbex_sales');
    expect((await find(undefined, '&datasets=yes')).status).toBe(400);
  });

  it('params chooses the fields; limit cuts; unknown param or no query → 400', async () => {
    const d = await api('GET', `/projects/${p}/app/obj/search?query=zorbex&params=description`);
    expect(idents(d.json.hits)).toEqual(['metric.s_desc']);
    const t = await api('GET', `/projects/${p}/app/obj/search?query=metric&params=type&limit=2`);
    expect(t.json.hits).toHaveLength(2);
    expect(t.json.total).toBeGreaterThan(2);
    const bad = await api('GET', `/projects/${p}/app/obj/search?query=x&params=name,colour`);
    expect(bad.status).toBe(400);
    expect(bad.json.context.allowed).toContain('description');
    expect((await api('GET', `/projects/${p}/app/obj/search`)).status).toBe(400);
  });
});

describe('bulkobj', () => {
  it('returns the asked keys; unknown keys → 400', async () => {
    const r = await api(
      'GET',
      `/projects/${p}/pmd/bulkobj?idents=metric.acl_open,fact.flights.distance,nope&keys=name,type`,
    );
    expect(r.status, r.text).toBe(200);
    expect(r.json.objects).toEqual([
      { ident: 'metric.acl_open', type: 'metric', name: 'ACL open', link: [expect.any(Object)] },
      {
        ident: 'fact.flights.distance',
        type: 'fact',
        name: 'Distance',
        link: [expect.any(Object)],
      },
    ]);
    expect(r.json.missing).toEqual(['nope']);
    const bad = await api('GET', `/projects/${p}/pmd/bulkobj?idents=metric.acl_open&keys=colour`);
    expect(bad.status).toBe(400);
    expect(bad.json.context.allowed).toContain('def');
    expect((await api('GET', `/projects/${p}/pmd/bulkobj`)).status).toBe(400);
  });
});

describe('modifyfolder', () => {
  const folderPath = () => `/projects/${p}/pmd/modifyfolder`;

  it('adds and removes content', async () => {
    await create({ ident: 'folder.mf', type: 'folder', name: 'MF', def: { content: [] } });
    let r = await api('POST', folderPath(), {
      body: { ident: 'folder.mf', op: 'add', content: ['metric.acl_open', 'metric.hist'] },
      as: MDADMIN,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.object.def.content).toEqual(['metric.acl_open', 'metric.hist']);
    r = await api('POST', folderPath(), {
      body: { ident: 'folder.mf', op: 'add', content: ['metric.hist', 'fact.flights.distance'] },
    });
    expect(r.json.object.def.content).toEqual([
      'metric.acl_open',
      'metric.hist',
      'fact.flights.distance',
    ]);
    r = await api('POST', folderPath(), {
      body: { ident: 'folder.mf', op: 'remove', content: ['metric.hist'] },
    });
    expect(r.json.object.def.content).toEqual(['metric.acl_open', 'fact.flights.distance']);
    expect(r.json.object.revision).toBe(4);
  });

  it('refuses an unknown op, unknown content and a non-folder', async () => {
    const op = await api('POST', folderPath(), {
      body: { ident: 'folder.mf', op: 'move', content: [] },
    });
    expect(op.status).toBe(400);
    expect(op.json.context.allowed).toEqual(['add', 'remove']);
    const unknown = await api('POST', folderPath(), {
      body: { ident: 'folder.mf', op: 'add', content: ['metric.nope'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.context.unknown).toEqual(['metric.nope']);
    const notFolder = await api('POST', folderPath(), {
      body: { ident: 'metric.hist', op: 'add', content: [] },
    });
    expect(notFolder.status).toBe(400);
    const missing = await api('POST', folderPath(), {
      body: { ident: 'folder.none', op: 'add', content: [] },
    });
    expect(missing.status).toBe(404);
  });

  it('a member cannot add objects they cannot see, nor change folders at all', async () => {
    const r = await api('POST', folderPath(), {
      as: ANALYST,
      body: { ident: 'folder.mf', op: 'add', content: ['metric.acl_sales'] },
    });
    expect(r.status).toBe(403);
  });
});

describe('checks', () => {
  let q: string;
  beforeAll(async () => {
    q = await createProject(s, 'model-checks', 'Checks');
  });
  const check = async (what: 'model' | 'obj') => {
    const r = await api('GET', `/projects/${q}/pmd/check/${what}`);
    expect(r.status, r.text).toBe(200);
    return r.json as { ok: boolean; problems: Array<Record<string, unknown>> };
  };
  const kinds = (problems: Array<Record<string, unknown>>) =>
    [...new Set(problems.map((x) => x.kind))].sort();

  it('an empty model is fine', async () => {
    expect(await check('model')).toEqual({ ok: true, problems: [] });
    expect(await check('obj')).toEqual({ ok: true, problems: [] });
  });

  it('pmd/check/model reports each kind of problem', async () => {
    // c ← b ← a and c ← a: two paths from a to c.
    await load(q, 'c', 'c_id,cname\n1,x\n', {
      primarykey: 'c_id',
      columns: [col('c_id', 'integer'), col('cname', 'string')],
    });
    // References follow column ids; titles are unique, so the key columns get their own.
    await load(q, 'b', 'b_id,c_id\n1,1\n', {
      primarykey: 'b_id',
      columns: [col('b_id', 'integer'), col('c_id', 'integer', 'A', { label: 'b c_id' })],
    });
    await load(q, 'a', 'a_id,b_id,c_id,amount\n1,1,1,5\n', {
      primarykey: 'a_id',
      columns: [
        col('a_id', 'integer'),
        col('b_id', 'integer', 'A', { label: 'a b_id' }),
        col('c_id', 'integer', 'A', { label: 'a c_id' }),
        col('amount', 'integer', 'F'),
      ],
    });
    // A reference to a dataset never loaded, and one to a dataset without a key.
    await load(q, 'nokey', 'code,v\nx,1\n', {
      primarykey: '',
      columns: [col('code', 'string'), col('v', 'integer', 'F')],
    });
    await load(q, 'orders', 'order_id,store_id,code\n1,9,x\n', {
      primarykey: 'order_id',
      columns: [
        col('order_id', 'integer'),
        col('store_id', 'integer', 'A', { reference: 'stores' }),
        col('code', 'string', 'A', { reference: 'nokey', label: 'orders code' }),
      ],
    });
    // A label whose attribute is gone (loads never leave one; an old model might).
    await s.engine.model.upsert(
      q,
      [
        {
          ident: 'label.orders.ghost',
          type: 'label',
          name: 'Ghost',
          def: {
            dataset: 'orders',
            column: 'ghost',
            dataType: 'string',
            source: 'load',
            attribute: 'attr.orders.gone',
          },
        },
      ],
      'test',
    );
    // [Same Title] was unambiguous when metric.uses_dup was saved; the second title came
    // later, in a model from before titles were unique (the API refuses it now: 409).
    // Saved through the API, metric.uses_dup names it by identifier; metric.legacy_dup was
    // stored before that (its text still holds the title).
    await create(
      [
        metric('Same title', 'SELECT SUM([fact.a.amount])'),
        metric('Uses dup', 'SELECT [Same Title] * 2', { ident: 'metric.uses_dup' }),
      ],
      q,
    );
    const dup = metric('same TITLE', 'SELECT MAX([fact.a.amount])');
    expect((await api('POST', `/projects/${q}/pmd/obj`, { body: dup })).status).toBe(409);
    await s.engine.model.upsert(
      q,
      [{ ...dup, ident: 'metric.same_title_2', type: 'metric' }],
      'test',
    );
    const legacy = metric('Legacy dup', 'SELECT [Same Title] * 3');
    await s.engine.model.upsert(
      q,
      [{ ...legacy, ident: 'metric.legacy_dup', type: 'metric' }],
      'test',
    );

    const { ok, problems } = await check('model');
    expect(ok).toBe(false);
    expect(kinds(problems)).toEqual([
      'ambiguous_join',
      'broken_reference',
      'duplicate_title',
      'orphan_label',
      'reference_without_primary_key',
    ]);
    const of = (kind: string) => problems.filter((x) => x.kind === kind);
    expect(of('broken_reference')).toEqual([
      expect.objectContaining({
        objects: ['attr.orders.store_id'],
        datasets: ['orders', 'stores'],
      }),
    ]);
    expect(of('reference_without_primary_key')).toEqual([
      expect.objectContaining({ objects: ['attr.orders.code'], datasets: ['orders', 'nokey'] }),
    ]);
    expect(of('orphan_label')).toEqual([
      expect.objectContaining({ objects: ['label.orders.ghost'] }),
    ]);
    expect(of('ambiguous_join')).toEqual([
      expect.objectContaining({
        datasets: ['a', 'c'],
        paths: [['attr.a.b_id', 'attr.b.c_id'], ['attr.a.c_id']],
      }),
    ]);
    expect(of('duplicate_title')).toEqual([
      expect.objectContaining({ objects: ['metric.same_title', 'metric.same_title_2'] }),
    ]);
    const csv = await api('GET', `/projects/${q}/pmd/check/model?format=csv`);
    expect(csv.text.split('\r\n')[0]).toBe('kind,message,objects');
  });

  it('pmd/check/obj reports missing and ambiguous dependencies', async () => {
    await load(q, 'tmp', 'id,n\n1,2\n', {
      primarykey: 'id',
      columns: [col('id', 'integer'), col('n', 'integer', 'F', { label: 'Temp N' })],
    });
    await create(
      [
        metric('Uses temp', 'SELECT SUM([Temp N])', { ident: 'metric.uses_temp' }),
        {
          ident: 'folder.temp',
          type: 'folder',
          name: 'Temp folder',
          def: { content: ['fact.tmp.n'] },
        },
      ],
      q,
    );
    // The reload drops column n: what used it now misses it.
    await load(q, 'tmp', 'id\n1\n', { primarykey: 'id', columns: [col('id', 'integer')] });
    const { problems } = await check('obj');
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'missing_dependency',
          objects: ['metric.uses_temp'],
          field: 'def.aql',
          // Stored by identifier when saved: the reference is the dropped column's.
          reference: 'fact.tmp.n',
        }),
        expect.objectContaining({
          kind: 'missing_dependency',
          objects: ['folder.temp'],
          field: 'def.content.0',
          reference: 'fact.tmp.n',
        }),
        expect.objectContaining({
          kind: 'ambiguous_reference',
          objects: ['metric.legacy_dup', 'metric.same_title', 'metric.same_title_2'],
        }),
      ]),
    );
    expect(problems.filter((x) => (x.objects as string[])[0] === 'metric.uses_dup')).toEqual([]);
    // modifyfolder can still tidy a folder holding a dropped column.
    const r = await api('POST', `/projects/${q}/pmd/modifyfolder`, {
      body: { ident: 'folder.temp', op: 'remove', content: ['fact.tmp.n'] },
    });
    expect(r.status, r.text).toBe(200);
  });

  it('checks are for MD Admins', async () => {
    await invite(s, q, PLAIN);
    for (const what of ['model', 'obj'])
      expect((await api('GET', `/projects/${q}/pmd/check/${what}`, { as: PLAIN })).status).toBe(
        403,
      );
  });

  it('with the AQL compiler plugged in: AQL that does not compile is refused and reported', async () => {
    // A stand-in compiler that rejects any AQL mentioning BROKEN.
    s.engine.objects.setCompileCheck(async (_a, aql) =>
      aql.includes('BROKEN') ? 'syntax error at BROKEN' : null,
    );
    try {
      const r = await api('POST', `/projects/${q}/pmd/obj`, {
        body: metric('Broken', 'SELECT BROKEN'),
      });
      expect(r.status).toBe(400);
      expect(r.json.message).toMatch(/def\.aql: syntax error at BROKEN/);
      // An object saved before the compiler knew better is reported by check/obj.
      s.engine.objects.setCompileCheck(null);
      await create(metric('Later broken', 'SELECT COUNT([attr.a.a_id]) -- BROKEN'), q);
      s.engine.objects.setCompileCheck(async (_a, aql) =>
        aql.includes('BROKEN') ? 'syntax error at BROKEN' : null,
      );
      const { problems } = await check('obj');
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            kind: 'does_not_compile',
            objects: ['metric.later_broken'],
            field: 'def.aql',
          }),
        ]),
      );
    } finally {
      s.engine.objects.setCompileCheck((a, aql, kind) => s.engine.aql.checkCompiles(a, aql, kind));
    }
  });
});

describe('what combines with an object', () => {
  it('pmd/obj/{id}/compatible: the attributes a measure breaks down by, and back', async () => {
    const project = await createProject(s, 'combine', 'Combine');
    await loadDataset(s, project, 'sales', 'region,amount\nEU,5\nUS,7\n', '', [
      ['region', 'A', 'string', 'Region'],
      ['amount', 'F', 'integer', 'Amount'],
    ]);
    await loadDataset(s, project, 'weather', 'city,temp\nOslo,3\n', '', [
      ['city', 'A', 'string', 'City'],
      ['temp', 'F', 'integer', 'Temperature'],
    ]);
    const compatible = (id: string) =>
      api('GET', `/projects/${project}/pmd/obj/${id}/compatible`, { as: PLAIN });
    await invite(s, project, PLAIN);
    const amount = await compatible('fact.sales.amount');
    expect(amount.status, amount.text).toBe(200);
    expect(amount.json.object).toEqual({ id: 'fact.sales.amount', title: 'Amount', type: 'fact' });
    expect(amount.json.anchors).toEqual(['sales']);
    // The weather's city cannot break sales down: no path joins the two datasets.
    expect(amount.json.compatible.map((c: { id: string }) => c.id)).toEqual(['attr.sales.region']);
    const city = await compatible('attr.weather.city');
    expect(city.json.compatible.map((c: { id: string }) => c.id)).toEqual(['fact.weather.temp']);
    const csv = await api(
      'GET',
      `/projects/${project}/pmd/obj/fact.sales.amount/compatible?format=csv`,
    );
    expect(csv.text.split('\r\n')[0]).toBe('id,title,type');
    expect((await compatible('fact.nope.none')).status).toBe(404);
  });
});
