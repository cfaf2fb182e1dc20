// Every connector end to end over REST, against real servers on loopback: PostgreSQL 15,
// OpenSSH's SFTP, a token-protected paged HTTP API. Credentials are write-only, errors name
// the box and field (an API's 401, PostgreSQL's own error), and without
// URSA_CONNECTOR_ALLOW_HOSTS nothing reaches loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMissing, type TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';
import { sftpMissing, startSftp, type TestSftp } from './helpers/sftp-server.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const inCi = process.env.CI === 'true';
const PG_MISSING = postgresMissing();
const SFTP_MISSING = sftpMissing();
if (PG_MISSING && !inCi) console.warn(`skipping PostgreSQL flows: ${PG_MISSING}`);
if (SFTP_MISSING && !inCi) console.warn(`skipping SFTP flows: ${SFTP_MISSING}`);

const TOKEN = 'api-token-0123456789';

/** 25 orders over 3 pages of 10, bearer token required; /v2 nests them at /data/items. */
function startApi(): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const orders = Array.from({ length: 25 }, (_, i) => ({
    id: i + 1,
    city: ['Oslo', 'Lima', 'Pune'][i % 3],
    total: (i + 1) * 1.5,
    placed: `2024-05-${String((i % 28) + 1).padStart(2, '0')}`,
  }));
  const server = http.createServer((req, res) => {
    hits++;
    const u = new URL(req.url!, 'http://x');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"bad token"}');
      return;
    }
    const page = Number(u.searchParams.get('page') ?? 1);
    const items = orders.slice((page - 1) * 10, page * 10);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(u.pathname === '/v2' ? { data: { items } } : items));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        hits: () => hits,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

let s: TestServer;
let p: string;
let api: Awaited<ReturnType<typeof startApi>>;

async function create(body: Record<string, unknown>, server = s) {
  const r = await server.api('POST', `/projects/${server.demo}/pmd/obj`, { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function run(ident: string, server = s) {
  const r = await server.api('POST', `/projects/${server.demo}/kodiak/transform/execute`, {
    body: { type: 'flow', id: ident },
  });
  expect(r.status, r.text).toBe(201);
  return server.engine.jobs.waitFor(r.json.link[0].id, 60_000);
}

async function values(query: string): Promise<string> {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    body: { aql: query },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return r.json.data.values;
}

const toDataset = (input: Record<string, unknown>, dataset: string, extra = {}) => ({
  boxes: [
    { id: 'src', ...input },
    { id: 'out', type: 'output.dataset', dataset, mode: 'full', ...extra },
  ],
  edges: [{ from: 'src', to: 'out' }],
});

beforeAll(async () => {
  api = await startApi();
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team', URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1' });
  p = s.demo;
});
afterAll(async () => {
  await s?.close();
  await api?.close();
});

describe('input.http', () => {
  it('pages through a token-protected API into a dataset; the secret is never shown', async () => {
    const cred = await create({
      ident: 'cred.api',
      type: 'credentials',
      name: 'Orders API',
      def: { kind: 'http', secret: TOKEN },
    });
    expect(JSON.stringify(cred)).not.toContain(TOKEN);
    expect(cred.objects[0].def).toEqual({ kind: 'http', secretSet: true });
    await create({
      ident: 'flow.api',
      type: 'flow',
      name: 'Orders',
      def: toDataset(
        {
          type: 'input.http',
          url: `${api.url}/v2`,
          credentials: 'cred.api',
          records: '/data/items',
          pagination: { type: 'page', param: 'page' },
        },
        'orders',
        { primarykey: 'id' },
      ),
    });
    const job = await run('flow.api');
    expect(job.status, job.message).toBe('OK');
    expect((job.result as { boxes: Record<string, { rows: number }> }).boxes.src!.rows).toBe(25);
    expect(await values('SELECT [city], SUM([total]) ORDER BY [city]')).toBe(
      'Lima\t150\nOslo\t175.5\nPune\t162',
    );
    const read = await s.api('GET', `/projects/${p}/pmd/obj/cred.api`);
    expect(read.text).not.toContain(TOKEN);
    const flows = await s.api('GET', `/projects/${p}/inflow/flowlist?fullLoad=true`);
    expect(flows.text).not.toContain(TOKEN);
  });

  it('names the box and the credentials when the API answers 401', async () => {
    await create({
      ident: 'cred.wrong',
      type: 'credentials',
      name: 'Wrong token',
      def: { kind: 'http', secret: 'not-the-token' },
    });
    await create({
      ident: 'flow.api401',
      type: 'flow',
      name: 'Orders 401',
      def: toDataset(
        { type: 'input.http', url: `${api.url}/v1`, credentials: 'cred.wrong' },
        'orders401',
      ),
    });
    const job = await run('flow.api401');
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(/^box "src" \(credentials\): .*401/);
    expect(job.message).not.toContain('not-the-token');
  });

  it('sends credentials that name a host to that host only', async () => {
    await create({
      ident: 'cred.bound',
      type: 'credentials',
      name: 'Bound token',
      def: { kind: 'http', host: 'api.example.org', secret: TOKEN },
    });
    await create({
      ident: 'flow.bound',
      type: 'flow',
      name: 'Bound',
      def: toDataset(
        { type: 'input.http', url: `${api.url}/v1`, credentials: 'cred.bound' },
        'bound',
      ),
    });
    const before = api.hits();
    const job = await run('flow.bound');
    expect(job.status).toBe('ERROR');
    expect(job.message).toBe(
      'box "src" (credentials): credentials "cred.bound" are for host api.example.org, not 127.0.0.1',
    );
    expect(api.hits()).toBe(before);
  });

  it('refuses loopback unless URSA_CONNECTOR_ALLOW_HOSTS lists it, before any request', async () => {
    const strict = await startTestServer({ URSA_DEFAULT_PLAN: 'team' });
    try {
      await create(
        {
          ident: 'flow.local',
          type: 'flow',
          name: 'Local',
          def: toDataset({ type: 'input.http', url: `${api.url}/v1` }, 'local'),
        },
        strict,
      );
      const before = api.hits();
      const job = await run('flow.local', strict);
      expect(job.status).toBe('ERROR');
      expect(job.message).toContain('box "src" (url)');
      expect(job.message).toContain('URSA_CONNECTOR_ALLOW_HOSTS');
      expect(api.hits()).toBe(before);
    } finally {
      await strict.close();
    }
  });
});

describe.skipIf(PG_MISSING !== null && !inCi)('input.postgres', () => {
  let db: TestPostgres;
  beforeAll(async () => {
    db = await sharedPostgres(); // on CI a missing PostgreSQL fails here, loudly
    const c = new pg.Client({ ...db });
    await c.connect();
    await c.query(
      `CREATE TABLE sales (id int PRIMARY KEY, shop text, amount numeric(10,2), sold date, at timestamptz, ok boolean)`,
    );
    await c.query(
      `INSERT INTO sales SELECT g, 'shop' || (g % 4), g * 1.25, DATE '2024-01-01' + g, TIMESTAMPTZ '2024-01-01 10:00+02' + g * INTERVAL '1 hour', g % 2 = 0 FROM generate_series(1, 1000) g`,
    );
    await c.end();
    await create({
      ident: 'cred.pg',
      type: 'credentials',
      name: 'Warehouse',
      def: {
        kind: 'postgres',
        host: db.host,
        port: db.port,
        user: db.user,
        database: db.database,
        secret: db.password,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await db?.stop();
  });

  it('streams a query into a typed dataset', async () => {
    await create({
      ident: 'flow.pg',
      type: 'flow',
      name: 'Warehouse sales',
      def: {
        boxes: [
          { id: 'q', type: 'input.postgres', credentials: 'cred.pg', query: 'SELECT * FROM sales' },
          { id: 'paid', type: 'transform.filter', condition: '[ok] = TRUE' },
          {
            id: 'out',
            type: 'output.dataset',
            dataset: 'warehouse',
            mode: 'full',
            primarykey: 'id',
          },
        ],
        edges: [
          { from: 'q', to: 'paid' },
          { from: 'paid', to: 'out' },
        ],
      },
    });
    const job = await run('flow.pg');
    expect(job.status, job.message).toBe('OK');
    const ds = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    const wh = ds.json.dataload.datasets.find((d: { name: string }) => d.name === 'warehouse');
    expect(wh.rows).toBe(500);
    const obj = await s.api('GET', `/projects/${p}/pmd/obj/attr.warehouse.sold`);
    expect(obj.json.object.def.dataType).toBe('date');
    const at = await s.api('GET', `/projects/${p}/pmd/obj/attr.warehouse.at`);
    expect(at.json.object.def.dataType).toBe('datetime');
    // "id" is taken by the orders dataset: this one's title names its dataset.
    expect(await values('SELECT SUM([amount]), COUNT([id (warehouse)])')).toBe('313125\t500');
  });

  it("names the box and the query with PostgreSQL's own error, and writes nothing", async () => {
    await create({
      ident: 'flow.pgbad',
      type: 'flow',
      name: 'Bad query',
      def: toDataset(
        { type: 'input.postgres', credentials: 'cred.pg', query: 'SELECT amout FROM sales' },
        'pgbad',
      ),
    });
    const job = await run('flow.pgbad');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('box "src" (query)');
    expect(job.message).toContain('column "amout" does not exist');
    // A write hidden in a WITH saves, and PostgreSQL's read-only transaction refuses it.
    await create({
      ident: 'flow.pgwrite',
      type: 'flow',
      name: 'Write',
      def: toDataset(
        {
          type: 'input.postgres',
          credentials: 'cred.pg',
          query: 'WITH d AS (DELETE FROM sales RETURNING id) SELECT * FROM d',
        },
        'pgw',
      ),
    });
    const del = await run('flow.pgwrite');
    expect(del.status).toBe('ERROR');
    expect(del.message).toMatch(
      /^box "src" \(query\): cannot execute \w+ in a read-only transaction/,
    );
  });

  it('refuses on save a statement that does not read rows, and names the box for one without columns', async () => {
    for (const query of [
      'COMMIT',
      '  -- tidy up\n/* first */ DELETE FROM sales RETURNING id',
      'SET x = 1',
    ]) {
      const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
        body: {
          type: 'flow',
          name: 'Not reading',
          def: toDataset({ type: 'input.postgres', credentials: 'cred.pg', query }, 'pgno'),
        },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.json.context.field).toBe('def.boxes.0.query');
      expect(r.json.message).toContain(
        'box "src": the query must be one read-only statement returning rows (SELECT, WITH … SELECT, VALUES or TABLE), not ',
      );
    }
    await create({
      ident: 'flow.pgnocols',
      type: 'flow',
      name: 'No columns',
      def: toDataset(
        { type: 'input.postgres', credentials: 'cred.pg', query: 'SELECT FROM sales' },
        'pgnocols',
      ),
    });
    const job = await run('flow.pgnocols');
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(
      /^box "src" \(query\): the query returned no columns: it must be one read-only statement/,
    );
  });
});

describe.skipIf(SFTP_MISSING !== null && !inCi)('input.sftp', () => {
  let srv: TestSftp;
  beforeAll(async () => {
    srv = await startSftp(); // on CI a missing sshd fails here, loudly
    fs.writeFileSync(path.join(srv.root, 'stock.csv'), 'sku,qty\na,1\nb,2\nc,3\n');
    await create({
      ident: 'cred.sftp',
      type: 'credentials',
      name: 'Supplier SFTP',
      def: { kind: 'sftp', host: srv.host, port: srv.port, user: srv.user, secret: srv.privateKey },
    });
  }, 60_000);
  afterAll(async () => {
    await srv?.stop();
  });

  it('downloads a file with a private key and loads it', async () => {
    await create({
      ident: 'flow.sftp',
      type: 'flow',
      name: 'Supplier stock',
      def: toDataset(
        { type: 'input.sftp', credentials: 'cred.sftp', path: path.join(srv.root, 'stock.csv') },
        'supplier_stock',
        { primarykey: 'sku' },
      ),
    });
    const job = await run('flow.sftp');
    expect(job.status, job.message).toBe('OK');
    expect(await values('SELECT SUM([qty])')).toBe('6');
  });

  it('connects only to the server whose host key the credentials pin', async () => {
    const other = 'SHA256:' + 'A'.repeat(43);
    for (const [ident, hostKey] of [
      ['cred.pinned', srv.hostKeyFingerprint],
      ['cred.otherkey', other],
    ] as const)
      await create({
        ident,
        type: 'credentials',
        name: ident,
        def: {
          kind: 'sftp',
          host: srv.host,
          port: srv.port,
          user: srv.user,
          hostKey,
          secret: srv.password,
        },
      });
    const def = (cred: string, dataset: string) =>
      toDataset(
        { type: 'input.sftp', credentials: cred, path: path.join(srv.root, 'stock.csv') },
        dataset,
      );
    await create({
      ident: 'flow.pinned',
      type: 'flow',
      name: 'Pinned',
      def: def('cred.pinned', 'pinned'),
    });
    await create({
      ident: 'flow.otherkey',
      type: 'flow',
      name: 'Other key',
      def: def('cred.otherkey', 'otherkey'),
    });
    expect((await run('flow.pinned')).status).toBe('OK');
    const job = await run('flow.otherkey');
    expect(job.status).toBe('ERROR');
    expect(job.message).toBe(
      `box "src" (credentials): the SFTP server at ${srv.host}:${srv.port} presented host key ${srv.hostKeyFingerprint}, not the ${other} the credentials pin; nothing was sent`,
    );
    const bad = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        type: 'credentials',
        name: 'Bad pin',
        def: { kind: 'sftp', hostKey: 'MD5:xx', secret: 'x' },
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(
      /^invalid object: def\.hostKey: must be an SHA256 fingerprint/,
    );
  });

  it('names the path when the file is missing', async () => {
    await create({
      ident: 'flow.sftp404',
      type: 'flow',
      name: 'Missing file',
      def: toDataset({ type: 'input.sftp', credentials: 'cred.sftp', path: '/nope/x.csv' }, 'nope'),
    });
    const job = await run('flow.sftp404');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('box "src" (path)');
  });
});
