// Pivot tables and conditional formatting over real HTTP on the demo flights: a pivot's
// subtotals and totals are the report's measures computed at that grain (an AVG's total is
// the AVG over its rows, not a sum or mean of cells), within the reader's row filter; its
// bounds; a table's colour rules validated, resolved and drawn the same on the page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cellStyle, styleCss } from '../src/shared/conditional.js';
import { rowsOf } from './helpers/aql-demo.js';
import { sheetRows, unzip } from './helpers/xlsx.js';
import { connectMcp } from './helpers/mcp-client.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { setUpReports, WEST } from './helpers/reports-fixture.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
const json = { accept: 'application/json' };
const report = (id: string, q = '') => `/projects/${s.demo}/app/reports/${id}${q}`;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Any = Record<string, any>;

const PIVOT_AQL =
  'SELECT [Origin Region], [Carrier Name], [Cancelled], [Average Delay], [Flights Flown]';

async function save(ident: string, aql: string, visualization: Any, as = ADMIN) {
  const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    as,
    body: {
      ident,
      type: 'report',
      name: ident,
      def: { aql, visualization },
      acl: [{ userrole: 'viewers', acl: 'r----' }],
    },
  });
  return r;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await setUpReports(s);
  const r = await save('report.pivot', PIVOT_AQL, {
    type: 'pivot',
    rows: ['Origin Region', 'Carrier Name'],
    columns: 'Cancelled',
  });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
}, 120_000);
afterAll(() => s?.close());

/** Rows of an AQL answer as a map from the joined dimension values to the measures. */
async function byKey(as: string, aql: string, dims: number): Promise<Map<string, string[]>> {
  const rows = await rowsOf(s, as, aql);
  return new Map(rows.map((r) => [r.slice(0, dims).join('|'), r.slice(dims)]));
}

const close = (a: unknown, b: string) => {
  if (b === '') expect(a).toBeNull();
  else expect(Number(a)).toBeCloseTo(Number(b), 9);
};

describe('pivot', () => {
  it("computes every subtotal and total at its grain: an AVG's total is the AVG over its rows, not of its cells", async () => {
    const r = await s.api('GET', report('report.pivot'), json);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const p = r.json.pivot as Any;
    expect(p.rows.map((c: Any) => c.title)).toEqual(['Origin Region', 'Carrier Name']);
    expect(p.columns.map((c: Any) => c.title)).toEqual(['Cancelled']);
    expect(p.measures.map((c: Any) => c.title)).toEqual(['Average Delay', 'Flights Flown']);
    expect(p.measures[0].format).toBe('0.0 "min"');
    // Columns: each Cancelled value, then the total over both.
    expect(p.keys.at(-1)).toEqual({ values: [], level: 0 });
    expect(p.keys.slice(0, -1).every((k: Any) => k.level === 1)).toBe(true);
    // Every level against the AQL at that grain, as the same reader.
    const grains: Record<string, Map<string, string[]>> = {
      '2/1': await byKey(ADMIN, PIVOT_AQL, 3),
      '2/0': await byKey(
        ADMIN,
        'SELECT [Origin Region], [Carrier Name], [Average Delay], [Flights Flown]',
        2,
      ),
      '1/1': await byKey(
        ADMIN,
        'SELECT [Origin Region], [Cancelled], [Average Delay], [Flights Flown]',
        2,
      ),
      '1/0': await byKey(ADMIN, 'SELECT [Origin Region], [Average Delay], [Flights Flown]', 1),
      '0/1': await byKey(ADMIN, 'SELECT [Cancelled], [Average Delay], [Flights Flown]', 1),
      '0/0': await byKey(ADMIN, 'SELECT [Average Delay], [Flights Flown]', 0),
    };
    const levels = new Set<string>();
    for (const line of p.lines as Any[])
      p.keys.forEach((k: Any, i: number) => {
        const grain = `${line.level}/${k.level}`;
        levels.add(grain);
        const want = grains[grain]!.get([...line.values, ...k.values].join('|'));
        const cell = line.cells[i];
        if (!want) expect(cell).toEqual([null, null]);
        else {
          close(cell[0], want[0]!);
          close(cell[1], want[1]!);
        }
      });
    expect([...levels].sort()).toEqual(['0/0', '0/1', '1/0', '1/1', '2/0', '2/1']);
    // Lines: each region's carriers, then the region's subtotal; the grand total last.
    const regions = new Set((await rowsOf(s, ADMIN, 'SELECT [Origin Region]')).map((r) => r[0]));
    expect(
      p.lines
        .filter((l: Any) => l.level === 1)
        .map((l: Any) => l.values[0])
        .sort(),
    ).toEqual([...regions].sort());
    expect(p.lines.at(-1).level).toBe(0);
    const first = p.lines.findIndex((l: Any) => l.level === 1);
    expect(
      p.lines.slice(0, first).every((l: Any) => l.values[0] === p.lines[first].values[0]),
    ).toBe(true);
    // The grand total's AVG is not the mean of the region subtotals (it weighs every flight).
    const total = p.lines.at(-1).cells.at(-1);
    const subtotals = p.lines.filter((l: Any) => l.level === 1).map((l: Any) => l.cells.at(-1)[0]);
    const meanOfCells = subtotals.reduce((a: number, b: number) => a + b, 0) / subtotals.length;
    expect(Math.abs(total[0] - meanOfCells)).toBeGreaterThan(1e-6);
    close(total[1], grains['0/0']!.get('')![1]!);
  });

  it("a member's pivot totals are over their rows only (their row filter)", async () => {
    const r = await s.api('GET', report('report.pivot'), { ...json, as: WEST });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const p = r.json.pivot as Any;
    expect(p.lines.filter((l: Any) => l.level === 1).map((l: Any) => l.values[0])).toEqual([
      'West',
    ]);
    const [delay, flights] = (await rowsOf(s, WEST, 'SELECT [Average Delay], [Flights Flown]'))[0]!;
    const total = p.lines.at(-1).cells.at(-1);
    close(total[0], delay!);
    close(total[1], flights!);
    const all = (await rowsOf(s, ADMIN, 'SELECT [Flights Flown]'))[0]![0];
    expect(total[1]).toBeLessThan(Number(all));
  });

  it('defaults: the first dimension in rows, the second in columns, every measure', async () => {
    expect((await save('report.pivot_default', PIVOT_AQL, { type: 'pivot' })).status).toBe(201);
    const p = (await s.api('GET', report('report.pivot_default'), json)).json.pivot as Any;
    expect(p.rows.map((c: Any) => c.title)).toEqual(['Origin Region', 'Cancelled']);
    expect(p.columns.map((c: Any) => c.title)).toEqual(['Carrier Name']);
    expect(p.measures).toHaveLength(2);
  });

  it('refuses more columns than it shows, a measure as a row, and LIMIT, with 400', async () => {
    await save('report.pivot_wide', 'SELECT [Carrier Name], [Flight Date], [Flights Flown]', {
      type: 'pivot',
      rows: 'Carrier Name',
    });
    const wide = await s.api('GET', report('report.pivot_wide'), json);
    expect(wide.status).toBe(400);
    expect(wide.json.message).toMatch(/the pivot has \d+ columns .*at most 50/);
    await save('report.pivot_bad', PIVOT_AQL, { type: 'pivot', rows: 'Flights Flown' });
    const bad = await s.api('GET', report('report.pivot_bad'), json);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/"Flights Flown", a measure/);
    await save('report.pivot_limit', `${PIVOT_AQL} LIMIT 5`, { type: 'pivot' });
    const limit = await s.api('GET', report('report.pivot_limit'), json);
    expect(limit.status).toBe(400);
    expect(limit.json.message).toMatch(/LIMIT/);
  });

  it('draws an HTML table with subtotal rows and columns marked, numbers in their formats', async () => {
    const r = await s.api('GET', report('report.pivot'), { accept: 'text/html' });
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/<table class="pivot">/);
    expect(r.text).toMatch(/<tr class="sub">/);
    expect(r.text).toMatch(/<tr class="total">/);
    expect(r.text).toMatch(/<th[^>]*class="[^"]*total[^"]*"[^>]*>Total<\/th>/);
    expect(r.text).toMatch(/\d+\.\d min</);
  });

  it('downloads (XLSX, CSV) the pivot as shown: a header row, a row per line with its totals', async () => {
    const p = (await s.api('GET', report('report.pivot'), json)).json.pivot as Any;
    const xlsx = await fetch(`${s.url}/api/v1${report('report.pivot', '?format=xlsx')}`, {
      headers: { authorization: `Bearer ${await s.token(ADMIN)}` },
    });
    expect(xlsx.status).toBe(200);
    const sheet = sheetRows(
      unzip(Buffer.from(await xlsx.arrayBuffer())).get('xl/worksheets/sheet1.xml')!,
    );
    expect(sheet).toHaveLength(1 + p.lines.length);
    expect(sheet[0]!.slice(0, 2)).toEqual(['Origin Region', 'Carrier Name']);
    expect(sheet[0]!.slice(-2)).toEqual(['Total · Average Delay', 'Total · Flights Flown']);
    // The grand total line: its label, then each cell as a number (the AVG at that grain).
    const total = p.lines.at(-1);
    expect(sheet.at(-1)![0]).toBe('Total');
    expect(sheet.at(-1)!.slice(-2)).toEqual(total.cells.at(-1));
    const sub = p.lines.findIndex((l: Any) => l.level === 1);
    expect(sheet[1 + sub]!.slice(0, 2)).toEqual([p.lines[sub].values[0], 'Total']);
    const csv = await s.api('GET', report('report.pivot', '?format=csv'), {});
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split(/\r?\n/)).toHaveLength(1 + p.lines.length);
  });
});

describe('an unsaved report: POST app/reports/execute', () => {
  const execute = (body: unknown, as = ADMIN) =>
    s.api('POST', `/projects/${s.demo}/app/reports/execute`, { as, body });
  const PIVOT = { type: 'pivot', rows: ['Origin Region', 'Carrier Name'], columns: 'Cancelled' };

  it('computes the pivot a saved report of the same definition has, totals and all', async () => {
    const r = await execute({ aql: PIVOT_AQL, visualization: PIVOT });
    expect(r.status, r.text).toBe(200);
    const saved = await s.api('GET', report('report.pivot'), json);
    expect(r.json.pivot).toEqual(saved.json.pivot);
    expect(r.json.report).toEqual({ visualization: PIVOT });
    expect(r.json.columns).toEqual(saved.json.columns);
    expect(r.json.rowCount).toBe(saved.json.rowCount);
  });

  it('draws the chart a saved report draws: the same spec and SVG', async () => {
    const vis = { type: 'bar', x: 'Origin Region', y: 'Flights Flown' };
    const r = await execute({ aql: 'SELECT [Origin Region], [Flights Flown]', visualization: vis });
    expect(r.status, r.text).toBe(200);
    const saved = await s.api('GET', report('report.by_region'), json);
    expect(r.json.chart.spec).toEqual(saved.json.chart.spec);
    expect(r.json.chart.svg).toBe(saved.json.chart.svg);
    const kpi = await execute({ aql: 'SELECT [Flights Flown]', visualization: { type: 'kpi' } });
    expect(kpi.json.kpi.value).toBe(
      Number((await rowsOf(s, ADMIN, 'SELECT [Flights Flown]'))[0]![0]),
    );
  });

  it("a member's pivot is over their rows only (their row filter)", async () => {
    const r = await execute({ aql: PIVOT_AQL, visualization: PIVOT }, WEST);
    expect(r.status, r.text).toBe(200);
    const p = r.json.pivot as Any;
    expect(p.lines.filter((l: Any) => l.level === 1).map((l: Any) => l.values[0])).toEqual([
      'West',
    ]);
    const [delay, flights] = (await rowsOf(s, WEST, 'SELECT [Average Delay], [Flights Flown]'))[0]!;
    const total = p.lines.at(-1).cells.at(-1);
    close(total[0], delay!);
    close(total[1], flights!);
    expect(new Set(r.json.rows.map((row: string[]) => row[0]))).toEqual(new Set(['West']));
  });

  it('refuses a bad pivot, a bad visualization and bad AQL with 400 in the error shape', async () => {
    const measure = await execute({
      aql: PIVOT_AQL,
      visualization: { type: 'pivot', rows: 'Flights Flown' },
    });
    expect(measure.status).toBe(400);
    expect(measure.json.message).toMatch(/"Flights Flown", a measure/);
    const limit = await execute({ aql: `${PIVOT_AQL} LIMIT 5`, visualization: { type: 'pivot' } });
    expect(limit.status).toBe(400);
    expect(limit.json.message).toMatch(/LIMIT/);
    const type = await execute({ aql: PIVOT_AQL, visualization: { type: 'sunburst' } });
    expect(type.status).toBe(400);
    expect(type.json.message).toMatch(/visualization\.type/);
    const missing = await execute({ aql: PIVOT_AQL });
    expect(missing.status).toBe(400);
    expect(missing.json.context.field).toBe('visualization');
    const aql = await execute({ aql: 'SELECT [Nothing Here]', visualization: { type: 'table' } });
    expect(aql.status).toBe(400);
    expect(aql.json.message).toBeTruthy();
  });
});

describe('pivot over MCP', () => {
  it('run_report gives the pivot as the REST JSON has it, for the same member', async () => {
    const c = await connectMcp(s, WEST, 'pivot-test');
    const r = (await c.callTool({
      name: 'run_report',
      arguments: { project: s.demo, report: 'report.pivot' },
    })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    const data = r.structuredContent as Any;
    expect(data.report.visualization).toBe('pivot');
    const rest = await s.api('GET', report('report.pivot'), { ...json, as: WEST });
    expect(data.pivot).toEqual(rest.json.pivot);
    await c.close();
  });
});

describe('conditional formatting', () => {
  const RULES = [
    { column: 'Flights Flown', type: 'scale', colors: ['#ffffff', '#1f5fbf'] },
    { column: 3, type: 'threshold', op: '>', value: 0, background: '#fde2e1', color: '#b3261e' },
  ];
  const AQL = 'SELECT [Carrier Name], [Flights Flown], [Total Miles]';

  it('refuses a bad colour, a bad rule and a rule on a chart with 400 naming the field', async () => {
    for (const [rules, type, field] of [
      [[{ column: 2, type: 'scale', colors: ['red', '#ffffff'] }], 'table', 'colors'],
      [[{ column: 2, type: 'scale', colors: ['#ffffff', '#ffffff;}x{'] }], 'table', 'colors'],
      [[{ column: 2, type: 'threshold', op: '>', value: 1 }], 'table', 'conditional'],
      [
        [{ column: 2, type: 'threshold', op: 'between', value: 1, color: '#000000' }],
        'table',
        'conditional',
      ],
      [RULES, 'bar', 'conditional'],
    ] as const) {
      const r = await save(`report.cf_bad_${field}_${type}`, AQL, { type, conditional: rules });
      expect(r.status, JSON.stringify(r.json)).toBe(400);
      expect(JSON.stringify(r.json)).toContain(field);
    }
  });

  it('a rule naming a column the result lacks answers 400 in the error shape', async () => {
    await save('report.cf_missing', AQL, {
      type: 'table',
      conditional: [{ column: 'Nope', type: 'scale', colors: ['#ffffff', '#000000'] }],
    });
    const r = await s.api('GET', report('report.cf_missing'), json);
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/names column "Nope"/);
    expect(r.json.context.field).toBe('visualization.conditional[0].column');
  });

  it('resolves the rules against every row, and the page colours the same cells', async () => {
    expect((await save('report.cf', AQL, { type: 'table', conditional: RULES })).status).toBe(201);
    const r = await s.api('GET', report('report.cf'), json);
    expect(r.status).toBe(200);
    const flights = (r.json.rows as Any[]).map((row) => row[1] as number);
    expect(r.json.conditional[0]).toEqual({
      column: 1,
      type: 'scale',
      colors: ['#ffffff', '#1f5fbf'],
      min: Math.min(...flights),
      max: Math.max(...flights),
    });
    expect(r.json.conditional[1]).toMatchObject({ column: 2, type: 'threshold' });
    const most = flights.indexOf(Math.max(...flights));
    expect(cellStyle(r.json.conditional, 1, flights[most])).toEqual({
      background: '#1f5fbf',
      color: '#ffffff',
    });
    const page = await s.api('GET', report('report.cf'), { accept: 'text/html' });
    // The page's CSP allows no style="": each colouring is a class of its stylesheet.
    expect(page.text).not.toMatch(/style="/);
    const css = styleCss(cellStyle(r.json.conditional, 1, flights[most]));
    const cls = new RegExp(`\\.(cf\\d+)\\{${css}\\}`).exec(page.text)?.[1];
    expect(cls).toBeDefined();
    expect(page.text).toContain(`<td class="n ${cls}">`);
    expect(page.text).toContain('color:#b3261e');

    // The XLSX keeps the colours: the same cell filled with the same colour.
    const xlsx = await fetch(`${s.url}/api/v1${report('report.cf', '?format=xlsx')}`, {
      headers: { authorization: `Bearer ${await s.token(ADMIN)}` },
    });
    const files = unzip(Buffer.from(await xlsx.arrayBuffer()));
    const styles = files.get('xl/styles.xml')!;
    const fills = [...styles.matchAll(/<fill>(.*?)<\/fill>/g)].map((m) => m[1]!);
    const xfs = [
      .../<cellXfs[^>]*>(.*?)<\/cellXfs>/.exec(styles)![1]!.matchAll(/<xf [^>]*\/>/g),
    ].map((m) => m[0]);
    const cellXml = new RegExp(`<c r="B${most + 2}" s="(\\d+)"`).exec(
      files.get('xl/worksheets/sheet1.xml')!,
    );
    const xf = xfs[Number(cellXml![1])]!;
    const fill = fills[Number(/fillId="(\d+)"/.exec(xf)![1])]!;
    expect(fill).toContain('<fgColor rgb="FF1F5FBF"/>');
    expect(styles).toContain('<color rgb="FFB3261E"/>');
  });
});
