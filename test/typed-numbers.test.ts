// Typed numbers everywhere (issue 32): the same sales data on a warehouse project (PostgreSQL:
// int4, numeric(12,2), bigint) and on an embedded one (DuckDB), asked the same AVG, MEDIAN,
// SUM, COUNT, ROUND and division by an int4 dimension. Every number cell is a JSON number on
// both — a PostgreSQL numeric AVG too, rounded to 15 significant digits — through REST (report
// and dashboard JSON, XLSX) and the MCP SDK client (run_aql and its cursor, run_report's KPI);
// `exact` gives a fraction no JSON number holds as its exact text; a whole number beyond 2^53
// is always its exact text. The TSV `values` keeps every digit the database gave.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, loadDataset } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import {
  bindWarehouse,
  grantReader,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';
import { sheetRows, unzip } from './helpers/xlsx.js';

const SCHEMA = `
  CREATE SCHEMA nums;
  CREATE TABLE nums.sales (
    sale_id integer PRIMARY KEY, store_id integer, qty integer, price numeric(12, 2), big bigint);
  INSERT INTO nums.sales VALUES
    (1, 1, 1, 10.10, 9007199254740993), (2, 1, 2, 20.20, 5), (3, 1, 4, 3.34, 6), (4, 2, 5, 7.77, 7);
`;
const CSV = 'sale_id,store_id,qty,price\n1,1,1,10.10\n2,1,2,20.20\n3,1,4,3.34\n4,2,5,7.77\n';

const QUERY =
  'SELECT [attr.sales.store_id], AVG([fact.sales.qty]), MEDIAN([fact.sales.qty]), SUM([fact.sales.qty]), COUNT([attr.sales.sale_id]), ROUND(AVG([fact.sales.price]), 2), SUM([fact.sales.qty]) / 3, SUM([fact.sales.price]), AVG([fact.sales.price]) ORDER BY 1';
/** What both engines answer: every cell a JSON number, fractions to 15 significant digits. */
const ROWS = [
  [1, 2.33333333333333, 2, 7, 3, 11.21, 2.33333333333333, 33.64, 11.2133333333333],
  [2, 5, 5, 5, 1, 7.77, 1.66666666666667, 7.77, 7.77],
];

const REPORTS = [
  {
    ident: 'report.by_store',
    type: 'report',
    name: 'By store',
    def: { aql: QUERY, visualization: { type: 'table' } },
  },
  {
    ident: 'report.avg_qty',
    type: 'report',
    name: 'Average quantity',
    def: {
      aql: 'SELECT AVG([fact.sales.qty]) WHERE [attr.sales.store_id] = 1',
      visualization: { type: 'kpi' },
    },
  },
  {
    ident: 'dashboard.sales',
    type: 'dashboard',
    name: 'Sales',
    def: {
      items: [
        { id: 'table', report: 'report.by_store' },
        { id: 'kpi', report: 'report.avg_qty' },
      ],
      layout: [
        { item: 'table', x: 0, y: 0, w: 12, h: 4 },
        { item: 'kpi', x: 0, y: 4, w: 4, h: 2 },
      ],
    },
  },
];

let s: TestServer;
let w: TestWarehouse;
let mcp: Client;
let wh: string;
let emb: string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
async function tool(name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
  expect(r.isError, text).not.toBe(true);
  // The JSON text says what structuredContent says: numbers there too.
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return r.structuredContent;
}

async function get(path: string, accept = 'application/json') {
  const r = await fetch(`${s.url}/api/v1/projects/${path}`, {
    headers: { authorization: `Bearer ${await s.token(ADMIN)}`, accept },
  });
  expect(r.status, path).toBe(200);
  return r;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
const json = async (path: string): Promise<any> => (await get(path)).json();

beforeAll(async () => {
  w = await startWarehouse();
  await w.exec(SCHEMA);
  await grantReader(w, 'nums');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
  });
  wh = await createProject(s, 'whnum', 'Warehouse numbers');
  await bindWarehouse(s, wh, w, 'nums');
  const map = await s.api('POST', `/projects/${wh}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters: { sales: { source_type: 'table', source: 'nums.sales' } } },
  });
  expect(map.status, map.text).toBe(202);
  expect((await s.engine.jobs.waitFor(map.json.link[0].id)).status).toBe('OK');
  emb = await createProject(s, 'embnum', 'Embedded numbers');
  await loadDataset(s, emb, 'sales', CSV, 'sale_id', [
    ['sale_id', 'A', 'integer', 'sale_id'],
    ['store_id', 'A', 'integer', 'store_id'],
    ['qty', 'F', 'integer', 'qty'],
    ['price', 'F', 'number', 'price'],
  ]);
  for (const p of [wh, emb]) {
    const saved = await s.api('POST', `/projects/${p}/pmd/obj`, { body: REPORTS });
    expect(saved.status, saved.text).toBe(201);
  }
  mcp = await connectMcp(s, ADMIN);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await s?.close();
  await w?.stop();
});

describe.each([
  ['a warehouse project (PostgreSQL)', () => wh],
  ['an embedded project (DuckDB)', () => emb],
])('number cells of %s', (_name, project) => {
  it('run_aql answers every number cell as a JSON number, with number and integer columns', async () => {
    const r = await tool('run_aql', { project: project(), aql: QUERY });
    expect(r.rows).toEqual(ROWS);
    expect(r.columns.map((c: { dataType: string }) => c.dataType)).toEqual([
      'integer',
      ...Array<string>(8).fill('number'),
    ]);
  });

  it('REST report and dashboard JSON, and the XLSX, hold the same numbers', async () => {
    const report = await json(`${project()}/app/reports/report.by_store`);
    expect(report.rows).toEqual(ROWS);
    const dash = await json(`${project()}/app/dashboards/dashboard.sales`);
    expect(dash.items[0].rows).toEqual(ROWS);
    expect(dash.items[1].kpi.value).toBe(2.33333333333333);
    const item = await json(`${project()}/app/dashboards/dashboard.sales/items/table`);
    expect(item.item.rows).toEqual(ROWS);
    const xlsx = await get(
      `${project()}/app/reports/report.by_store`,
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const sheet = sheetRows(
      unzip(Buffer.from(await xlsx.arrayBuffer())).get('xl/worksheets/sheet1.xml')!,
    );
    expect(sheet.slice(1)).toEqual(ROWS);
    // Written as numbers, not text that reads as one.
    const xml = unzip(
      Buffer.from(
        await (
          await get(
            `${project()}/app/aql/data/${(await tool('run_aql', { project: project(), aql: QUERY })).jobId}`,
            'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          )
        ).arrayBuffer(),
      ),
    ).get('xl/worksheets/sheet1.xml')!;
    expect(xml).not.toContain('2.3333333333333333');
    expect(xml).toContain('<v>2.33333333333333</v>');
  });

  it('run_report types its rows and its KPI value', async () => {
    const r = await tool('run_report', { project: project(), report: 'By store' });
    expect(r.rows).toEqual(ROWS);
    const kpi = await tool('run_report', { project: project(), report: 'report.avg_qty' });
    expect(kpi.kpi.value).toBe(2.33333333333333);
    expect(kpi.rows).toEqual([[2.33333333333333]]);
  });
});

describe('the exact form, when asked', () => {
  // PostgreSQL's numeric AVG has digits no double keeps; its division and MEDIAN are doubles.
  const EXACT_WH = [
    [1, '2.3333333333333333', 2, 7, 3, 11.21, 2.33333333333333, 33.64, '11.2133333333333333'],
    [2, 5, 5, 5, 1, 7.77, 1.66666666666667, 7.77, 7.77],
  ];

  it('run_aql exact: true gives them as exact text, and its cursor keeps asking so', async () => {
    const all = await tool('run_aql', { project: wh, aql: QUERY, exact: true });
    expect(all.rows).toEqual(EXACT_WH);
    // Store 2 first: the page the cursor continues to holds the exact AVG.
    const aql = QUERY.replace('ORDER BY 1', 'ORDER BY 1 DESC');
    const r = await tool('run_aql', { project: wh, aql, exact: true, limit: 1 });
    expect(r.rows).toEqual([EXACT_WH[1]]);
    expect((await tool('run_aql', { cursor: r.cursor })).rows).toEqual([EXACT_WH[0]]);
    // Asked without exact, the same page rounds.
    expect((await tool('run_aql', { cursor: r.cursor, exact: false })).rows).toEqual([ROWS[0]]);
    // DuckDB's AVG is a double: exact changes nothing there.
    expect((await tool('run_aql', { project: emb, aql: QUERY, exact: true })).rows).toEqual(ROWS);
  });

  it('REST ?exact=true, run_report and get_dashboard exact: true; a bad value is a 400', async () => {
    const report = await json(`${wh}/app/reports/report.by_store?exact=true`);
    expect(report.rows).toEqual(EXACT_WH);
    const dash = await json(`${wh}/app/dashboards/dashboard.sales?exact=true`);
    expect(dash.items[0].rows).toEqual(EXACT_WH);
    expect(dash.items[1].kpi.value).toBe('2.3333333333333333');
    const kpi = await tool('run_report', { project: wh, report: 'report.avg_qty', exact: true });
    expect(kpi.kpi.value).toBe('2.3333333333333333');
    expect(kpi.rows).toEqual([['2.3333333333333333']]);
    const d = await tool('get_dashboard', { project: wh, dashboard: 'Sales', exact: true });
    expect(d.items[0].rows).toEqual(EXACT_WH);
    expect(d.items[1].kpi.value).toBe('2.3333333333333333');
    const bad = await s.api('GET', `/projects/${wh}/app/reports/report.by_store?exact=yes`);
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.message).toContain('exact');
  });

  it('a whole number beyond 2^53 is its exact text either way; the TSV keeps every digit', async () => {
    const aql = 'SELECT [attr.sales.store_id], MAX([fact.sales.big]) ORDER BY 1';
    const expected = [
      [1, '9007199254740993'],
      [2, 7],
    ];
    expect((await tool('run_aql', { project: wh, aql })).rows).toEqual(expected);
    expect((await tool('run_aql', { project: wh, aql, exact: true })).rows).toEqual(expected);
    const r = await s.api('POST', `/projects/${wh}/app/aql/execute`, {
      body: {
        aql: 'SELECT [attr.sales.store_id], AVG([fact.sales.qty]), MAX([fact.sales.big]) ORDER BY 1',
      },
      headers: { prefer: 'wait=20' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.data.values).toBe('1\t2.3333333333333333\t9007199254740993\n2\t5\t7');
  });
});
