// Reports and dashboards rendered for the caller (SHARING.md "Rendering"), over real HTTP on
// the demo flights: charts as inline SVG, KPIs in the metric's format, the layout grid, CSV/TSV,
// roles (hidden reports left out), row filters and dashboard filters from the query string.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatNumber } from '../src/shared/number-format.js';
import { asText, rowsOf } from './helpers/aql-demo.js';
import { OUTSIDER, setUpReports, VIEWER, WEST, WEST_FILTER } from './helpers/reports-fixture.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
const dash = (q = '') => `/projects/${s.demo}/app/dashboards/dashboard.ops${q}`;
const report = (id: string, q = '') => `/projects/${s.demo}/app/reports/${id}${q}`;
const json = { accept: 'application/json' };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Item = Record<string, any>;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await setUpReports(s);
}, 120_000);
afterAll(() => s?.close());

/** The KPI's value as the caller's own AQL computes it (TSV text). */
async function miles(as: string, where = ''): Promise<string> {
  return (await rowsOf(s, as, `SELECT [Total Miles]${where}`))[0]![0]!;
}

/** The KPI's value in JSON: a number column's cell is a JSON number. */
const kpiValue = async (as: string, where = ''): Promise<number> => Number(await miles(as, where));

const NUMERIC = new Set(['integer', 'number']);
/** Each cell's JSON type, as its column's dataType says it must be. */
function expectTyped(item: Item): void {
  const types = item.columns.map((c: { dataType: string }) =>
    NUMERIC.has(c.dataType) ? 'number' : 'string',
  );
  expect(types).toContain('number');
  for (const row of item.rows) expect(row.map((c: unknown) => typeof c)).toEqual(types);
}

describe('dashboards as JSON', () => {
  it("computes every item the caller can read, with the layout, charts and the KPI's format", async () => {
    const r = await s.api('GET', dash(), json);
    expect(r.status).toBe(200);
    expect(r.json.dashboard).toEqual({
      ident: 'dashboard.ops',
      name: 'Operations',
      description: 'Flights, miles and delays',
    });
    const items = r.json.items as Item[];
    expect(items.map((i) => i.id)).toEqual(['kpi', 'region', 'month', 'pie', 'scatter', 'finance']);
    expect(items[1]).toMatchObject({ title: 'By region', layout: { x: 3, y: 0, w: 9, h: 5 } });
    const total = await miles(ADMIN);
    expect(items[0]!.kpi).toEqual({
      title: 'Total Miles',
      value: Number(total),
      formatted: formatNumber(total, '#,##0,"K mi"'),
    });
    expect(items[0]!.kpi.formatted).toMatch(/^[\d,]+K mi$/);
    for (const i of items.slice(1, 5)) expect(i.chart.svg).toMatch(/^<svg[^>]*viewBox/);
    expect(items[5]!.chart).toBeUndefined();
    expect(items[5]!.columns.map((c: { title: string }) => c.title)).toEqual([
      'Carrier Name',
      'Flights Flown',
      'Total Miles',
    ]);
    expect(asText(items[5]!.rows)).toEqual(
      await rowsOf(s, ADMIN, 'SELECT [Carrier Name], [Flights Flown], [Total Miles]'),
    );
    expectTyped(items[5]!);
  });

  it('draws what the visualization names: x, several y, a pie, a scatter', async () => {
    const items = (await s.api('GET', dash(), json)).json.items as Item[];
    const spec = (id: string) => items.find((i) => i.id === id)!.chart.spec;
    expect(spec('region').mark).toBe('bar');
    expect(spec('region').x.title).toBe('Origin Region');
    // y: [2, 3] by position: one series per column, each on its own axis (flights are in the
    // thousands, the average delay in minutes: ten times apart or more).
    const month = spec('month');
    expect(month.dual).toBe(true);
    expect((month.y as { title: string }[]).map((y) => y.title)).toEqual([
      'Flights Flown',
      'Average Delay',
    ]);
    expect(spec('pie').mark).toBe('arc');
    expect(spec('scatter').mark).toBe('point');
    expect(spec('scatter').x.type).toBe('quantitative');
  });

  it("leaves out items whose report the caller's roles hide, and hides the dashboard from others", async () => {
    const r = await s.api('GET', dash(), { as: VIEWER, ...json });
    expect(r.status).toBe(200);
    expect(r.json.items.map((i: { id: string }) => i.id)).not.toContain('finance');
    expect(r.text).not.toContain('Carrier finance table');
    expect(
      (await s.api('GET', report('report.finance_table'), { as: VIEWER, ...json })).status,
    ).toBe(404);
    const outsider = await s.api('GET', dash(), { as: OUTSIDER, ...json });
    expect(outsider.status).toBe(404);
    expect(outsider.json.message).toBe('dashboard "dashboard.ops" not found');
    const list = await s.api('GET', `/projects/${s.demo}/app/dashboards`, {
      as: OUTSIDER,
      ...json,
    });
    // Only the demo's own dashboard, which has no ACL (every member reads it).
    const idents = (r: typeof list) =>
      r.json.dashboards.map((d: { ident: string }) => d.ident).sort();
    expect(idents(list)).toEqual(['dashboard.demo_flights']);
    const mine = await s.api('GET', `/projects/${s.demo}/app/dashboards`, { as: VIEWER, ...json });
    expect(idents(mine)).toEqual(['dashboard.demo_flights', 'dashboard.ops']);
  });

  it("computes every item under the caller's row filter", async () => {
    const west = await s.api('GET', dash(), { as: WEST, ...json });
    const expected = await miles(WEST);
    expect(expected).toBe(await miles(ADMIN, ` WHERE ${WEST_FILTER}`));
    expect(expected).not.toBe(await miles(ADMIN));
    expect(west.json.items[0].kpi.value).toBe(Number(expected));
    const region = west.json.items.find((i: { id: string }) => i.id === 'region');
    expect(region.rows.map((r: string[]) => r[0])).toEqual(['West']);
  });
});

describe('dashboard filters from the query string', () => {
  it('applies filter=<attribute>:<value> to every item it reaches, as the WHERE would', async () => {
    const r = await s.api('GET', dash('?filter=attr.airports.region:West'), json);
    expect(r.status).toBe(200);
    expect(r.json.filters[0]).toMatchObject({
      attribute: 'attr.airports.region',
      values: ['West'],
    });
    expect(r.json.items[0].kpi.value).toBe(await kpiValue(ADMIN, ` WHERE ${WEST_FILTER}`));
  });

  it('takes several values, the form spelling and the title, and ANDs with the row filter', async () => {
    const q = '?filter=attr.airports.region:West&filter=attr.airports.region:South';
    const both = await s.api('GET', dash(q), json);
    expect(both.json.items[0].kpi.value).toBe(
      await kpiValue(ADMIN, ' WHERE [Origin Region] IN ("West", "South")'),
    );
    const form = await s.api('GET', dash('?filter[Origin%20Region]=South'), json);
    expect(form.json.items[0].kpi.value).toBe(
      await kpiValue(ADMIN, ' WHERE [Origin Region] = "South"'),
    );
    // A member's row filter still applies: West AND South selects nothing for them.
    const west = await s.api('GET', dash('?filter=attr.airports.region:South'), {
      as: WEST,
      ...json,
    });
    expect(west.json.items[0].kpi.formatted).toBe('–');
    expect(west.json.items[0].kpi.value).toBeNull();
    const cancelled = await s.api('GET', dash('?filter=attr.flights.cancelled:true'), json);
    expect(cancelled.json.items[0].kpi.value).toBe(await kpiValue(ADMIN, ' WHERE [Cancelled]'));
  });

  it('refuses filters the dashboard does not have, and values of the wrong type, naming them', async () => {
    for (const [q, text] of [
      [
        '?filter=attr.flights.dest:LAX',
        'filter "attr.flights.dest" is not a filter of this dashboard',
      ],
      ['?filter=West', 'filter must be <attribute>:<value>'],
      ['?filter=attr.flights.cancelled:maybe', 'must be true or false'],
    ] as const) {
      const r = await s.api('GET', dash(q), json);
      expect(r.status, q).toBe(400);
      expect(r.json.message).toContain(text);
      expect(r.json.context.field).toBe('filter');
    }
  });
});

describe('dashboards as HTML', () => {
  it('is one self-contained page: inline SVG charts, the KPI, a table, the grid, a phone layout', async () => {
    const r = await s.api('GET', dash(), { accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = r.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(r.text).toContain('<meta name="viewport"');
    expect((r.text.match(/<svg/g) ?? []).length).toBe(4);
    const total = await miles(ADMIN);
    expect(r.text).toContain(formatNumber(total, '#,##0,"K mi"'));
    expect(r.text).toContain('<table>');
    expect(r.text).toContain('grid-column:4 / span 9');
    expect(r.text).toMatch(/@media \(max-width:800px\)/);
    // Nothing is loaded from anywhere: no external src/href, no scripts.
    expect(r.text).not.toMatch(/\s(src|href)="(https?:)?\/\//);
    expect(r.text).not.toContain('<script');
    expect(r.text).toContain('name="filter[attr.airports.region]"');
  });

  it('escapes names and titles the model holds', async () => {
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'report.xss',
          type: 'report',
          name: '<img src=x onerror=alert(1)>',
          def: {
            aql: 'SELECT [Origin Region] AS "<b>R</b>", [Flights Flown] AS "</text><script>x</script>"',
            visualization: { type: 'bar' },
          },
        },
      ],
      ADMIN,
    );
    const r = await s.api('GET', report('report.xss'), { accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('<img src=x');
    expect(r.text).not.toContain('<script>');
    expect(r.text).not.toContain('<b>R</b>');
    expect(r.text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('reports', () => {
  it('answer CSV and TSV with every row, JSON in pages', async () => {
    const all = await rowsOf(s, ADMIN, 'SELECT [Carrier Name], [Flights Flown], [Total Miles]');
    const csv = await s.api('GET', report('report.finance_table', '?format=csv'));
    expect(csv.status).toBe(200);
    // Named by the report's title.
    expect(csv.headers.get('content-disposition')).toContain(
      'filename="Carrier finance table.csv"',
    );
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('Carrier Name,Flights Flown,Total Miles');
    expect(lines.slice(1)).toEqual(all.map((r) => r.join(',')));
    const tsv = await s.api('GET', report('report.finance_table'), {
      accept: 'text/tab-separated-values',
    });
    expect(tsv.text.trim().split(/\r?\n/)[1]).toBe(all[0]!.join('\t'));
    const page = await s.api('GET', report('report.finance_table', '?limit=2&offset=1'), json);
    expect(asText(page.json.rows)).toEqual(all.slice(1, 3));
    expectTyped(page.json);
    expect(page.json.rowCount).toBe(all.length);
    expect(page.json.paging).toEqual({ total: all.length, limit: 2, offset: 1 });
  });

  it('show a KPI in the HTML page with the metric format, and the warnings of an empty answer', async () => {
    const r = await s.api('GET', report('report.kpi_miles'), { as: WEST, accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.text).toContain(formatNumber(await miles(WEST), '#,##0,"K mi"'));
  });

  it("report a chart with too many rows as that item's error, and draw the rest", async () => {
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'report.too_many',
          type: 'report',
          name: 'Every flight',
          def: { aql: 'SELECT [Flight], SUM([Distance])', visualization: { type: 'bar' } },
        },
        {
          ident: 'dashboard.mixed',
          type: 'dashboard',
          name: 'Mixed',
          def: {
            items: [
              { id: 'big', report: 'report.too_many' },
              { id: 'ok', report: 'report.by_region' },
            ],
          },
        },
      ],
      ADMIN,
    );
    const r = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.mixed`, json);
    expect(r.status).toBe(200);
    expect(r.json.items[0].error).toMatch(/a chart shows at most 1000/);
    expect(r.json.items[1].chart.svg).toMatch(/^<svg/);
    const direct = await s.api('GET', report('report.too_many'), json);
    expect(direct.status).toBe(400);
  });

  it('title their columns as the report was written, though saved AQL is stored by identifier', async () => {
    const created = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: {
        ident: 'report.written_by_title',
        type: 'report',
        name: 'Passengers by carrier',
        def: {
          aql: 'SELECT [Carrier Name], SUM([Passengers])',
          visualization: { type: 'bar' },
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const stored = (await s.engine.model.all(s.demo)).find(
      (o) => o.ident === 'report.written_by_title',
    )!;
    expect((stored.def as { aql: string }).aql).toContain('[fact.flights.passengers]');
    const r = await s.api('GET', report('report.written_by_title'), json);
    expect(r.json.columns.map((c: { title: string }) => c.title)).toEqual([
      'Carrier Name',
      'SUM([Passengers])',
    ]);
    expect(r.json.chart.spec.y[0].title).toBe('SUM([Passengers])');
  });

  it('refuse formats they do not have', async () => {
    const r = await s.api('GET', dash(), { accept: 'text/csv' });
    expect(r.status).toBe(406);
  });
});
