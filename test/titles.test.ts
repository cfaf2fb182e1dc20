// AQL names attributes, labels, facts, metrics and filters by title in any case ([Revenue]):
// a second object with a title taken would make every saved definition using it ambiguous.
// It is refused with 409 on every path that creates or renames one: the objects API, loads
// (a clear 409 before the job starts) and the MCP write tools. A guess proposes free labels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpAudience } from '../src/engine/config.js';
import { createProject, loadPeople } from './helpers/fixtures.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

describe('titles are unique in any case', () => {
  let s: TestServer;
  let p: string;
  const obj = (path = '') => `/projects/${p}/pmd/obj${path}`;
  const metric = (name: string, extra: Record<string, unknown> = {}) => ({
    type: 'metric',
    name,
    def: { aql: 'SELECT COUNT([Person])' },
    ...extra,
  });
  const execute = (clusters: Record<string, unknown>) =>
    s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: { type: 'cluster', clusters },
    });
  const col = (id: string, objectType: string, dataType: string, label: string) => ({
    id,
    originalheader: id,
    objectType,
    dataType,
    label,
  });

  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'titles', 'Titles');
    await loadPeople(s, p); // Person, Region, Dept
    const r = await s.api('POST', obj(), { body: metric('Head Count', { ident: 'metric.hc' }) });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(async () => {
    await s.close();
  });

  it('creating an object titled like another (any case, spaces around) → 409, nothing written', async () => {
    for (const [body, taken] of [
      [metric('head count'), 'metric.hc'],
      [metric(' HEAD COUNT '), 'metric.hc'],
      [{ type: 'filter', name: 'region', def: { aql: '[Dept] = "HR"' } }, 'attr.people.region'],
      [metric('Person'), 'attr.people.person_id'],
    ] as const) {
      const r = await s.api('POST', obj(), { body });
      expect(r.status, r.text).toBe(409);
      expect(r.json.context.taken.ident).toBe(taken);
      expect(r.json.message).toMatch(/is taken by/);
    }
    // Two of one batch: neither is written.
    const batch = await s.api('POST', obj(), {
      body: [metric('Pair', { ident: 'metric.pair1' }), metric('PAIR', { ident: 'metric.pair2' })],
    });
    expect(batch.status, batch.text).toBe(409);
    expect(batch.json.context.index).toBe(1);
    expect((await s.api('GET', obj('/metric.pair1'))).status).toBe(404);
    expect((await s.api('GET', obj('?rel=object.metric'))).json.objects).toHaveLength(1);
    // [Head Count] still names one object.
    const q = await s.api('POST', `/projects/${p}/app/aql/explain`, {
      body: { aql: 'SELECT [Head Count]' },
    });
    expect(q.status, q.text).toBe(200);
  });

  it('objects AQL does not name by title may share one', async () => {
    const r = await s.api('POST', obj(), {
      body: {
        type: 'report',
        name: 'Head Count',
        def: { aql: 'SELECT [Head Count]', visualization: { type: 'kpi' } },
      },
    });
    expect(r.status, r.text).toBe(201);
    const q = await s.api('POST', `/projects/${p}/app/aql/explain`, {
      body: { aql: 'SELECT [head count]' },
    });
    expect(q.status, q.text).toBe(200);
  });

  it('a report title is unique among reports, in any case: 409 at name on create and rename', async () => {
    const report = (name: string, ident?: string) => ({
      ...(ident ? { ident } : {}),
      type: 'report',
      name,
      def: { aql: 'SELECT [Region], COUNT([Person])', visualization: { type: 'bar' } },
    });
    const made = await s.api('POST', obj(), { body: report('People by region', 'report.pbr') });
    expect(made.status, made.text).toBe(201);
    const again = await s.api('POST', obj(), { body: report(' people BY region ') });
    expect(again.status, again.text).toBe(409);
    expect(again.json.context).toMatchObject({
      field: 'name',
      taken: { ident: 'report.pbr', type: 'report' },
    });
    expect(again.json.message).toMatch(/taken by report "report\.pbr"/);
    const other = await s.api('POST', obj(), { body: report('Regions', 'report.regions') });
    expect(other.status, other.text).toBe(201);
    const renamed = await s.api('PUT', obj('/report.regions'), {
      body: { ...other.json.objects[0], name: 'PEOPLE by region' },
    });
    expect(renamed.status, renamed.text).toBe(409);
    expect((await s.api('GET', obj('/report.regions'))).json.object.name).toBe('Regions');
  });

  it('renaming to a taken title → 409; changing only its case is fine', async () => {
    const made = await s.api('POST', obj(), { body: metric('Staff', { ident: 'metric.staff' }) });
    expect(made.status, made.text).toBe(201);
    const staff = made.json.objects[0];
    const taken = await s.api('PUT', obj('/metric.staff'), {
      body: { ...staff, name: 'HEAD count' },
    });
    expect(taken.status, taken.text).toBe(409);
    expect((await s.api('GET', obj('/metric.staff'))).json.object.name).toBe('Staff');
    const cased = await s.api('PUT', obj('/metric.staff'), { body: { ...staff, name: 'STAFF' } });
    expect(cased.status, cased.text).toBe(200);
    // A load-created attribute is renamed through the same rule.
    const dept = (await s.api('GET', obj('/attr.people.dept'))).json.object;
    const r = await s.api('PUT', obj('/attr.people.dept'), { body: { ...dept, name: 'staff' } });
    expect(r.status, r.text).toBe(409);
  });

  it('a load whose column would take a title → 409 before any job, naming column and holder', async () => {
    await rawStorage(s.engine).writeFile(
      p,
      '/pay.csv',
      Buffer.from('pay_id,region,amount\n1,EU,3\n'),
    );
    const prescription = (region: string) => ({
      primarykey: 'pay_id',
      columns: [
        col('pay_id', 'A', 'integer', 'Payment'),
        col('region', 'A', 'string', region),
        col('amount', 'F', 'integer', 'Paid'),
      ],
    });
    const jobs = async () =>
      (await s.api('GET', `/projects/${p}/kodiak/scache/obj?type=transform`)).json.paging.total;
    const before = await jobs();
    const r = await execute({
      pay: { source_type: 'webdav', source: '/pay.csv', prescription: prescription('REGION') },
    });
    expect(r.status, r.text).toBe(409);
    expect(r.json.context).toMatchObject({
      cluster: 'pay',
      column: 'region',
      taken: { ident: 'attr.people.region' },
    });
    // Two clusters of one load may not share a title either.
    await rawStorage(s.engine).writeFile(
      p,
      '/pay2.csv',
      Buffer.from('pay_id,region,amount\n1,EU,3\n'),
    );
    const twice = await execute({
      pay: { source_type: 'webdav', source: '/pay.csv', prescription: prescription('Pay Region') },
      pay2: {
        source_type: 'webdav',
        source: '/pay2.csv',
        prescription: prescription('Pay Region'),
      },
    });
    expect(twice.status, twice.text).toBe(409);
    expect(await jobs()).toBe(before);
    expect(await s.engine.datasets.get(p, 'pay')).toBeUndefined();

    const ok = await execute({
      pay: { source_type: 'webdav', source: '/pay.csv', prescription: prescription('Pay Region') },
    });
    expect(ok.status, ok.text).toBe(202);
    const job = await s.engine.jobs.waitFor(ok.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
  });

  it('a guess proposes labels that are free: "<label> (<dataset>)"', async () => {
    const { item } = await rawStorage(s.engine).writeFile(
      p,
      '/staff.csv',
      Buffer.from('staff_id,region,dept\n1,EU,HR\n'),
    );
    const g = await s.api('GET', `/projects/${p}/data/guessupload/${item.fileId}`);
    expect(g.status, g.text).toBe(200);
    expect(g.json.prescription.columns.map((c: { label: string }) => c.label)).toEqual([
      'Staff ID',
      'region (staff)',
      'dept (staff)',
    ]);
    // Loaded as guessed, it loads.
    const r = await execute({ staff: { source_type: 'webdav', source: '/staff.csv' } });
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    expect((await s.engine.model.get(p, 'attr.staff.region'))?.name).toBe('region (staff)');
  });

  it('MCP create_metric and update_object: the same refusal', async () => {
    const token = await s.engine.issueToken('admin@example.com', {
      audience: mcpAudience(s.engine.config),
    });
    const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'titles-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
        const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
        return { isError: r.isError === true, text };
      };
      const dup = await call('create_metric', {
        project: p,
        title: 'HEAD COUNT',
        aql: 'SELECT COUNT([Person])',
      });
      expect(dup.isError, dup.text).toBe(true);
      expect(dup.text).toMatch(/title "HEAD COUNT" is taken by metric "metric.hc"/);
      const rename = await call('update_object', { project: p, id: 'metric.staff', title: 'Dept' });
      expect(rename.isError, rename.text).toBe(true);
      expect(rename.text).toMatch(/is taken by attribute "attr.people.dept"/);
      const fine = await call('create_metric', {
        project: p,
        title: 'Depts',
        aql: 'SELECT COUNT([Dept])',
      });
      expect(fine.isError, fine.text).toBe(false);
    } finally {
      await client.close();
    }
  });
});
