// Counts of rows outside a reader's row-level filter are not shown in jobs or the activity log
// (issue 30, finding 2): Admins and MD Admins see every job of the project, and a load's
// rows, a flow run's rows and a query's row count were counted over rows their filter hides.
// Under a filter they are null, over REST and MCP; an Admin without one still sees them.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadPeople, writePlansFile } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MD_EU = 'counts-md-eu@example.com';
const ADMIN_EU = 'counts-admin-eu@example.com';

let s: TestServer;
let p: string;
let mdEu: Client;
/** The Admin's load of 3 notes, their flow run writing 3 rows, their query of 2 rows. */
let load: string;
let run: string;
let query: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
const job = async (id: string, as: string): Promise<any> => {
  const r = await s.api('GET', `/projects/${p}/kodiak/scache/obj/${id}`, { as });
  expect(r.status, r.text).toBe(200);
  return r.json;
};

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise' });
  p = await createProject(s, 'counts', 'Row filter counts');
  await loadPeople(s, p); // 1 EU, 2 US
  await invite(s, p, MD_EU, { mdadmin: true, filter: '[Region] = "EU"' });
  await invite(s, p, ADMIN_EU, { admin: true, filter: '[Region] = "EU"' });
  await rawStorage(s.engine).writeFile(
    p,
    '/notes.csv',
    Buffer.from('note_id,text\n1,a\n2,b\n3,c\n'),
  );
  const l = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters: { notes: { source_type: 'webdav', source: '/notes.csv' } } },
  });
  expect(l.status, l.text).toBe(202);
  load = l.json.link[0].id;
  expect((await s.engine.jobs.waitFor(load)).status).toBe('OK');
  const flow = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: {
      ident: 'flow.copy',
      type: 'flow',
      name: 'Copy notes',
      def: {
        boxes: [
          { id: 'src', type: 'input.storage', path: '/notes.csv' },
          { id: 'out', type: 'output.dataset', dataset: 'notes2', mode: 'full' },
        ],
        edges: [{ from: 'src', to: 'out' }],
      },
    },
  });
  expect(flow.status, flow.text).toBe(201);
  const f = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'flow', id: 'flow.copy' },
  });
  expect(f.status, f.text).toBe(201);
  run = f.json.link[0].id;
  const done = await s.engine.jobs.waitFor(run);
  expect(done.status, done.message).toBe('OK');
  const q = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    body: { aql: 'SELECT [Region]' },
    headers: { prefer: 'wait=20' },
  });
  expect(q.status, q.text).toBe(200);
  query = (q.json.link as { rel: string; id?: string }[]).find((x) => x.id)!.id!;
  mdEu = await connectMcp(s, MD_EU, 'counts-md-eu');
});
afterAll(async () => {
  await mdEu?.close();
  await s?.close();
});

describe('row counts of jobs and the activity log, under a row-level filter', () => {
  it('a load job: rows and rowsLoaded are null to an Admin or MD Admin with a filter', async () => {
    const all = await job(load, ADMIN);
    expect(all.result.clusters.notes).toMatchObject({ rows: 3, loaded: 3 });
    expect(all.progress).toMatchObject({ rowsLoaded: 3 });
    for (const as of [MD_EU, ADMIN_EU]) {
      const seen = await job(load, as);
      expect(seen.result.clusters.notes).toMatchObject({ rows: null, loaded: null, mode: 'full' });
      expect(seen.progress).toMatchObject({ cluster: 'notes', rowsLoaded: null });
    }
  });

  it('a flow run: rows per box and per output are null, over REST and MCP get_flow_run', async () => {
    const all = await job(run, ADMIN);
    expect(all.result.outputs[0]).toMatchObject({ dataset: 'notes2', rows: 3 });
    expect(all.result.boxes.src.rows).toBe(3);
    const seen = await job(run, MD_EU);
    expect(seen.result.outputs[0]).toMatchObject({ dataset: 'notes2', rows: null });
    expect(seen.result.boxes.src.rows).toBeNull();
    const r = (await mdEu.callTool({
      name: 'get_flow_run',
      arguments: { project: p, jobId: run },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const out = r.structuredContent as {
      boxes: Record<string, { rows?: number | null }>;
      outputs: { rows?: unknown }[];
    };
    expect(out.boxes.src!.rows).toBeNull();
    expect(out.outputs[0]!.rows).toBeNull();
  });

  it("a flow run's end in the activity log: no rows written, in its message or detail", async () => {
    const events = async (as: string) => {
      const r = await s.api('GET', `/projects/${p}/activity?types=flow_run`, { as });
      expect(r.status, r.text).toBe(200);
      return (r.json.activity as { message: string; detail: Record<string, unknown> }[]).find(
        (e) => e.detail.phase === 'end',
      )!;
    };
    const all = await events(ADMIN);
    expect(all.message).toBe('flow flow.copy ended OK: 3 rows written');
    expect((all.detail.outputs as { rows: number }[])[0]!.rows).toBe(3);
    const seen = await events(MD_EU);
    expect(seen.message).toBe('flow flow.copy ended OK');
    expect((seen.detail.outputs as { rows: unknown }[])[0]).toMatchObject({
      dataset: 'notes2',
      rows: null,
    });
  });

  it("another's query job: its row count is null unless computed under the reader's filter", async () => {
    expect((await job(query, ADMIN)).result.rowCount).toBe(2);
    const seen = await job(query, MD_EU);
    expect(seen.result.rowCount).toBeNull();
    // Their own query, under their filter: its count is theirs.
    const own = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      as: MD_EU,
      body: { aql: 'SELECT [Region]' },
      headers: { prefer: 'wait=20' },
    });
    expect(own.status, own.text).toBe(200);
    expect(own.json.data.values).toBe('EU');
    const id = (own.json.link as { id?: string }[]).find((x) => x.id)!.id!;
    expect((await job(id, MD_EU)).result.rowCount).toBe(1);
  });
});

describe("the plan's datasetRows refusal, under a row-level filter", () => {
  let t: TestServer;
  let q: string;
  let plans: ReturnType<typeof writePlansFile>;
  const TOTAL = /would hold \d+ rows/;
  beforeAll(async () => {
    plans = writePlansFile({ datasetRows: 6 });
    t = await startTestServer({ URSA_PLANS_FILE: plans.file, URSA_DEMO_DATA: 'false' });
    q = await createProject(t, 'rowlimit');
    await loadPeople(t, q); // 2 rows
    await invite(t, q, MD_EU, { mdadmin: true, filter: '[Region] = "EU"' });
    await rawStorage(t.engine).writeFile(
      q,
      '/more.csv',
      Buffer.from('id,n\n1,1\n2,2\n3,3\n4,4\n5,5\n'),
    );
  });
  afterAll(async () => {
    await t?.close();
    plans?.remove();
  });
  const jobAs = async (id: string, as: string) => {
    const r = await t.api('GET', `/projects/${q}/kodiak/scache/obj/${id}`, { as });
    expect(r.status, r.text).toBe(200);
    return r.json as { status: string; message: string };
  };

  it("a load's message does not quote the project's total to them, even their own load's", async () => {
    const r = await t.api('POST', `/projects/${q}/kodiak/transform/execute`, {
      as: MD_EU,
      body: { type: 'cluster', clusters: { more: { source_type: 'webdav', source: '/more.csv' } } },
    });
    expect(r.status, r.text).toBe(202);
    const id = r.json.link[0].id as string;
    expect((await t.engine.jobs.waitFor(id)).status).toBe('ERROR');
    expect((await jobAs(id, ADMIN)).message).toBe(
      'plan limit "datasetRows" exceeded: the project would hold 7 rows, 6 allowed; nothing was loaded',
    );
    const seen = await jobAs(id, MD_EU);
    expect(seen.message).toBe(
      'plan limit "datasetRows" exceeded: the project would hold more than the 6 rows allowed; nothing was loaded',
    );
  });

  it("a flow run's failure: neither the job nor its activity event quotes the total", async () => {
    const flow = await t.api('POST', `/projects/${q}/pmd/obj`, {
      body: {
        ident: 'flow.more',
        type: 'flow',
        name: 'More',
        def: {
          boxes: [
            { id: 'src', type: 'input.storage', path: '/more.csv' },
            { id: 'out', type: 'output.dataset', dataset: 'more2', mode: 'full' },
          ],
          edges: [{ from: 'src', to: 'out' }],
        },
      },
    });
    expect(flow.status, flow.text).toBe(201);
    const f = await t.api('POST', `/projects/${q}/kodiak/transform/execute`, {
      body: { type: 'flow', id: 'flow.more' },
    });
    expect(f.status, f.text).toBe(201);
    const id = f.json.link[0].id as string;
    expect((await t.engine.jobs.waitFor(id)).status).toBe('ERROR');
    expect((await jobAs(id, ADMIN)).message).toMatch(/would hold 7 rows, 6 allowed/);
    expect((await jobAs(id, MD_EU)).message).toMatch(/would hold more than the 6 rows allowed/);
    const end = async (as: string) => {
      const r = await t.api('GET', `/projects/${q}/activity?types=flow_run`, { as });
      expect(r.status, r.text).toBe(200);
      return (r.json.activity as { message: string; detail: Record<string, unknown> }[]).find(
        (e) => e.detail.phase === 'end',
      )!;
    };
    expect((await end(ADMIN)).message).toMatch(TOTAL);
    const seen = await end(MD_EU);
    expect(seen.message).toMatch(/would hold more than the 6 rows allowed/);
    expect(JSON.stringify(seen)).not.toMatch(TOTAL);
  });
});
