// A row-level filter binds Admins and MD Admins too (issue 30, finding 2): what they read of a
// warehouse table outside AQL — a structure guess's sample rows, the rows a mapping counted —
// is refused or withheld, over REST and MCP. The guess is refused (403 saying why): the filter
// is a condition on the model and cannot be applied to a table's raw rows. A mapping needs no
// sample, so they still map; the rows it counted (every row of the table) show as null to them.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import {
  bindWarehouse,
  grantReader,
  SHOP_SCHEMA,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';

const MD_EU = 'wh-md-eu@example.com';
const ADMIN_EU = 'wh-admin-eu@example.com';
const FILTER = '[Region Name] = "Europe"';
// Rows of customers and orders outside the EU filter: Bob (US) and his order of 200.00.
const OUTSIDE = ['Bob', 'United States', '200.00'];

let s: TestServer;
let w: TestWarehouse;
let p: string;
let mdEu: Client;
/** The Admin's mapping of regions, customers and orders. */
let mapped: string;

const jobOf = async (id: string, as: string) => {
  const r = await s.api('GET', `/projects/${p}/kodiak/scache/obj/${id}`, { as });
  expect(r.status, r.text).toBe(200);
  return r.json as { status: string; result?: { clusters: Record<string, { rows: unknown }> } };
};

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SHOP_SCHEMA);
  await w.exec(`CREATE TABLE shop.notes (note_id integer PRIMARY KEY, body text);
    INSERT INTO shop.notes VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');`);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  p = await createProject(s, 'whrf', 'Warehouse row filters');
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
  mapped = job.id;
  await invite(s, p, MD_EU, { mdadmin: true, filter: FILTER });
  await invite(s, p, ADMIN_EU, { admin: true, filter: FILTER });
  mdEu = await connectMcp(s, MD_EU, 'wh-md-eu');
}, 120_000);
afterAll(async () => {
  await mdEu?.close();
  await s?.close();
  await w?.stop();
});

describe('a warehouse table read outside AQL, by an Admin or MD Admin with a row filter', () => {
  it('GET data/guesstable/{table}: 403 saying why, with no row of the table; mapped or not', async () => {
    // AQL applies their filter: what everything else is held to.
    const aql = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      as: MD_EU,
      body: { aql: 'SELECT [customer_name], SUM([amount])' },
      headers: { prefer: 'wait=20' },
    });
    expect(aql.status, aql.text).toBe(200);
    expect(aql.json.data.values).toBe('Ann\t150.75\nCleo\t80');
    for (const as of [MD_EU, ADMIN_EU])
      for (const table of ['shop.customers', 'shop.orders', 'shop.notes']) {
        const r = await s.api('GET', `/projects/${p}/data/guesstable/${table}`, { as });
        expect(r.status, `${as} ${table}: ${r.text}`).toBe(403);
        expect(r.json).toMatchObject({
          statusCode: 403,
          context: { field: 'filter', table, project: p },
        });
        expect(r.json.message).toMatch(
          /row-level filter \(a condition on the model\) cannot be applied/,
        );
        for (const v of OUTSIDE) expect(r.text).not.toContain(v);
      }
    // Without a filter the guess shows the samples.
    const admin = await s.api('GET', `/projects/${p}/data/guesstable/shop.customers`);
    expect(admin.status, admin.text).toBe(200);
    expect(admin.json.prescription.data).toContainEqual(['2', 'Bob', 'US']);
    // The list of tables holds no row: it stays theirs.
    const list = await s.api('GET', `/projects/${p}/data/guesstable`, { as: MD_EU });
    expect(list.status, list.text).toBe(200);
  });

  it('they still map a table their filter does not read; the rows it counted are null to them', async () => {
    const r = (await mdEu.callTool({
      name: 'map_tables',
      arguments: { project: p, tables: [{ table: 'shop.notes' }] },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const out = r.structuredContent as {
      status: string;
      jobId: string;
      datasets: { dataset: string; rows: number | null }[];
    };
    expect(out.status).toBe('OK');
    expect(out.datasets).toEqual([{ dataset: 'notes', table: 'shop.notes', rows: null }]);
    // The job over REST: the same for both filtered readers; an Admin without one sees 4.
    for (const as of [MD_EU, ADMIN_EU])
      expect((await jobOf(out.jobId, as)).result!.clusters.notes!.rows).toBeNull();
    expect((await jobOf(out.jobId, ADMIN)).result!.clusters.notes!.rows).toBe(4);
    const model = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      as: MD_EU,
      body: { aql: 'SELECT COUNT([notes])' },
      headers: { prefer: 'wait=20' },
    });
    expect(model.json.data?.values, model.text).toBe('4');
  });

  it("an Admin's mapping of tables their filter restricts: its row counts are null to them", async () => {
    const seen = await jobOf(mapped, MD_EU);
    expect(seen.status).toBe('OK');
    expect(Object.values(seen.result!.clusters).map((c) => c.rows)).toEqual([null, null, null]);
    const all = await jobOf(mapped, ADMIN);
    expect(Object.values(all.result!.clusters).map((c) => c.rows)).toEqual([2, 3, 5]);
    // kodiak/dataload (rows read live from PostgreSQL) keeps them hidden too.
    const d = await s.api('GET', `/projects/${p}/kodiak/dataload`, { as: ADMIN_EU });
    expect(d.status, d.text).toBe(200);
    for (const ds of d.json.dataload.datasets as { rows: unknown }[]) expect(ds.rows).toBeNull();
  });
});
