// Controlling flow runs: one run per flow (403 while it runs), transform/stop → CANCELLED with
// nothing written, a killed server ends the run ERROR at restart with outputs untouched, the
// plan's flow limit (402). A loopback API that holds its answer keeps a run running.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLine, runCli, startCli, type StartedCli } from './helpers/cli.js';
import { waitFor, writePlansFile } from './helpers/fixtures.js';
import { GatedApi } from './helpers/gated-api.js';
import { rawStorage } from './helpers/storage.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

/** Polls an async check until it holds (20 s at most). */
async function until(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const api = new GatedApi();
let s: TestServer;
let p: string;

const slowFlow = (url: string) => ({
  boxes: [
    { id: 'api', type: 'input.http', url: `${url}/slow` },
    { id: 'out', type: 'output.dataset', dataset: 'stock', mode: 'full' },
    { id: 'api2', type: 'input.http', url: `${url}/fast` },
    { id: 'file', type: 'output.storage', path: '/out/stock.csv', format: 'csv' },
  ],
  edges: [
    { from: 'api', to: 'out' },
    { from: 'api2', to: 'file' },
  ],
});

beforeAll(async () => {
  await api.start();
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team', URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1' });
  p = s.demo;
  await rawStorage(s.engine).writeFile(p, '/stock.csv', Buffer.from('sku,qty\nold,1\n'));
  const load = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters: { stock: { source_type: 'webdav', source: '/stock.csv' } } },
  });
  expect(load.status, load.text).toBe(202);
  expect((await s.engine.jobs.waitFor(load.json.link[0].id)).status).toBe('OK');
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: { ident: 'flow.slow', type: 'flow', name: 'Slow', def: slowFlow(api.url) },
  });
  expect(r.status, r.text).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await api.stop();
});

const start = () =>
  s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'flow', id: 'flow.slow' },
  });

async function stockRows(server = s): Promise<string> {
  const r = await server.api('POST', `/projects/${p}/app/aql/execute`, {
    body: { aql: 'SELECT [sku], SUM([qty])' },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.data.values;
}

describe('one run per flow', () => {
  it('answers 403 "already running" while a run is under way, and stop cancels it with nothing written', async () => {
    const first = await start();
    expect(first.status, first.text).toBe(201);
    const jobId = first.json.link[0].id as string;
    expect(first.json.link[0].rel).toBe('scache');

    await waitFor(() => (api.requests > 0 ? true : undefined), 10_000);
    const second = await start();
    expect(second.status).toBe(403);
    expect(second.json.message).toBe('flow flow.slow is already running');
    const list = await s.api('GET', `/projects/${p}/inflow/flowlist`);
    expect(list.json.flows[0]).toMatchObject({ id: 'flow.slow', running: true });
    const stop = await s.api('POST', `/projects/${p}/kodiak/transform/stop`, {
      body: { id: 'flow.slow' },
    });
    expect(stop.status, stop.text).toBe(200);
    const job = await s.engine.jobs.waitFor(jobId, 10_000);
    expect(job.status).toBe('CANCELLED');
    expect(await stockRows()).toBe('old\t1');
    expect(await rawStorage(s.engine).stat(p, '/out/stock.csv')).toBeNull();
    // The flow can run again, and this time it commits both outputs.
    const again = await start();
    expect(again.status, again.text).toBe(201);
    await waitFor(() => (api.requests > 1 ? true : undefined), 10_000);
    api.release();
    const ok = await s.engine.jobs.waitFor(again.json.link[0].id, 20_000);
    expect(ok.status, ok.message).toBe('OK');
    expect(await stockRows()).toBe('new\t100');
    expect(await rawStorage(s.engine).stat(p, '/out/stock.csv')).not.toBeNull();
    const runs = await s.api('GET', `/projects/${p}/kodiak/scache/obj?type=flow`);
    expect(runs.json.jobs.map((j: { status: string }) => j.status)).toEqual(['OK', 'CANCELLED']);
  });
});

describe('loads waiting behind a run', () => {
  it('guess labels that avoid the titles of loads still queued', async () => {
    // One job at a time: the held flow run keeps both loads queued.
    const t = await startTestServer({
      URSA_DEFAULT_PLAN: 'team',
      URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
      URSA_JOB_CONCURRENCY: '1',
    });
    try {
      const store = rawStorage(t.engine);
      await store.writeFile(t.demo, '/one.csv', Buffer.from('code,amount\na,1\n'));
      await store.writeFile(t.demo, '/two.csv', Buffer.from('code,amount\nb,2\n'));
      const flow = await t.api('POST', `/projects/${t.demo}/pmd/obj`, {
        body: { ident: 'flow.slow', type: 'flow', name: 'Slow', def: slowFlow(api.url) },
      });
      expect(flow.status, flow.text).toBe(201);
      const before = api.requests;
      const run = await t.api('POST', `/projects/${t.demo}/kodiak/transform/execute`, {
        body: { type: 'flow', id: 'flow.slow' },
      });
      expect(run.status).toBe(201);
      await waitFor(() => (api.requests > before ? true : undefined), 10_000);
      const load = (cluster: string, source: string) =>
        t.api('POST', `/projects/${t.demo}/kodiak/transform/execute`, {
          body: { type: 'cluster', clusters: { [cluster]: { source_type: 'webdav', source } } },
        });
      const one = await load('one', '/one.csv');
      const two = await load('two', '/two.csv');
      expect(one.status, one.text).toBe(202);
      expect(two.status, two.text).toBe(202);
      api.release();
      for (const r of [run, one, two]) {
        const job = await t.engine.jobs.waitFor(r.json.link[0].id, 30_000);
        expect(job.status, job.message).toBe('OK');
      }
      const titles = async (id: string) =>
        (await t.api('GET', `/projects/${t.demo}/pmd/obj/${id}`)).json.object.name;
      expect(await titles('attr.one.code')).toBe('code');
      expect(await titles('attr.two.code')).toBe('code (two)');
    } finally {
      await t.close();
    }
  });
});

describe('plan limit', () => {
  it('refuses a flow beyond the plan with 402 and creates nothing; outputs that would not fit the storage are refused before any is written', async () => {
    const plans = writePlansFile({ flows: 1, storageBytes: 4000 });
    const t = await startTestServer({ URSA_PLANS_FILE: plans.file });
    try {
      const flow = (ident: string) => ({
        ident,
        type: 'flow',
        name: ident,
        def: {
          boxes: [
            { id: 'a', type: 'input.storage', path: '/a.csv' },
            { id: 'b', type: 'output.storage', path: '/b.csv', format: 'csv' },
            { id: 'c', type: 'output.storage', path: '/c.csv', format: 'csv' },
          ],
          edges: [
            { from: 'a', to: 'b' },
            { from: 'a', to: 'c' },
          ],
        },
      });
      expect(
        (await t.api('POST', `/projects/${t.demo}/pmd/obj`, { body: flow('f1') })).status,
      ).toBe(201);
      const over = await t.api('POST', `/projects/${t.demo}/pmd/obj`, { body: flow('f2') });
      expect(over.status, over.text).toBe(402);
      expect(over.json.message).toContain('plan limit "flows"');
      expect((await t.api('GET', `/projects/${t.demo}/pmd/obj/f2`)).status).toBe(404);
      const adherence = await t.api('GET', `/projects/${t.demo}/limitadherence`);
      expect(adherence.json.flows).toEqual({ limit: 1, value: 1 });
      // 1.5 KB in, two copies of it out: 3 KB more where 2.5 KB are free.
      const csv = `n,text\n${Array.from({ length: 100 }, (_, i) => `${i},row ${String(i).padStart(6, '0')}`).join('\n')}\n`;
      await rawStorage(t.engine).writeFile(t.demo, '/a.csv', Buffer.from(csv));
      const r = await t.api('POST', `/projects/${t.demo}/kodiak/transform/execute`, {
        body: { type: 'flow', id: 'f1' },
      });
      expect(r.status, r.text).toBe(201);
      const job = await t.engine.jobs.waitFor(r.json.link[0].id);
      expect(job.status).toBe('ERROR');
      expect(job.message).toMatch(/^box "b" \(path\): plan limit "storageBytes" exceeded/);
      expect(await rawStorage(t.engine).stat(t.demo, '/b.csv')).toBeNull();
      expect(await rawStorage(t.engine).stat(t.demo, '/c.csv')).toBeNull();
    } finally {
      await t.close();
      plans.remove();
    }
  });
});

describe('a restart', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-flow-crash-'));
  const servers: StartedCli[] = [];
  afterAll(async () => {
    for (const c of servers) await c.stop('SIGKILL').catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function boot() {
    const cli = await startCli({
      URSA_DATA_DIR: dir,
      PORT: '0',
      URSA_DEFAULT_PLAN: 'team',
      URSA_DEMO_DATA: 'false',
      URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    });
    servers.push(cli);
    const t = await runCli(['token', ADMIN], { URSA_DATA_DIR: dir, PORT: String(cli.port) });
    expect(t.code, t.stderr).toBe(0);
    const token = lastLine(t.stdout);
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${cli.url}/api/v1${url}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { 'content-type': 'application/json', prefer: 'wait=20' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON
      return { status: res.status, json: (text ? JSON.parse(text) : undefined) as any };
    };
    return { cli, call };
  }

  it('ends an interrupted run ERROR, leaves outputs as they were, and the flow runs again', async () => {
    const a = await boot();
    const projects = await a.call('GET', '/projects');
    expect(projects.status, JSON.stringify(projects.json)).toBe(200);
    const project = Object.keys(projects.json.projects)[0]!;
    const put = await fetch(`${a.cli.url}/api/v1/projects/${project}/webdav/stock.csv`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${lastLine((await runCli(['token', ADMIN], { URSA_DATA_DIR: dir, PORT: String(a.cli.port) })).stdout)}`,
      },
      body: 'sku,qty\nold,1\n',
    });
    expect(put.status).toBe(201);
    const load = await a.call('POST', `/projects/${project}/kodiak/transform/execute`, {
      type: 'cluster',
      clusters: { stock: { source_type: 'webdav', source: '/stock.csv' } },
    });
    expect(load.status).toBe(202);
    await until(async () => {
      const j = await a.call(
        'GET',
        `/projects/${project}/kodiak/scache/obj/${load.json.link[0].id}`,
      );
      return j.json.status === 'OK';
    });
    const created = await a.call('POST', `/projects/${project}/pmd/obj`, {
      ident: 'flow.slow',
      type: 'flow',
      name: 'Slow',
      def: slowFlow(api.url),
    });
    expect(created.status).toBe(201);
    const before = api.requests;
    const run = await a.call('POST', `/projects/${project}/kodiak/transform/execute`, {
      type: 'flow',
      id: 'flow.slow',
    });
    expect(run.status).toBe(201);
    await waitFor(() => (api.requests > before ? true : undefined), 10_000);
    const pid = (
      JSON.parse(fs.readFileSync(path.join(dir, 'server.json'), 'utf8')) as { pid: number }
    ).pid;
    await a.cli.stop('SIGKILL');
    servers.splice(servers.indexOf(a.cli), 1);
    await waitFor(() => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    }, 15_000);
    api.release();

    const b = await boot();
    const job = await b.call(
      'GET',
      `/projects/${project}/kodiak/scache/obj/${run.json.link[0].id}`,
    );
    expect(job.json.status).toBe('ERROR');
    expect(job.json.message).toContain('interrupted');
    const rows = await b.call('POST', `/projects/${project}/app/aql/execute`, {
      aql: 'SELECT [sku], SUM([qty])',
    });
    expect(rows.json.data.values).toBe('old\t1');
    expect(fs.existsSync(path.join(dir, 'projects', project, 'files', 'out'))).toBe(false);
    expect(
      fs.existsSync(path.join(dir, 'projects', project, 'flow-runs', run.json.link[0].id)),
    ).toBe(false);
    const list = await b.call('GET', `/projects/${project}/inflow/flowlist`);
    expect(list.json.flows[0]).toMatchObject({ running: false, lastRun: { status: 'ERROR' } });
    // Unlocked: the flow starts again.
    const again = await b.call('POST', `/projects/${project}/kodiak/transform/execute`, {
      type: 'flow',
      id: 'flow.slow',
    });
    expect(again.status).toBe(201);
    await waitFor(() => (api.requests > before + 1 ? true : undefined), 10_000);
    api.release();
    await until(async () => {
      const j = await b.call(
        'GET',
        `/projects/${project}/kodiak/scache/obj/${again.json.link[0].id}`,
      );
      return j.json.status === 'OK';
    });
  }, 120_000);
});
