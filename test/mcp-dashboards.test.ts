// Dashboards and reports over MCP with the SDK's own client over real HTTP: list_dashboards,
// get_dashboard (items' rows as the REST JSON gives them to the same user, charts as PNG
// images) and run_report (rows, the KPI's formatted number, the chart as a PNG). Everything
// runs as the caller: roles hide items, row filters narrow numbers, shares open dashboards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { MAX_IMAGES } from '../src/mcp/tools/dashboard-views.js';
import { asText, rowsOf } from './helpers/aql-demo.js';
import { connectMcp } from './helpers/mcp-client.js';
import { colourCount, pngHeader, pngPixels, PNG_SIGNATURE } from './helpers/png.js';
import { OUTSIDER, setUpReports, VIEWER, WEST } from './helpers/reports-fixture.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
const clients = new Map<string, Client>();

async function client(email: string): Promise<Client> {
  let c = clients.get(email);
  if (!c) clients.set(email, (c = await connectMcp(s, email, 'dashboards-test')));
  return c;
}

async function call(email: string, name: string, args: Record<string, unknown> = {}) {
  const c = await client(email);
  const result = (await c.callTool({
    name,
    arguments: { project: s.demo, ...args },
  })) as CallToolResult;
  const text = result.content
    .filter((b) => b.type === 'text')
    .map((b) => (b as { text: string }).text)
    .join('\n');
  const images = result.content.filter((b): b is ImageContent => b.type === 'image');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  const data = result.structuredContent as any;
  return { result, isError: result.isError === true, text, data, images };
}

/** The REST JSON of the dashboard for the same user. */
async function restDashboard(email: string, query = '') {
  const r = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.ops${query}`, {
    as: email,
  });
  expect(r.status, r.text).toBe(200);
  return r.json as {
    items: {
      id: string;
      columns?: unknown[];
      rows?: string[][];
      kpi?: unknown;
      error?: string;
    }[];
    filters: { attribute: string; title: string; values: string[] }[];
  };
}

/** A PNG image block: its signature, size from the IHDR, and more than one colour. */
function decoded(image: ImageContent) {
  expect(image.mimeType).toBe('image/png');
  const png = Buffer.from(image.data, 'base64');
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const header = pngHeader(png);
  expect(header.width).toBeGreaterThan(0);
  expect(header.height).toBeGreaterThan(0);
  expect(colourCount(pngPixels(png))).toBeGreaterThan(10);
  return header;
}

const dashboardUrl = () =>
  `${s.engine.config.siteUrl}/api/v1/projects/${s.demo}/app/dashboards/dashboard.ops`;

/** MCP items and REST items say the same: columns, rows, KPI, errors, in the same order. */
function sameData(
  mcpItems: { id: string; columns?: unknown[]; rows?: unknown[]; kpi?: unknown; error?: string }[],
  rest: Awaited<ReturnType<typeof restDashboard>>,
) {
  expect(mcpItems.map((i) => i.id)).toEqual(rest.items.map((i) => i.id));
  for (const [n, r] of rest.items.entries()) {
    const m = mcpItems[n]!;
    expect(m.columns, r.id).toEqual(r.columns);
    expect(m.rows, r.id).toEqual(r.rows);
    expect(m.kpi, r.id).toEqual(r.kpi);
    expect(m.error, r.id).toEqual(r.error);
  }
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await setUpReports(s);
}, 120_000);

afterAll(async () => {
  for (const c of clients.values()) await c.close();
  await s?.close();
});

describe('MCP dashboards and reports', () => {
  it('lists the three tools, read-only, for every member', async () => {
    const { tools } = await (await client(VIEWER)).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['list_dashboards', 'get_dashboard', 'run_report']) {
      const t = byName.get(name);
      expect(t, name).toBeDefined();
      expect(t!.annotations, name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      expect(Object.keys(t!.inputSchema.properties!), name).toContain('project');
    }
    expect(Object.keys(byName.get('get_dashboard')!.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['dashboard', 'filters', 'limit']),
    );
  });

  it('list_dashboards: what the caller can open, with the link to its page', async () => {
    const viewer = await call(VIEWER, 'list_dashboards');
    expect(viewer.isError, viewer.text).toBe(false);
    // The fixture's dashboard, and the demo's own (no ACL: every member reads it).
    expect(viewer.data).toMatchObject({ total: 2, truncated: false });
    const ops = viewer.data.dashboards.find((d: { id: string }) => d.id === 'dashboard.ops');
    expect(ops).toEqual({
      id: 'dashboard.ops',
      title: 'Operations',
      description: 'Flights, miles and delays',
      items: 6,
      url: dashboardUrl(),
    });
    expect(viewer.data.dashboards.map((d: { id: string }) => d.id).sort()).toEqual([
      'dashboard.demo_flights',
      'dashboard.ops',
    ]);
    // The link opens the page for that user.
    const page = await fetch(ops.url, {
      headers: { authorization: `Bearer ${await s.token(VIEWER)}`, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Operations');
    const outsider = await call(OUTSIDER, 'list_dashboards');
    expect(outsider.isError, outsider.text).toBe(false);
    expect(outsider.data.dashboards.map((d: { id: string }) => d.id)).toEqual([
      'dashboard.demo_flights',
    ]);
  });

  it('get_dashboard: the REST JSON’s data for the same user, and each chart as a PNG', async () => {
    const r = await call(VIEWER, 'get_dashboard', { dashboard: 'Operations' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.dashboard).toEqual({
      id: 'dashboard.ops',
      title: 'Operations',
      description: 'Flights, miles and delays',
      url: dashboardUrl(),
    });
    sameData(r.data.items, await restDashboard(VIEWER));
    // The finance table is hidden from viewers: left out, unnamed.
    const ids = r.data.items.map((i: { id: string }) => i.id);
    expect(ids).toEqual(['kpi', 'region', 'month', 'pie', 'scatter']);
    expect(r.text).not.toContain('finance');
    // One image per chart item, in item order, each named by its item.
    const charted = r.data.items.filter((i: { image?: number }) => i.image);
    expect(charted.map((i: { id: string }) => i.id)).toEqual(['region', 'month', 'pie', 'scatter']);
    expect(charted.map((i: { image: number }) => i.image)).toEqual([1, 2, 3, 4]);
    expect(r.data.images).toBe(4);
    expect(r.images).toHaveLength(4);
    const sizes = r.images.map(decoded);
    // Each as wide as its share of the 12-column grid of a 960 px page (480 px at least).
    expect(sizes.map((h) => h.width)).toEqual([720, 480, 480, 480]);
    // The KPI: its number formatted with the metric's format, no image.
    const kpi = r.data.items.find((i: { id: string }) => i.id === 'kpi');
    expect(kpi.visualization).toBe('kpi');
    expect(kpi.kpi.formatted).toMatch(/^[\d,]+K mi$/);
    expect(kpi.image).toBeUndefined();
    expect(r.data.notes).toBeUndefined();
    // The Admin also gets the finance table.
    const admin = await call(ADMIN, 'get_dashboard', { dashboard: 'dashboard.ops' });
    expect(admin.data.items.map((i: { id: string }) => i.id)).toContain('finance');
    sameData(admin.data.items, await restDashboard(ADMIN));
  });

  it('get_dashboard under a row filter: WEST gets their own numbers', async () => {
    const west = await call(WEST, 'get_dashboard', { dashboard: 'dashboard.ops' });
    expect(west.isError, west.text).toBe(false);
    sameData(west.data.items, await restDashboard(WEST));
    const region = west.data.items.find((i: { id: string }) => i.id === 'region');
    expect(region.rows.map((row: string[]) => row[0])).toEqual(['West']);
    const viewer = await call(VIEWER, 'get_dashboard', { dashboard: 'dashboard.ops' });
    const miles = (r: typeof west) =>
      Number(r.data.items.find((i: { id: string }) => i.id === 'kpi').kpi.value);
    expect(miles(west)).toBeGreaterThan(0);
    expect(miles(west)).toBeLessThan(miles(viewer));
    expect(west.images).toHaveLength(4);
  });

  it('get_dashboard applies filters as the page does', async () => {
    const r = await call(VIEWER, 'get_dashboard', {
      dashboard: 'dashboard.ops',
      filters: ['attr.airports.region:West'],
    });
    expect(r.isError, r.text).toBe(false);
    const rest = await restDashboard(VIEWER, '?filter=attr.airports.region:West');
    sameData(r.data.items, rest);
    expect(r.data.filters[0]).toEqual({
      attribute: 'attr.airports.region',
      title: rest.filters[0]!.title,
      values: ['West'],
    });
    expect(r.data.dashboard.url).toBe(`${dashboardUrl()}?filter=attr.airports.region%3AWest`);
    const region = r.data.items.find((i: { id: string }) => i.id === 'region');
    expect(region.rows.map((row: string[]) => row[0])).toEqual(['West']);
    // By the attribute's title, several values.
    const title = rest.filters[0]!.title;
    const two = await call(VIEWER, 'get_dashboard', {
      dashboard: 'dashboard.ops',
      filters: [`${title}:West`, `${title}:South`],
    });
    expect(two.isError, two.text).toBe(false);
    sameData(
      two.data.items,
      await restDashboard(
        VIEWER,
        '?filter=attr.airports.region:West&filter=attr.airports.region:South',
      ),
    );
    // A filter the dashboard does not have: the engine's message.
    const bad = await call(VIEWER, 'get_dashboard', {
      dashboard: 'dashboard.ops',
      filters: ['attr.flights.dest:LAX'],
    });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('"attr.flights.dest" is not a filter of this dashboard');
  });

  it('get_dashboard caps rows per item and says so', async () => {
    const r = await call(VIEWER, 'get_dashboard', { dashboard: 'dashboard.ops', limit: 2 });
    expect(r.isError, r.text).toBe(false);
    const month = r.data.items.find((i: { id: string }) => i.id === 'month');
    expect(month.rows).toHaveLength(2);
    expect(month.totalRows).toBeGreaterThan(2);
    expect(month.truncated).toBe(true);
    expect(r.data.notes.join(' ')).toMatch(/rows cut to 2 per item/);
    // The charts still show every row.
    expect(r.images).toHaveLength(4);
  });

  it(`get_dashboard attaches at most ${MAX_IMAGES} images and says which are left out`, async () => {
    const items = Array.from({ length: MAX_IMAGES + 2 }, (_, n) => ({
      id: `c${n + 1}`,
      report: 'report.by_region',
    }));
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'dashboard.many',
          type: 'dashboard',
          name: 'Many charts',
          def: { items },
          acl: [{ userrole: 'viewers', acl: 'r----' }],
        },
      ],
      ADMIN,
    );
    const r = await call(VIEWER, 'get_dashboard', { dashboard: 'Many charts' });
    expect(r.isError, r.text).toBe(false);
    expect(r.images).toHaveLength(MAX_IMAGES);
    expect(r.data.images).toBe(MAX_IMAGES);
    const left = r.data.items.filter((i: { imageNote?: string }) => i.imageNote);
    expect(left.map((i: { id: string }) => i.id)).toEqual([
      `c${MAX_IMAGES + 1}`,
      `c${MAX_IMAGES + 2}`,
    ]);
    expect(left[0].imageNote).toContain('run_report report.by_region');
    expect(r.data.notes.join(' ')).toContain(`2 more chart(s) not shown as images`);
    // Unplaced items span the grid: full width.
    expect(decoded(r.images[0]!).width).toBe(960);
  });

  it('a member whose roles open nothing gets not found, as for a missing dashboard', async () => {
    for (const dashboard of ['dashboard.ops', 'Operations']) {
      const r = await call(OUTSIDER, 'get_dashboard', { dashboard });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`dashboard "${dashboard}" not found`);
      // Nothing of what it hides (its items' titles); what they may open is listed instead.
      expect(r.text).not.toMatch(/Flights by region|Flights Flown|Miles flown/);
      expect(r.text).toContain('your dashboards: "Flights overview" (dashboard.demo_flights)');
    }
    const report = await call(OUTSIDER, 'run_report', { report: 'report.by_region' });
    expect(report.isError).toBe(true);
    expect(report.text).toMatch(/not found/);
    // A viewer asking for the hidden finance table: not found either.
    const hidden = await call(VIEWER, 'run_report', { report: 'report.finance_table' });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).toMatch(/not found/);
  });

  it('a dashboard shared with a member opens for them, under their own rights', async () => {
    const share = await s.api('POST', `/projects/${s.demo}/pmd/share`, {
      body: { type: 'private', object: 'dashboard.ops', users: [OUTSIDER] },
    });
    expect(share.status, share.text).toBe(201);
    try {
      const list = await call(OUTSIDER, 'list_dashboards');
      expect(list.data.dashboards.map((d: { id: string }) => d.id).sort()).toEqual([
        'dashboard.demo_flights',
        'dashboard.ops',
      ]);
      const r = await call(OUTSIDER, 'get_dashboard', { dashboard: 'Operations' });
      expect(r.isError, r.text).toBe(false);
      sameData(r.data.items, await restDashboard(OUTSIDER));
      expect(r.images.length).toBeGreaterThan(0);
      // Its reports open through the share too, with their chart.
      // Its metric is hidden from their roles: the engine computes the report for the share
      // (no query job, so no cursor), under their own row filter.
      const report = await call(OUTSIDER, 'run_report', { report: 'report.by_region' });
      expect(report.isError, report.text).toBe(false);
      const rest = await s.api('GET', `/projects/${s.demo}/app/reports/report.by_region`, {
        as: OUTSIDER,
      });
      expect(report.data.rows).toEqual(rest.json.rows);
      expect(report.data).toMatchObject({ status: 'OK', cursor: null, image: true });
      expect(report.data.jobId).toBeUndefined();
      expect(report.images).toHaveLength(1);
    } finally {
      await s.api('DELETE', `/projects/${s.demo}/pmd/share/dashboard.ops`);
    }
    const after = await call(OUTSIDER, 'get_dashboard', { dashboard: 'dashboard.ops' });
    expect(after.isError).toBe(true);
  });

  it('run_report: a KPI formatted, with the link to the report page', async () => {
    const r = await call(VIEWER, 'run_report', { report: 'Miles flown' });
    expect(r.isError, r.text).toBe(false);
    const rest = await s.api('GET', `/projects/${s.demo}/app/reports/report.kpi_miles`, {
      as: VIEWER,
    });
    expect(rest.status, rest.text).toBe(200);
    expect(r.data.kpi).toEqual(rest.json.kpi);
    expect(r.data.kpi.formatted).toMatch(/^[\d,]+K mi$/);
    expect(r.data.report).toMatchObject({
      id: 'report.kpi_miles',
      title: 'Miles flown',
      visualization: 'kpi',
      url: `${s.engine.config.siteUrl}/api/v1/projects/${s.demo}/app/reports/report.kpi_miles`,
    });
    expect(r.data.columns[0]).toMatchObject({ title: 'Total Miles', format: '#,##0,"K mi"' });
    expect(r.images).toHaveLength(0);
    // WEST's number is their own.
    const west = await call(WEST, 'run_report', { report: 'report.kpi_miles' });
    expect(Number(west.data.kpi.value)).toBeLessThan(Number(r.data.kpi.value));
  });

  it('run_report: a chart report’s rows and its chart as one PNG', async () => {
    const r = await call(WEST, 'run_report', { report: 'report.by_region' });
    expect(r.isError, r.text).toBe(false);
    const rest = await s.api('GET', `/projects/${s.demo}/app/reports/report.by_region`, {
      as: WEST,
    });
    expect(r.data.rows).toEqual(rest.json.rows);
    expect(r.data.rows.map((row: string[]) => row[0])).toEqual(['West']);
    expect(r.data).toMatchObject({ status: 'OK', truncated: false, image: true });
    expect(r.data.report.visualization).toBe('bar');
    expect(r.images).toHaveLength(1);
    expect(decoded(r.images[0]!).width).toBe(960);
    // Rows are capped and continue with run_aql's cursor.
    const month = await call(VIEWER, 'run_report', { report: 'report.by_month', limit: 3 });
    expect(month.data.rows).toHaveLength(3);
    expect(month.data.truncated).toBe(true);
    const next = await call(VIEWER, 'run_aql', { cursor: month.data.cursor });
    expect(next.isError, next.text).toBe(false);
    expect(next.data.offset).toBe(3);
    // A table report: rows, no image.
    const table = await call(ADMIN, 'run_report', { report: 'Carrier finance table' });
    expect(table.isError, table.text).toBe(false);
    expect(table.images).toHaveLength(0);
    expect(table.data.report.visualization).toBe('table');
  });
});

describe('cells in structuredContent', () => {
  const NUMERIC = new Set(['integer', 'number']);
  /** Each cell's JSON type as its column's dataType says: numbers for number columns. */
  const expectTyped = (columns: { dataType: string }[], rows: unknown[][]) => {
    const types = columns.map((c) => (NUMERIC.has(c.dataType) ? 'number' : 'string'));
    expect(types).toContain('number');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.map((c) => typeof c)).toEqual(types);
  };

  it('run_aql, run_report and get_dashboard give number columns as JSON numbers, the same values as the text', async () => {
    const aql = 'SELECT [Carrier Name], [Flights Flown], [Total Miles]';
    const text = await rowsOf(s, ADMIN, aql);
    const run = await call(ADMIN, 'run_aql', { aql, limit: 1000 });
    expect(run.isError, run.text).toBe(false);
    expect(asText(run.data.rows)).toEqual(text);
    expectTyped(run.data.columns, run.data.rows);
    const report = await call(ADMIN, 'run_report', { report: 'report.finance_table', limit: 1000 });
    expect(asText(report.data.rows)).toEqual(text);
    expectTyped(report.data.columns, report.data.rows);
    const dash = await call(ADMIN, 'get_dashboard', { dashboard: 'dashboard.ops', limit: 1000 });
    const finance = dash.data.items.find((i: { id: string }) => i.id === 'finance');
    expect(asText(finance.rows)).toEqual(text);
    expectTyped(finance.columns, finance.rows);
    const kpi = dash.data.items.find((i: { id: string }) => i.id === 'kpi').kpi;
    expect(kpi.value).toBe(Number((await rowsOf(s, ADMIN, 'SELECT [Total Miles]'))[0]![0]));
  });

  it('keeps a value no JSON number holds exactly as its exact text, and an empty number as null', async () => {
    // Beyond 2^53 and odd: a double cannot hold it.
    const aql = 'SELECT SUM([Distance]) * 1000000000 + 1';
    const [[exact]] = (await rowsOf(s, ADMIN, aql)) as [[string]];
    expect(BigInt(exact)).toBeGreaterThan(2n ** 53n);
    const big = await call(ADMIN, 'run_aql', { aql });
    expect(big.isError, big.text).toBe(false);
    expect(big.data.rows).toEqual([[exact]]);
    // West by their row filter AND South by the dashboard's: a total of nothing, null.
    const empty = await call(WEST, 'get_dashboard', {
      dashboard: 'dashboard.ops',
      filters: ['attr.airports.region:South'],
    });
    const kpi = empty.data.items.find((i: { id: string }) => i.id === 'kpi');
    expect(kpi.rows).toEqual([[null]]);
    expect(kpi.kpi).toMatchObject({ value: null, formatted: '–' });
  });
});
