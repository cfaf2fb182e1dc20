// The cluster shape with real parts (issue 21): PostgreSQL from the system, three Ursa
// processes started as `npm start` does, on one data directory, HAProxy in front
// (scripts/cluster-lib.ts). Requests go through HAProxy, or straight to one process where the
// test needs to know which one answers; processes are killed with SIGKILL.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterMissing, startCluster, type Cluster } from '../scripts/cluster-lib.js';
import { oauthClient } from './helpers/oauth.js';
import { postgresMissing } from '../scripts/throwaway-postgres.js';
import { rawRequest, setCookieValue } from './helpers/http.js';
import { ADMIN_PASSWORD } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

const missing = clusterMissing() ?? postgresMissing();
if (missing && process.env.CI) throw new Error(`the cluster test needs: ${missing}`);

const LEASE_SECONDS = 3;
const ROWS = 3_000_000;

// Always on PostgreSQL: the SQLite pass runs it, the PostgreSQL pass (npm run test:pg) need not.
describe.skipIf(!!missing || process.env.URSA_TEST_DATABASE === 'postgres')(
  'three Ursa processes on PostgreSQL behind HAProxy',
  () => {
    let c: Cluster;
    let token: string;
    let db: pg.Client;
    let project = 'cluster';

    const call = async (
      base: string,
      method: string,
      p: string,
      body?: unknown,
      bearer = token,
    ) => {
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
      };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}/api/v1${p}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: (text ? JSON.parse(text) : undefined) as Json, res };
    };
    const at = (i: number) => c.processes[i]!.url;
    const job = (base: string, id: string) =>
      call(base, 'GET', `/projects/${project}/kodiak/scache/obj/${id}`);
    async function poll(base: string, id: string, until: (j: Json) => boolean, ms = 60_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const r = await job(base, id);
        if (r.status === 200 && until(r.json)) return r.json as Json;
        if (Date.now() > deadline) throw new Error(`job ${id}: ${JSON.stringify(r.json)}`);
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    /** An AQL query through HAProxy, answered inline (`Prefer: wait`). */
    async function ask(aql: string, wait = 20) {
      const r = await fetch(`${c.url}/api/v1/projects/${project}/app/aql/execute`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json',
          prefer: `wait=${wait}`,
        },
        body: JSON.stringify({ aql }),
      });
      return { status: r.status, json: (await r.json()) as Json };
    }
    /** A PostgreSQL client of the SQL API on `port`, as the admin, in the test's project. */
    async function sqlClient(port: number) {
      const client = new pg.Client({
        host: '127.0.0.1',
        port,
        user: c.adminEmail,
        password: token,
        database: project,
      });
      client.on('error', () => undefined);
      await client.connect();
      return client;
    }
    /** A cancel request (its own connection, as PostgreSQL's protocol sends it). */
    function cancelRequest(port: number, pid: number, secret: number): Promise<void> {
      return new Promise((resolve, reject) => {
        const b = Buffer.alloc(16);
        b.writeInt32BE(16, 0);
        b.writeInt32BE(80877102, 4);
        b.writeInt32BE(pid, 8);
        b.writeInt32BE(secret, 12);
        const sock = net.connect(port, '127.0.0.1', () => sock.end(b));
        sock.on('error', reject);
        sock.on('close', () => resolve());
      });
    }
    const final = (j: Json) => ['OK', 'ERROR', 'CANCELLED'].includes(j.status);
    /** Which process (index) holds a job now, from its claim in the metadata. */
    async function owner(id: string): Promise<number> {
      const r = await db.query<{ owner: string | null }>('SELECT owner FROM jobs WHERE id = $1', [
        id,
      ]);
      const pid = Number(r.rows[0]?.owner?.split(':')[1]);
      return c.processes.findIndex((p) => p.child.pid === pid);
    }
    function load(base: string, source: string) {
      return call(base, 'POST', `/projects/${project}/kodiak/transform/execute`, {
        type: 'cluster',
        clusters: {
          sales: {
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
                {
                  id: 'name',
                  originalheader: 'name',
                  objectType: 'A',
                  dataType: 'string',
                  label: 'Name',
                },
                {
                  id: 'amount',
                  originalheader: 'amount',
                  objectType: 'F',
                  dataType: 'number',
                  label: 'Amount',
                },
              ],
            },
          },
        },
      });
    }

    beforeAll(async () => {
      c = await startCluster({
        env: {
          URSA_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
          URSA_ADMIN_PASSWORD: ADMIN_PASSWORD,
          URSA_DEMO_DATA: 'false',
          URSA_DEFAULT_PLAN: 'enterprise',
        },
      });
      c.adminPassword = ADMIN_PASSWORD;
      token = await c.token(c.adminEmail);
      db = new pg.Client({ connectionString: c.databaseUrl });
      // PostgreSQL is restarted by a test below: this session ends then, which is expected.
      db.on('error', () => undefined);
      await db.connect();
      const created = await call(c.url, 'POST', '/projects', {
        id: project,
        label: 'Cluster',
        entity: 'default',
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      project = created.json.project.id as string;
      const files = path.join(c.dataDir, 'projects', project, 'files');
      fs.mkdirSync(files, { recursive: true });
      fs.writeFileSync(path.join(files, 'small.csv'), 'id,name,amount\n1,one,1.5\n2,two,2.5\n');
      const big = fs.createWriteStream(path.join(files, 'big.csv'));
      big.write('id,name,amount\n');
      for (let i = 0; i < ROWS; i += 100_000) {
        let chunk = '';
        for (let j = i; j < i + 100_000; j++) chunk += `${j},name-${j % 977},${(j % 1000) / 10}\n`;
        if (!big.write(chunk)) await new Promise<void>((r) => big.once('drain', () => r()));
      }
      await new Promise<void>((r) => big.end(() => r()));
      const first = await load(c.url, '/small.csv');
      expect(first.status, JSON.stringify(first.json)).toBe(202);
      expect((await poll(c.url, first.json.link[0].id, final)).status).toBe('OK');
    }, 240_000);

    afterAll(async () => {
      await db?.end().catch(() => undefined);
      await c?.stop();
    }, 60_000);

    it('bootstrapped once: one demo project, every process ready', async () => {
      const r = await call(c.url, 'GET', '/projects');
      const demos = Object.values(r.json.projects as Record<string, Json>).filter(
        (p) => p.label === 'Demo',
      );
      expect(demos).toHaveLength(1);
      for (let i = 0; i < 3; i++) expect((await fetch(`${at(i)}/readyz`)).status).toBe(200);
    });

    it('answers queries through HAProxy; a result one process computed is a cache hit on another', async () => {
      const aql = { aql: 'SELECT SUM([amount]), COUNT([sales])' };
      const a = await call(at(0), 'POST', `/projects/${project}/app/aql/execute`, aql);
      expect(a.status).toBeLessThan(300);
      const aJob = await poll(at(0), a.json.link[0].id, final);
      expect(aJob).toMatchObject({ status: 'OK', result: { cached: false } });
      const b = await call(at(1), 'POST', `/projects/${project}/app/aql/execute`, aql);
      expect(b.json.link[0].id).not.toBe(aJob.id);
      expect(await poll(at(1), b.json.link[0].id, final)).toMatchObject({
        status: 'OK',
        result: { cached: true },
      });
      for (let i = 0; i < 6; i++) {
        const r = await ask(`SELECT COUNT([sales]) + ${i}`, 20);
        expect(r.status).toBe(200);
        expect(r.json.data.values).toBe(String(2 + i));
      }
    });

    it('a token revoked through one process is refused by the next request to another', async () => {
      const oc = oauthClient(() => c.url);
      const { clientId, tokens } = await oc.obtainTokens({
        resource: `${c.url}/api/v1`,
        scope: 'api',
      });
      for (let i = 0; i < 3; i++)
        expect((await call(at(i), 'GET', '/projects', undefined, tokens.access_token)).status).toBe(
          200,
        );
      const revocation = (await oc.metadata()).revocation_endpoint.replace(c.url, at(0));
      const r = await fetch(revocation, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }).toString(),
      });
      expect(r.status).toBe(200);
      for (const i of [1, 2])
        expect((await call(at(i), 'GET', '/projects', undefined, tokens.access_token)).status).toBe(
          401,
        );
    });

    it('ten wrong WebDAV passwords spread over three processes are throttled like ten on one', async () => {
      const propfind = (i: number, secret: string) =>
        fetch(`${at(i)}/api/v1/projects/${project}/webdav/`, {
          method: 'PROPFIND',
          headers: {
            depth: '0',
            authorization: `Basic ${Buffer.from(`${c.adminEmail}:${secret}`).toString('base64')}`,
          },
        });
      const set = await call(c.url, 'PUT', `/projects/${project}`, {
        webdavToken: 'cluster-webdav-token-1',
      });
      expect(set.status).toBe(200);
      expect((await propfind(0, 'cluster-webdav-token-1')).status).toBe(207);
      const statuses: number[] = [];
      for (let k = 0; k < 12; k++) statuses.push((await propfind(k % 3, `wrong-${k}`)).status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      expect(statuses.slice(10)).toEqual([429, 429]);
    });

    it('an MCP session opened through one process is served by the others (no affinity)', async () => {
      const mcpToken = await c.token(c.adminEmail, { mcp: true });
      const client = new Client({ name: 'cluster-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } },
      });
      await client.connect(transport);
      expect(transport.sessionId).toBeTruthy();
      // Round robin: these calls reach every process, two of which did not open the session.
      for (let i = 0; i < 4; i++) {
        const r = (await client.callTool({
          name: 'run_aql',
          arguments: { project, aql: `SELECT COUNT([sales]) * ${i + 1}` },
        })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        expect((r.structuredContent as Json).rows).toEqual([[2 * (i + 1)]]);
      }
      const sid = transport.sessionId!;
      // Ended through whichever process gets the DELETE: unknown to every process after it.
      await transport.terminateSession();
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`${at(i)}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${mcpToken}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sid,
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        await r.arrayBuffer();
        expect(r.status).toBe(404);
      }
      await client.close();
    });

    it('a web sign-in through one process works through the others', async () => {
      const r = await rawRequest(`${at(0)}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          email: c.adminEmail,
          password: ADMIN_PASSWORD,
          next: '/app',
        }).toString(),
      });
      expect(r.status).toBe(303);
      const cookie = setCookieValue(r.headers, 'ursa_session')!.value;
      for (const i of [1, 2]) {
        const list = await rawRequest(`${at(i)}/api/v1/projects`, {
          headers: { accept: 'application/json', cookie: `ursa_session=${cookie}` },
        });
        expect(list.status).toBe(200);
        expect(Object.keys(JSON.parse(list.text).projects)).toContain(project);
      }
    });

    it('a WebDAV lock taken through one process holds on the others', async () => {
      const dav = (
        i: number,
        method: string,
        p: string,
        headers: Record<string, string> = {},
        body?: string,
      ) =>
        fetch(`${at(i)}/api/v1/projects/${project}/webdav${p}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...headers },
          body,
        });
      const lock = await dav(
        0,
        'LOCK',
        '/locked.txt',
        { 'content-type': 'application/xml', timeout: 'Second-600' },
        '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>',
      );
      expect(lock.status).toBe(201);
      const lockToken = lock.headers.get('lock-token')!;
      expect(lockToken).toMatch(/^<urn:uuid:/);
      expect((await dav(1, 'PUT', '/locked.txt', {}, 'no token')).status).toBe(423);
      expect(
        (
          await dav(
            2,
            'LOCK',
            '/locked.txt',
            { 'content-type': 'application/xml' },
            '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>',
          )
        ).status,
      ).toBe(423);
      expect(
        (await dav(2, 'PUT', '/locked.txt', { if: `(${lockToken})` }, 'with token')).status,
      ).toBe(204);
      expect((await dav(1, 'UNLOCK', '/locked.txt', { 'lock-token': lockToken })).status).toBe(204);
      expect((await dav(0, 'PUT', '/locked.txt', {}, 'free again')).status).toBe(204);
    });

    it('resumable upload chunks sent to different processes assemble once', async () => {
      const data = Buffer.from(
        'id,name,amount\n' +
          Array.from({ length: 900 }, (_, i) => `${i},n${i},${i}`).join('\n') +
          '\n',
      );
      const chunkSize = 1024;
      const total = Math.max(1, Math.floor(data.length / chunkSize));
      const answers: { status: number; text: string }[] = [];
      await Promise.all(
        Array.from({ length: total }, async (_, k) => {
          const n = k + 1;
          const chunk =
            n === total
              ? data.subarray(k * chunkSize)
              : data.subarray(k * chunkSize, n * chunkSize);
          const q = new URLSearchParams({
            resumableChunkNumber: String(n),
            resumableChunkSize: String(chunkSize),
            resumableCurrentChunkSize: String(chunk.length),
            resumableTotalSize: String(data.length),
            resumableType: 'text/csv',
            resumableIdentifier: 'cluster-upload-1',
            resumableFilename: 'spread.csv',
            resumableRelativePath: 'spread.csv',
            resumableTotalChunks: String(total),
          });
          const r = await fetch(`${at(k % 3)}/api/v1/projects/${project}/storage/upload?${q}`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/octet-stream',
              accept: 'application/json',
            },
            body: chunk,
          });
          answers.push({ status: r.status, text: await r.text() });
        }),
      );
      expect(total).toBeGreaterThan(2);
      expect(answers.filter((a) => a.status >= 300)).toEqual([]);
      const file = path.join(c.dataDir, 'projects', project, 'files', 'spread.csv');
      await expect.poll(() => fs.existsSync(file) && fs.readFileSync(file).equals(data)).toBe(true);
    });

    it('a load whose process is killed ends ERROR "interrupted", nothing written; it runs again cleanly', async () => {
      const before = await call(c.url, 'GET', `/projects/${project}/kodiak/dataload`);
      const dataVersion = before.json.dataload.dataVersion as number;
      const started = await load(at(2), '/big.csv');
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      const id = started.json.link[0].id as string;
      await poll(at(0), id, (j) => j.status === 'RUNNING');
      expect(await owner(id)).toBe(2);
      c.processes[2]!.kill9();
      // Another process sees the lease run out and ends the job.
      const ended = await poll(at(0), id, final, 30_000);
      expect(ended.status).toBe('ERROR');
      expect(ended.message).toMatch(/interrupted/);
      const after = await call(at(1), 'GET', `/projects/${project}/kodiak/dataload`);
      expect(after.json.dataload.dataVersion).toBe(dataVersion);
      const sum = await call(at(1), 'POST', `/projects/${project}/app/aql/execute`, {
        aql: 'SELECT COUNT([sales])',
      });
      expect((await poll(at(1), sum.json.link[0].id, final)).status).toBe('OK');
      // The killed process's write lock went with it: the same load runs again at once.
      const again = await load(at(0), '/big.csv');
      const done = await poll(at(1), again.json.link[0].id, final, 120_000);
      expect(done.status, done.message).toBe('OK');
      const count = await ask('SELECT COUNT([sales])', 30);
      expect(count.json.data.values).toBe(String(ROWS));
      await c.processes[2]!.restart();
    }, 240_000);

    it('a cancel sent to one process stops the job another one runs', async () => {
      const started = await load(at(0), '/big.csv');
      const id = started.json.link[0].id as string;
      await poll(at(1), id, (j) => j.status === 'RUNNING');
      expect(await owner(id)).toBe(0);
      const r = await call(at(1), 'POST', `/projects/${project}/kodiak/scache/obj/${id}/cancel`);
      expect(r.status, JSON.stringify(r.json)).toBeLessThan(300);
      expect((await poll(at(2), id, final, 30_000)).status).toBe('CANCELLED');
    }, 120_000);

    it('the SQL API through HAProxy (TCP mode) answers as REST does', async () => {
      const sql = await sqlClient(c.sqlPort);
      try {
        const r = await sql.query('SELECT count(*) AS n, sum("Amount") AS amount FROM sales');
        const rest = await ask('SELECT COUNT([sales]), SUM([amount])', 30);
        const [n, amount] = (rest.json.data.values as string).split('\t').map(Number);
        expect(Number(r.rows[0].n)).toBe(n);
        expect(r.rows[0].amount).toBeCloseTo(amount!, 6);
      } finally {
        await sql.end();
      }
    });

    it('a SQL cancel request that reaches another process stops the statement', async () => {
      // The session on process 0; its cancel request sent to process 1, as a balancer may.
      const sql = await sqlClient(c.processes[0]!.sqlPort);
      try {
        const before = await db.query<{ id: string }>(
          "SELECT id FROM jobs WHERE type = 'report' AND status = 'RUNNING'",
        );
        const seen = new Set(before.rows.map((r) => r.id));
        // Three million groups: seconds of work (a new constant: never a cached result).
        const slow = sql.query(
          `SELECT "Id", sum("Amount") + ${Date.now()} AS s FROM sales GROUP BY 1`,
        );
        slow.catch(() => undefined);
        await expect
          .poll(
            async () =>
              (
                await db.query<{ id: string }>(
                  "SELECT id FROM jobs WHERE type = 'report' AND status = 'RUNNING'",
                )
              ).rows.some((r) => !seen.has(r.id)),
            { timeout: 30_000, interval: 50 },
          )
          .toBe(true);
        const key = sql as unknown as { processID: number; secretKey: number };
        await cancelRequest(c.processes[1]!.sqlPort, key.processID, key.secretKey);
        await expect(slow).rejects.toMatchObject({ code: '57014' });
        // The connection goes on.
        expect((await sql.query('SELECT 1 AS one')).rows).toEqual([{ one: '1' }]);
      } finally {
        await sql.end();
      }
    }, 60_000);

    it('with a process killed, queries through HAProxy are still answered', async () => {
      const killed = c.processes[1]!;
      killed.kill9();
      // A request its process took as it died is not sent again (a POST may have done its
      // work: 502); once it is gone, every request finds another.
      if (killed.child.exitCode === null && killed.child.signalCode === null)
        await new Promise((r) => killed.child.once('exit', r));
      for (let i = 0; i < 9; i++) {
        const r = await ask(`SELECT COUNT([sales]) - ${i}`, 20);
        expect(r.status).toBe(200);
      }
      await c.processes[1]!.restart();
    }, 120_000);

    it('PostgreSQL restarted under load: every process stays up, answers 503 meanwhile, and works after', async () => {
      const pids = c.processes.map((p) => p.child.pid);
      const before = await call(c.url, 'GET', `/projects/${project}/kodiak/dataload`);
      const dataVersion = before.json.dataload.dataVersion as number;
      const started = await load(c.url, '/big.csv');
      expect(started.status, JSON.stringify(started.json)).toBe(202);
      const id = started.json.link[0].id as string;
      await poll(c.url, id, (j) => j.status === 'RUNNING');
      // Requests to every process the whole time, as users would send them.
      const statuses: number[] = [];
      let stopped = false;
      const traffic = (async () => {
        for (let k = 0; !stopped; k++) {
          const r = await call(at(k % 3), 'GET', '/projects').catch(() => null);
          if (r) statuses.push(r.status);
          await new Promise((res) => setTimeout(res, 20));
        }
      })();
      // A fast shutdown ends every session (57P01), the load's lock connection among them.
      c.pg.halt('fast');
      for (let i = 0; i < 3; i++) {
        const r = await call(at(i), 'GET', '/projects');
        expect(r.status).toBe(503);
        expect(r.res.headers.get('retry-after')).toBe('5');
        expect(Object.keys(r.json).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
      }
      c.pg.resume();
      for (let i = 0; i < 3; i++)
        await expect
          .poll(async () => (await fetch(`${at(i)}/readyz`)).status, {
            timeout: 30_000,
            interval: 200,
          })
          .toBe(200);
      stopped = true;
      await traffic;
      // The same processes, none restarted: a lost connection is not a crash.
      expect(c.processes.map((p) => p.child.pid)).toEqual(pids);
      for (const p of c.processes) expect(p.child.exitCode, p.log().slice(-3000)).toBeNull();
      expect(statuses.filter((st) => st !== 200 && st !== 503)).toEqual([]);
      expect(statuses).toContain(503);
      // The load lost its lock with the database: it ends ERROR, nothing published.
      const ended = await poll(c.url, id, final, 60_000);
      expect(ended.status).toBe('ERROR');
      const after = await call(c.url, 'GET', `/projects/${project}/kodiak/dataload`);
      expect(after.json.dataload.dataVersion).toBe(dataVersion);
      const again = await load(c.url, '/small.csv');
      expect(again.status, JSON.stringify(again.json)).toBe(202);
      const done = await poll(c.url, again.json.link[0].id, final, 60_000);
      expect(done.status, done.message).toBe('OK');
      expect((await ask('SELECT COUNT([sales])', 30)).json.data.values).toBe('2');
    }, 180_000);
  },
);
