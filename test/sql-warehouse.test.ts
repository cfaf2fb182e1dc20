// The SQL API over a warehouse project (issue 33): a PostgreSQL client reads a project whose
// data stays in a customer's PostgreSQL; the statement becomes AQL whose plan runs there. The
// answers equal the same AQL over REST, and a member's row filter applies as in every door.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import {
  bindWarehouse,
  grantReader,
  SHOP_SCHEMA,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';

const EU = 'sql-wh-eu@example.com';

let s: TestServer;
let w: TestWarehouse;
let p: string;
const clients: pg.Client[] = [];

async function connect(user = ADMIN) {
  const c = new pg.Client({
    host: '127.0.0.1',
    port: s.sqlPort,
    user,
    password: await s.engine.issueToken(user),
    database: p,
  });
  c.on('error', () => undefined);
  await c.connect();
  clients.push(c);
  return c;
}

async function viaRest(aql: string, as = ADMIN): Promise<string[][]> {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    as,
    body: { aql },
    headers: { prefer: 'wait=60' },
  });
  expect(r.status, r.text).toBe(200);
  const v = r.json.data.values as string;
  return v ? v.split('\n').map((l) => l.split('\t')) : [];
}

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SHOP_SCHEMA);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
    URSA_SQL_PORT: '0',
    URSA_SQL_MAX_CONNECTIONS: '4',
  });
  p = await createProject(s, 'sqlwh', 'SQL over a warehouse');
  await bindWarehouse(s, p, w, 'shop');
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: {
      type: 'cluster',
      clusters: Object.fromEntries(
        ['regions', 'customers', 'orders'].map((t) => [
          t,
          { source_type: 'table', source: `shop.${t}` },
        ]),
      ),
    },
  });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
  await invite(s, p, EU, { filter: '[Region Name] = "Europe"' });
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  await s?.close();
  await w?.stop();
});

const SQL =
  'SELECT "Region Name", sum("Amount") AS total, count(*) AS n FROM orders, customers, regions GROUP BY 1 ORDER BY 1';
const AQL = 'SELECT [Region Name], SUM([amount]), COUNT([orders]) ORDER BY 1';
const cells = (rows: Record<string, unknown>[]) =>
  rows.map((r) => Object.values(r).map((v) => Number(v) || String(v)));

describe('a warehouse project over the SQL API', () => {
  it('lists the mapped tables and answers across references as AQL does over REST', async () => {
    const c = await connect();
    const t = await c.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    expect(t.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining(['customers', 'orders', 'regions']),
    );
    const rest = await viaRest(AQL);
    expect(rest.map((r) => r[0])).toEqual(['Europe', 'United States']);
    expect(cells((await c.query(SQL)).rows)).toEqual(rest.map((r) => r.map((v) => Number(v) || v)));
  });

  it("a member's row filter applies: they read Europe only", async () => {
    const c = await connect(EU);
    const rows = cells((await c.query(SQL)).rows);
    expect(rows.map((r) => r[0])).toEqual(['Europe']);
    expect(rows).toEqual((await viaRest(AQL, EU)).map((r) => r.map((v) => Number(v) || v)));
    const listed = await c.query('SELECT "Customer Name" FROM customers ORDER BY 1');
    expect(listed.rows.map((r) => r['Customer Name'])).toEqual(['Ann', 'Cleo']);
  });
});

describe('connections', () => {
  it('past URSA_SQL_MAX_CONNECTIONS a client is refused with 53300; a closed one makes room', async () => {
    const open: pg.Client[] = [];
    let refused: unknown;
    for (let i = 0; i < 6 && !refused; i++)
      await connect().then(
        (c) => open.push(c),
        (err: unknown) => (refused = err),
      );
    expect(refused).toMatchObject({ code: '53300' });
    expect(open.length + clients.filter((c) => !open.includes(c)).length).toBeLessThanOrEqual(4);
    await open.pop()!.end();
    await expect(connect()).resolves.toBeDefined();
  });
});
