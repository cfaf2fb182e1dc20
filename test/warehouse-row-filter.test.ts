// A row-level filter binds Admins and MD Admins too (issue 30, finding 2): what they read of a
// warehouse table outside AQL — a structure guess's sample rows, the rows a mapping counted —
// is refused or withheld, over REST and MCP. The guess and a mapping are refused (403 saying
// why): the filter is a condition on the model and cannot be applied to a table's raw rows, nor
// does it reach a new dataset over one. The rows another's mapping counted show as null.
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
      body: { aql: 'SELECT [Customer Name], SUM([amount])' },
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

  it('they may not map a table: a second dataset over it would show the rows their filter hides', async () => {
    // shop.orders is mapped (orders, restricted by their filter through customers); mapping it
    // again as a dataset of its own would show Bob's order to them.
    const r = (await mdEu.callTool({
      name: 'map_tables',
      arguments: { project: p, tables: [{ table: 'shop.orders', dataset: 'orders_again' }] },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBe(true);
    expect(JSON.stringify(r.content)).toMatch(/your row-level filter .* would not reach/);
    for (const as of [MD_EU, ADMIN_EU]) {
      const rest = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
        as,
        body: {
          type: 'cluster',
          clusters: { notes: { source_type: 'table', source: 'shop.notes' } },
        },
      });
      expect(rest.status, rest.text).toBe(403);
      expect(rest.json).toMatchObject({
        statusCode: 403,
        context: { field: 'filter', table: 'shop.notes', project: p },
      });
    }
    // Nothing was mapped: the model has neither dataset.
    const d = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    const names = (d.json.dataload.datasets as { name?: string; dataset?: string }[]).map(
      (x) => x.name ?? x.dataset,
    );
    expect(names).not.toContain('orders_again');
    expect(names).not.toContain('notes');
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
