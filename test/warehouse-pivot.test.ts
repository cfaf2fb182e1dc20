// A pivot on a warehouse project (PostgreSQL computes): its subtotals and grand total are the
// report's AVG run again at each grain in the warehouse, never a mean of cells, and a member
// with a row filter gets the totals of their rows only.
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

const EU = 'wh-pivot-eu@example.com';
const AQL = 'SELECT [Region Name], [Customer Name], AVG([amount]) AS "Average order"';

let s: TestServer;
let w: TestWarehouse;
let p: string;

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SHOP_SCHEMA);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  p = await createProject(s, 'whpivot', 'Warehouse pivot');
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
  const saved = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: {
      ident: 'report.pivot',
      type: 'report',
      name: 'Orders pivot',
      def: { aql: AQL, visualization: { type: 'pivot', rows: [1, 2], columns: [] } },
    },
  });
  expect(saved.status, saved.text).toBe(201);
  await invite(s, p, EU, { admin: true, filter: '[Region Name] = "Europe"' });
}, 120_000);
afterAll(async () => {
  await s?.close();
  await w?.stop();
});

/** The AQL's one number for this caller. */
async function one(as: string, aql: string): Promise<number> {
  const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
    as,
    body: { aql },
    headers: { prefer: 'wait=20' },
  });
  expect(r.status, r.text).toBe(200);
  return Number(r.json.data.values);
}

describe('a pivot computed by a warehouse', () => {
  it("the region subtotals and grand total are the AVG at that grain, not the cells' mean", async () => {
    const r = await s.api('GET', `/projects/${p}/app/reports/report.pivot`, {
      headers: { accept: 'application/json' },
    });
    expect(r.status, r.text).toBe(200);
    const lines = r.json.pivot.lines as { values: string[]; level: number; cells: number[][] }[];
    expect(lines.map((l) => [l.values.join('/'), l.level])).toEqual([
      ['Europe/Ann', 2],
      ['Europe/Cleo', 2],
      ['Europe', 1],
      ['United States/Bob', 2],
      ['United States', 1],
      ['', 0],
    ]);
    const europe = lines[2]!.cells[0]![0]!;
    // Ann's 120.50 and 30.25, Cleo's 80.00 (her NULL order counts for nothing): 76.92, not
    // the mean of Ann's 75.375 and Cleo's 80.
    expect(europe).toBeCloseTo(
      await one(ADMIN, 'SELECT AVG([amount]) WHERE [Region Name] = "Europe"'),
      9,
    );
    expect(europe).toBeCloseTo(230.75 / 3, 9);
    expect(europe).not.toBeCloseTo((lines[0]!.cells[0]![0]! + lines[1]!.cells[0]![0]!) / 2, 6);
    expect(lines[5]!.cells[0]![0]).toBeCloseTo(await one(ADMIN, 'SELECT AVG([amount])'), 9);
  });

  it("a member with a row filter gets the totals of their rows: the warehouse's AVG for them", async () => {
    const r = await s.api('GET', `/projects/${p}/app/reports/report.pivot`, {
      as: EU,
      headers: { accept: 'application/json' },
    });
    expect(r.status, r.text).toBe(200);
    const lines = r.json.pivot.lines as { values: string[]; level: number; cells: number[][] }[];
    expect(lines.map((l) => l.values.join('/'))).toEqual([
      'Europe/Ann',
      'Europe/Cleo',
      'Europe',
      '',
    ]);
    const total = lines.at(-1)!.cells[0]![0]!;
    expect(total).toBeCloseTo(await one(EU, 'SELECT AVG([amount])'), 9);
    expect(total).toBeCloseTo(230.75 / 3, 9);
  });
});
