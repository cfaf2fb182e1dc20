// URSA_ROLE on one PostgreSQL (issue 21): an `api` process answers HTTP and runs the queries it
// is asked, while loads it accepts are queued for a `worker`, which claims and runs them; the
// api process's waits end when the worker finishes (a signal between processes), and a cancel
// sent to the api process stops the job the worker runs. The worker's port answers only
// /healthz. MCP `run_flow` and `ask` sent to the api process run on the worker (the api
// process runs only queries), and the client hears progress while it waits.
// (Two servers in one test process on one database and data directory.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, mcpAudience } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { postgresMissing, type TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';
import { ADMIN, ADMIN_PASSWORD } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

const missing = postgresMissing();
if (missing && process.env.CI) throw new Error(missing);

// Has its own PostgreSQL: run once, in the SQLite pass.
describe.skipIf(!!missing || process.env.URSA_TEST_DATABASE === 'postgres')(
  'an api process and a worker process',
  () => {
    let pg: TestPostgres;
    let llm: FakeLlm;
    let worker: RunningServer;
    let api: RunningServer;
    let token: string;
    let project: string;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-roles-'));

    const start = (role: string) =>
      startServer(
        loadConfig({
          URSA_DATA_DIR: dataDir,
          URSA_DATABASE_URL: `postgres://${pg.user}:${pg.password}@${pg.host}:${pg.port}/${pg.database}`,
          PORT: '0',
          HOST: '127.0.0.1',
          URSA_ADMIN_PASSWORD: ADMIN_PASSWORD,
          URSA_DEMO_DATA: 'false',
          URSA_LOG_LEVEL: 'silent',
          URSA_DEFAULT_PLAN: 'enterprise',
          URSA_ROLE: role,
          URSA_AI_PROVIDER: 'openai',
          URSA_AI_BASE_URL: `${llm.url}/v1`,
          URSA_AI_API_KEY: 'k-test',
          URSA_AI_MODEL: 'gpt-test',
        }),
        createLogger('silent'),
        false,
      );
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await fetch(`${api.url}/api/v1${p}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, json: (text ? JSON.parse(text) : undefined) as Json };
    };
    const load = (source: string) =>
      call('POST', `/projects/${project}/kodiak/transform/execute`, {
        type: 'cluster',
        clusters: {
          rows: {
            source_type: 'webdav',
            source,
            prescription: {
              primarykey: 'id',
              columns: [
                {
                  id: 'id',
                  originalheader: 'id',
                  objectType: 'A',
                  dataType: 'integer',
                  label: 'Id',
                },
                { id: 'v', originalheader: 'v', objectType: 'F', dataType: 'number', label: 'V' },
              ],
            },
          },
        },
      });

    beforeAll(async () => {
      pg = await sharedPostgres();
      llm = await startFakeLlm();
      worker = await start('worker');
      api = await start('api');
      token = await api.engine.issueToken(ADMIN);
      const created = await call('POST', '/projects', {
        id: 'roles',
        label: 'Roles',
        entity: 'default',
      });
      expect(created.status).toBe(201);
      project = created.json.project.id as string;
      const files = path.join(dataDir, 'projects', project, 'files');
      fs.mkdirSync(files, { recursive: true });
      fs.writeFileSync(path.join(files, 'small.csv'), 'id,v\n1,10\n2,20\n');
      let big = 'id,v\n';
      for (let i = 0; i < 2_000_000; i++) big += `${i},${i % 100}\n`;
      fs.writeFileSync(path.join(files, 'big.csv'), big);
    }, 120_000);
    afterAll(async () => {
      await api?.close();
      await worker?.close();
      await pg?.stop();
      await llm?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    it('the worker answers only /healthz', async () => {
      expect((await fetch(`${worker.url}/healthz`)).status).toBe(200);
      const r = await fetch(`${worker.url}/api/v1/projects`);
      expect(r.status).toBe(404);
      expect(((await r.json()) as Json).message).toContain('worker');
    });

    it('a load accepted by the api process runs on the worker; the api process sees it end', async () => {
      const r = await load('/small.csv');
      expect(r.status, JSON.stringify(r.json)).toBe(202);
      const id = r.json.link[0].id as string;
      const actor = await api.engine.actor({ email: ADMIN }, project);
      // Waits in the api process end by the worker's signal.
      const done = await api.engine.jobs.finished(actor, id, 60_000);
      expect(done.status, done.message).toBe('OK');
      // The api process never runs loads: the worker's runner claimed it.
      const row = await worker.engine.jobs.peek(id);
      expect(row?.status).toBe('OK');
      const q = await fetch(`${api.url}/api/v1/projects/${project}/app/aql/execute`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
          prefer: 'wait=30',
        },
        body: JSON.stringify({ aql: 'SELECT SUM([V])' }),
      });
      expect(q.status).toBe(200);
      expect(((await q.json()) as Json).data.values).toBe('30');
    });

    it('a cancel sent to the api process stops the load the worker runs', async () => {
      const r = await load('/big.csv');
      const id = r.json.link[0].id as string;
      const actor = await api.engine.actor({ email: ADMIN }, project);
      await expect
        .poll(async () => (await api.engine.jobs.get(actor, id)).status, { timeout: 30_000 })
        .toBe('RUNNING');
      const c = await call('POST', `/projects/${project}/kodiak/scache/obj/${id}/cancel`);
      expect(c.status).toBeLessThan(300);
      const done = await api.engine.jobs.finished(actor, id, 60_000);
      expect(done.status).toBe('CANCELLED');
    }, 90_000);

    it('MCP run_flow and ask sent to the api process run on the worker, with progress', async () => {
      const flow = await call('POST', `/projects/${project}/pmd/obj`, {
        ident: 'flow.copy',
        type: 'flow',
        name: 'Copy',
        def: {
          boxes: [
            { id: 'src', type: 'input.storage', path: '/small.csv' },
            { id: 'out', type: 'output.dataset', dataset: 'copy', mode: 'full', primarykey: 'id' },
          ],
          edges: [{ from: 'src', to: 'out' }],
        },
      });
      expect(flow.status, JSON.stringify(flow.json)).toBe(201);
      const mcpToken = await api.engine.issueToken(ADMIN, {
        audience: mcpAudience(api.engine.config),
      });
      const client = new Client({ name: 'roles-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
        }),
      );
      try {
        const progress: Progress[] = [];
        const run = (await client.callTool(
          { name: 'run_flow', arguments: { project, flow: 'flow.copy' } },
          undefined,
          { onprogress: (p) => progress.push(p) },
        )) as CallToolResult;
        expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
        const ran = run.structuredContent as { status: string; jobId: string; outputs: unknown };
        expect(ran.status, JSON.stringify(ran)).toBe('OK');
        expect(ran.outputs).toEqual([
          { box: 'out', type: 'output.dataset', dataset: 'copy', mode: 'full', rows: 2 },
        ]);
        // The api process runs no flows: the worker claimed it.
        expect((await worker.engine.jobs.peek(ran.jobId))?.status).toBe('OK');

        // The AI answer is a job too: the worker asks the model and runs its query.
        llm.script(
          {
            toolCalls: [{ id: 'c1', name: 'run_aql', arguments: { aql: 'SELECT SUM([V])' } }],
            delayMs: 1500,
          },
          { text: 'The total is 30.' },
        );
        progress.length = 0;
        const asked = (await client.callTool(
          { name: 'ask', arguments: { project, question: 'What is the total?' } },
          undefined,
          { onprogress: (p) => progress.push(p) },
        )) as CallToolResult;
        expect(asked.isError, JSON.stringify(asked.content)).toBeFalsy();
        expect(asked.structuredContent).toMatchObject({
          status: 'OK',
          answer: 'The total is 30.',
          queries: [{ aql: 'SELECT SUM([V])', rows: [[30]] }],
        });
        // Progress reached the client through the api process while the worker answered.
        expect(progress.length).toBeGreaterThanOrEqual(1);
        const job = (asked.structuredContent as { job: string }).job;
        expect((await worker.engine.jobs.peek(job))?.status).toBe('OK');
      } finally {
        await client.close();
      }
    }, 90_000);
  },
);
