// Everything else on a warehouse project (issue 22, item 5), against one throwaway PostgreSQL
// warehouse shared by the file: a dashboard of reports computed by PostgreSQL (JSON, HTML, a
// dashboard filter), its public share page, its PDF (headless Chromium, read back with
// poppler), MCP get_model's cardinalities and examples and get_attribute_values, the AI chat
// (the loopback fake LLM) answering from the warehouse, kodiak/dataload's rows, and the web
// app listing the mapped datasets and exploring one.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, signedIn, skipBrowser } from './helpers/app-browser.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { createProject } from './helpers/fixtures.js';
import { isFinal, pollJob, type JobJson } from './helpers/jobs.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';
import {
  bindWarehouse,
  grantReader,
  SHOP_SCHEMA,
  startWarehouse,
  type TestWarehouse,
} from './helpers/warehouse.js';

const OBJECTS = [
  {
    ident: 'metric.revenue',
    type: 'metric',
    name: 'Revenue',
    def: { aql: 'SELECT SUM([amount])', format: '#,##0.00' },
  },
  {
    ident: 'report.revenue_kpi',
    type: 'report',
    name: 'Revenue total',
    def: { aql: 'SELECT [Revenue]', visualization: { type: 'kpi' } },
  },
  {
    ident: 'report.revenue_by_region',
    type: 'report',
    name: 'Revenue by region',
    def: {
      aql: 'SELECT [Region Name], [Revenue] ORDER BY 1',
      visualization: { type: 'bar', x: 'Region Name', y: 'Revenue' },
    },
  },
  {
    ident: 'report.customers_table',
    type: 'report',
    name: 'Orders per customer',
    def: {
      aql: 'SELECT [Customer Name], COUNT([Order ID]) AS "Orders", [Revenue] ORDER BY 1',
      visualization: { type: 'table' },
    },
  },
  {
    ident: 'dashboard.sales',
    type: 'dashboard',
    name: 'Warehouse sales',
    def: {
      items: [
        { id: 'kpi', report: 'report.revenue_kpi' },
        { id: 'region', report: 'report.revenue_by_region' },
        { id: 'customers', report: 'report.customers_table' },
      ],
      layout: [
        { item: 'kpi', x: 0, y: 0, w: 3, h: 2 },
        { item: 'region', x: 3, y: 0, w: 9, h: 5 },
        { item: 'customers', x: 0, y: 5, w: 12, h: 4 },
      ],
      filters: [{ attribute: 'attr.regions.region_code' }],
    },
  },
];

const PDF_TOOLS = ['pdftotext'];
const PDF_MISSING = [
  ...(fs.existsSync('/usr/bin/chromium') ? [] : ['Chromium at /usr/bin/chromium']),
  ...PDF_TOOLS.filter((t) => spawnSync(t, ['-v']).error).map((t) => `${t} (poppler-utils)`),
];
const canPdf = PDF_MISSING.length === 0 || process.env.CI === 'true';

let s: TestServer;
let w: TestWarehouse;
let llm: FakeLlm;
let p: string;

const dashPath = (q = '') => `/projects/${p}/app/dashboards/dashboard.sales${q}`;

beforeAll(async () => {
  [w, llm] = await Promise.all([startWarehouse({ own: true }), startFakeLlm()]);
  await w.exec(SHOP_SCHEMA);
  await grantReader(w, 'shop');
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    URSA_WAREHOUSE_CACHE_SECONDS: '0',
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_API_KEY: 'k-test',
    URSA_AI_MODEL: 'gpt-test',
    URSA_AI_STREAM: 'false',
  });
  p = await createProject(s, 'whf', 'Warehouse features');
  await bindWarehouse(s, p, w, 'shop');
  const map = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
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
  expect(map.status, map.text).toBe(202);
  const job = await s.engine.jobs.waitFor(map.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
  const saved = await s.api('POST', `/projects/${p}/pmd/obj`, { body: OBJECTS });
  expect(saved.status, saved.text).toBe(201);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await llm?.close();
  await w?.stop();
});

describe('dashboards and shares of a warehouse project', () => {
  it('computes every item in PostgreSQL: the KPI, the chart, the table; a filter narrows them', async () => {
    const r = await s.api('GET', dashPath());
    expect(r.status, r.text).toBe(200);
    const [kpi, region, customers] = r.json.items;
    expect(kpi.error).toBeUndefined();
    expect(kpi.kpi).toMatchObject({ title: 'Revenue', value: 430.75, formatted: '430.75' });
    expect(region.rows).toEqual([
      ['Europe', 230.75],
      ['United States', 200],
    ]);
    expect(region.chart.svg).toMatch(/^<svg/);
    expect(customers.rows).toEqual([
      ['Ann', 2, 150.75],
      ['Bob', 1, 200],
      ['Cleo', 2, 80],
    ]);
    const eu = await s.api('GET', dashPath('?filter=attr.regions.region_code:EU'));
    expect(eu.status, eu.text).toBe(200);
    expect(eu.json.items[0].kpi.value).toBe(230.75);
    const html = await s.api('GET', dashPath(), { accept: 'text/html' });
    expect(html.status).toBe(200);
    expect(html.text).toContain('<h1>Warehouse sales</h1>');
    expect(html.text).toContain('United States');
  });

  it('a public share page answers from the warehouse without signing in', async () => {
    const set = await s.api('PUT', `/projects/${p}`, { body: { dashboardEmbedding: true } });
    expect(set.status, set.text).toBe(200);
    const r = await s.api('POST', `/projects/${p}/pmd/share`, {
      body: { type: 'public', object: 'dashboard.sales' },
    });
    expect(r.status, r.text).toBe(201);
    const url = new URL(r.json.share.url as string);
    const page = await s.api('GET', `${s.url}${url.pathname}`, { as: null, accept: 'text/html' });
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<h1>Warehouse sales</h1>');
    expect(page.text).toContain('Cleo');
    const json = await s.api('GET', `${s.url}${url.pathname}`, {
      as: null,
      accept: 'application/json',
    });
    expect(json.json.items[0].kpi.value).toBe(430.75);
    expect(page.text + json.text).not.toContain(w.db.reader!.password);
  });
});

describe('kodiak/dataload of a warehouse project', () => {
  const dataload = async () => {
    const r = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    expect(r.status, r.text).toBe(200);
    return r.json;
  };
  type Listed = { name: string; rows: number; rowsEstimated: boolean };
  const rowsOf = (d: { dataload: { datasets: Listed[] } }, name: string) =>
    d.dataload.datasets.find((x) => x.name === name);

  it('counts a small table exactly, as it is now, and says cached answers expire', async () => {
    let d = await dataload();
    expect(rowsOf(d, 'orders')).toMatchObject({ rows: 5, rowsEstimated: false });
    expect(d.warehouse).toMatchObject({ schema: 'shop', resultsExpireSeconds: 0 });
    expect(d.warehouse.note).toContain('a cached answer is served for at most 0 s');
    await w.exec(`INSERT INTO shop.orders VALUES (15, 2, '2024-04-01', 10.00)`);
    try {
      d = await dataload();
      expect(rowsOf(d, 'orders')).toMatchObject({ rows: 6, rowsEstimated: false });
    } finally {
      await w.exec('DELETE FROM shop.orders WHERE order_id = 15');
    }
  });

  it("answers a large table's rows from PostgreSQL's estimate, saying so", async () => {
    await w.exec(`CREATE TABLE shop.events AS
      SELECT g AS event_id, g % 7 AS kind FROM generate_series(1, 150000) g`);
    await w.exec('ANALYZE shop.events');
    await w.exec(`GRANT SELECT ON shop.events TO ${w.db.reader!.user}`);
    const map = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: { events: { source_type: 'table', source: 'shop.events' } },
      },
    });
    expect(map.status, map.text).toBe(202);
    const job = await s.engine.jobs.waitFor(map.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    const events = rowsOf(await dataload(), 'events')!;
    expect(events.rowsEstimated).toBe(true);
    expect(events.rows).toBeGreaterThan(135_000);
    expect(events.rows).toBeLessThan(165_000);
  });
});

describe.skipIf(!canPdf)('PDF export of a warehouse dashboard', () => {
  it('prints the dashboard with the numbers PostgreSQL computed', async () => {
    if (PDF_MISSING.length)
      throw new Error(`CI=true but this test needs ${PDF_MISSING.join(', ')}`);
    const res = await fetch(`${s.url}/api/v1/projects/${p}/app/export/url`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/json',
        accept: 'application/pdf',
      },
      body: JSON.stringify({ url: `/api/v1${dashPath()}` }),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status, bytes.toString('utf8').slice(0, 500)).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-whpdf-'));
    try {
      const file = path.join(dir, 'dashboard.pdf');
      fs.writeFileSync(file, bytes);
      const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      expect(text).toContain('Warehouse sales');
      expect(text).toContain('430.75');
      expect(text).toContain('Cleo');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('assistants on a warehouse project', () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connectMcp(s, ADMIN);
  });
  afterAll(() => mcp?.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  async function tool(name: string, args: Record<string, unknown>): Promise<any> {
    const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).not.toBe(true);
    return r.structuredContent;
  }

  it('MCP get_model profiles the mapped tables: rows, cardinalities, example values', async () => {
    const m = await tool('get_model', { project: p, dataset: 'customers' });
    const customers = m.datasets.find((d: { name: string }) => d.name === 'customers');
    expect(customers.rows).toBe(3);
    const name = customers.columns.find(
      (c: { id: string }) => c.id === 'label.customers.customer_name',
    );
    expect(name.cardinality).toBe(3);
    expect(name.examples).toEqual(['Ann', 'Bob', 'Cleo']);
  });

  it('MCP get_attribute_values counts the facts of each value in PostgreSQL (orders per region)', async () => {
    const v = await tool('get_attribute_values', {
      project: p,
      attribute: 'attr.customers.region_code',
    });
    // The facts that reach the attribute are counted (issue 34): orders, not customers.
    expect(v.counts).toBe('orders');
    expect(v.values).toEqual([
      { value: 'EU', count: 4 },
      { value: 'US', count: 1 },
    ]);
    const prefixed = await tool('get_attribute_values', {
      project: p,
      attribute: 'Customer Name',
      prefix: 'c',
    });
    expect(prefixed.values).toEqual([{ value: 'Cleo', count: 2 }]);
  });

  it('a table dropped outside Ursa: get_model still answers, saying which dataset it cannot read', async () => {
    await w.exec('CREATE TABLE shop.gone (gone_id integer PRIMARY KEY, what text)');
    await w.exec(`INSERT INTO shop.gone VALUES (1, 'x')`);
    await w.exec(`GRANT SELECT ON shop.gone TO ${w.db.reader!.user}`);
    const map = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: { type: 'cluster', clusters: { gone: { source_type: 'table', source: 'shop.gone' } } },
    });
    expect(map.status, map.text).toBe(202);
    expect((await s.engine.jobs.waitFor(map.json.link[0].id)).status).toBe('OK');
    await w.exec('DROP TABLE shop.gone');
    try {
      const m = await tool('get_model', { project: p });
      const gone = m.datasets.find((d: { name: string }) => d.name === 'gone');
      expect(gone).toMatchObject({ rows: null });
      expect(gone.warning).toBe(
        'the warehouse (PostgreSQL) could not read it: relation "shop.gone" does not exist',
      );
      const orders = m.datasets.find((d: { name: string }) => d.name === 'orders');
      expect(orders.rows).toBe(5);
      expect(orders.warning).toBeUndefined();
    } finally {
      await w.exec('CREATE TABLE shop.gone (gone_id integer PRIMARY KEY, what text)');
      await w.exec(`GRANT SELECT ON shop.gone TO ${w.db.reader!.user}`);
    }
  });

  it('the AI chat answers with a query PostgreSQL ran', async () => {
    llm.script(
      {
        toolCalls: [
          {
            id: 'c1',
            name: 'run_aql',
            arguments: { aql: 'SELECT [Region Name], [Revenue] ORDER BY 2 DESC' },
          },
        ],
      },
      { text: 'Europe leads with 230.75, then United States with 200.' },
    );
    const r = await s.api('POST', `/projects/${p}/app/ai/messages`, {
      body: { question: 'Which region brings the most revenue?' },
    });
    expect(r.status, r.text).toBe(202);
    const job = (await pollJob(s.api, p, r.json.link[0].id, isFinal, {
      timeoutMs: 20_000,
    })) as JobJson & { result: { answer: string; queries: { rows: unknown[][] }[] } };
    expect(job.status, job.message).toBe('OK');
    expect(job.result.answer).toContain('Europe leads');
    expect(job.result.queries[0]!.rows).toEqual([
      ['Europe', 230.75],
      ['United States', 200],
    ]);
  });
});

describe.skipIf(skipBrowser)('the web app on a warehouse project', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(() => browser?.close());

  it('lists the mapped datasets with their rows and source, and explores one', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${p}/data/datasets`,
    );
    page.setDefaultTimeout(10_000);
    try {
      const row = page.locator('tr[data-dataset=orders]');
      await row.waitFor();
      await expect(row.textContent()).resolves.toMatch(/ · admin@example\.com · mapped$/);
      await expect(row.locator('.data-rows').textContent()).resolves.toBe('5');
      await expect(row.locator('.data-source').textContent()).resolves.toBe('table:shop.orders');
      // The name opens the dataset's page; "Explore orders" a question on it.
      await row.getByRole('link', { name: 'Explore orders' }).click();
      await page.waitForURL((u) => u.pathname === `/app/p/${p}/explore`);
      await expect
        .poll(() => page.locator('.explore-result th').allTextContents())
        .toEqual(['Count of orders']);
      await expect(page.locator('.explore-result tbody td').first().textContent()).resolves.toBe(
        '5',
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});

// Last: an immediate stop may lose the newest commits of this unsynced test server.
describe('a warehouse that cannot be reached', () => {
  it('dataload still answers, with the rows last recorded marked estimated; queries are 400s', async () => {
    w.db.halt();
    try {
      const r = await s.api('GET', `/projects/${p}/kodiak/dataload`);
      expect(r.status, r.text).toBe(200);
      const orders = r.json.dataload.datasets.find((d: { name: string }) => d.name === 'orders');
      expect(orders).toMatchObject({ rows: 5, rowsEstimated: true });
      const q = await s.api('POST', `/projects/${p}/app/aql/execute`, {
        body: { aql: 'SELECT SUM([amount])' },
        headers: { prefer: 'wait=20' },
      });
      expect(q.status, q.text).toBe(400);
      expect(q.json.message).toContain('the warehouse (PostgreSQL) could not answer');
      expect(q.text).not.toContain(w.db.reader!.password);
      const list = await s.api('GET', `/projects/${p}/data/guesstable`);
      expect(list.status, list.text).toBe(400);
      expect(list.json.message).toMatch(
        /^the warehouse \(PostgreSQL\) could not answer listing schema "shop": PostgreSQL server 127\.0\.0\.1:\d+: /,
      );
      const guess = await s.api('GET', `/projects/${p}/data/guesstable/shop.orders`);
      expect(guess.status, guess.text).toBe(400);
      // get_model still describes the model, saying the warehouse could not be reached.
      const mcp = await connectMcp(s, ADMIN);
      try {
        const m = (await mcp.callTool({
          name: 'get_model',
          arguments: { project: p },
        })) as CallToolResult;
        expect(m.isError, JSON.stringify(m.content)).not.toBe(true);
        // The profile read a moment ago (kept up to a minute), or a warning per dataset.
        const ds = (
          m.structuredContent as { datasets: { rows: number | null; warning?: string }[] }
        ).datasets;
        expect(ds.length).toBeGreaterThanOrEqual(3);
        for (const d of ds)
          if (d.rows === null) expect(d.warning).toContain('could not be reached');
        const tables = (await mcp.callTool({
          name: 'list_warehouse_tables',
          arguments: { project: p },
        })) as CallToolResult;
        expect(tables.isError).toBe(true);
        expect(JSON.stringify(tables.content)).toContain('could not answer listing schema');
      } finally {
        await mcp.close();
      }
    } finally {
      w.db.resume();
    }
    const back = await s.api('GET', `/projects/${p}/kodiak/dataload`);
    expect(
      back.json.dataload.datasets.find((d: { name: string }) => d.name === 'orders'),
    ).toMatchObject({ rows: 5, rowsEstimated: false });
  }, 60_000);
});
