// The Explore screen in Chromium against the real server with the demo data: a query with a
// mistake shows the error at its line and column with a fix to click; the fixed query's table
// is the REST result; completion after `[` and on a function name; CSV download; saving as a
// report drawn by the server, changing its chart, adding it to a dashboard; saving a metric;
// a plain member runs queries but is offered no saving. Plus the screen's pure helpers.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { FUNCTIONS } from '../src/engine/aql/resolve-call.js';
import { AQL_FUNCTIONS } from '../src/app/screens/explore/functions.js';
import { fixesFor, markOf, offsetAt } from '../src/app/screens/explore/fixes.js';
import { withReport } from '../src/app/screens/explore/dashboard.js';
import {
  builderModel,
  fromAql,
  nextSort,
  readableTitle,
  toAql,
  withoutColumn,
  type Built,
} from '../src/app/screens/explore/builder-aql.js';
import {
  autoChoice,
  nestedChartSource,
  nestedSpec,
} from '../src/app/screens/explore/chart-data.js';
import { formatNumber } from '../src/app/format.js';
import {
  expectOnlyRefused,
  launch,
  screenshots,
  signedIn,
  skipBrowser,
} from './helpers/app-browser.js';
import { rowsOf, waitForDemo } from './helpers/aql-demo.js';
import { sheetRows, unzip } from './helpers/xlsx.js';
import { createProject, loadDataset } from './helpers/fixtures.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'explore-member@example.com';
const MEMBER_PASSWORD = 'member-password-1';

describe('the Explore screen helpers', () => {
  it('completes exactly the functions the engine knows', () => {
    expect([...AQL_FUNCTIONS]).toEqual(FUNCTIONS);
  });

  it('turns suggestions into fixes of the text at the error', () => {
    const text = '-- c\nSELECT [Carier Name], SUMM([Distance])';
    expect(offsetAt(text, 2, 8)).toBe(12);
    expect(offsetAt(text, 3, 1)).toBeNull();
    const p = { message: 'm', line: 2, column: 8, found: '[Carier Name]' };
    expect(markOf(text, p)).toEqual({ offset: 12, length: 13 });
    const fix = (t: string, found: string, suggestions: string[], line = 1, column = 8) =>
      fixesFor(t, { message: 'm', line, column, found, suggestions }).map((f) => f.text);
    expect(fix(text, '[Carier Name]', ['Carrier Name', 'Carrier Code'], 2)).toEqual([
      '-- c\nSELECT [Carrier Name], SUMM([Distance])',
      '-- c\nSELECT [Carrier Code], SUMM([Distance])',
    ]);
    expect(fix(text, 'SUMM', ['SUM'], 2, 23)).toEqual([
      '-- c\nSELECT [Carier Name], SUM([Distance])',
    ]);
    expect(fix('SELECT TOP 5 [Origin State], COUNT([Flight])', 'TOP', ['LIMIT 5'])).toEqual([
      'SELECT [Origin State], COUNT([Flight])\nLIMIT 5',
    ]);
    expect(fix('SELECT [Origin State], COUNT(*)', '*', ['COUNT([Airport Code])'], 1, 30)).toEqual([
      'SELECT [Origin State], COUNT([Airport Code])',
    ]);
    // SQL answered with the query in AQL: that suggestion replaces the whole text.
    const sql = 'SELECT origin, SUM(distance)\nFROM flights GROUP BY origin';
    expect(fix(sql, 'FROM', ['SELECT [Origin], SUM([Distance])'], 2, 1)).toEqual([
      'SELECT [Origin], SUM([Distance])',
    ]);
    expect(
      fix(
        'SELECT [Origin], COUNT(*)',
        '*',
        ['COUNT([flights])', 'SELECT [Origin], COUNT([flights])'],
        1,
        24,
      ),
    ).toEqual(['SELECT [Origin], COUNT([flights])']);
    expect(fix('SELECT [Distance]', '[Distance]', ['SUM([Distance])'])).toEqual([
      'SELECT SUM([Distance])',
    ]);
    expect(fix('SELECT origin_state', 'origin_state', ['[Origin State]'])).toEqual([
      'SELECT [Origin State]',
    ]);
    expect(fix('SELECT [A] WHERE [B] = "delta"', '"delta"', ['Delta "Air"'], 1, 24)).toEqual([
      'SELECT [A] WHERE [B] = "Delta ""Air"""',
    ]);
    // The text changed since: no fix, and no mark past the end.
    expect(fix('SELECT [Carrier Name]', '[Carier Name]', ['Carrier Name'])).toEqual([]);
    expect(
      markOf('SELECT [Origin State], SUM([Distance]', {
        message: 'm',
        line: 1,
        column: 38,
        found: '',
      }),
    ).toEqual({ offset: 37, length: 0 });
  });

  it('appends a report to a dashboard below the laid-out and unplaced items', () => {
    const def = {
      items: [
        { id: 'a', report: 'report.a' },
        { id: 'b', report: 'report.b' },
        { id: 'x', report: 'report.x' },
      ],
      layout: [{ item: 'a', x: 0, y: 0, w: 6, h: 4 }],
      filters: [],
    };
    const next = withReport(def, 'report.x');
    expect(next.items.map((i) => i.id)).toEqual(['a', 'b', 'x', 'x_2']);
    expect(next.layout).toEqual([
      { item: 'a', x: 0, y: 0, w: 6, h: 4 },
      { item: 'b', x: 0, y: 4, w: 12, h: 5 },
      { item: 'x', x: 0, y: 9, w: 12, h: 5 },
      { item: 'x_2', x: 0, y: 14, w: 12, h: 5 },
    ]);
    expect(next.filters).toEqual([]);
    // A number (KPI) gets a small cell.
    expect(withReport({ items: [] }, 'report.kpi', { kpi: true }).layout).toEqual([
      { item: 'kpi', x: 0, y: 0, w: 3, h: 2 },
    ]);
  });
});

describe('the query builder and the chart, as pure functions', () => {
  const o = (ident: string, type: string, name: string, def = {}) => ({ ident, type, name, def });
  const m = builderModel([
    o('attr.flights.carrier', 'attribute', 'Carrier', { dataset: 'flights', dataType: 'string' }),
    o('label.carriers.name', 'label', 'Carrier Name', { dataset: 'carriers', dataType: 'string' }),
    o('attr.flights.date', 'attribute', 'Flight Date', { dataset: 'flights', dataType: 'date' }),
    o('attr.flights.at', 'attribute', 'Departed At', { dataset: 'flights', dataType: 'datetime' }),
    o('attr.flights.year', 'attribute', 'Year', { dataset: 'flights', dataType: 'integer' }),
    o('fact.flights.distance', 'fact', 'Distance', { dataset: 'flights', dataType: 'number' }),
    o('metric.n', 'metric', 'Number of Flights'),
  ]);

  it('writes AQL for what was picked and reads it back; other texts are edited by hand', () => {
    const built: Built = {
      dims: [{ ref: 'label.carriers.name' }, { ref: 'attr.flights.date', trunc: 'month' }],
      measures: [
        { kind: 'metric', ref: 'metric.n' },
        { kind: 'fact', ref: 'fact.flights.distance', agg: 'SUM' },
        { kind: 'count', dataset: 'flights' },
      ],
      filters: [
        { ref: 'label.carriers.name', values: ['Delta "Air"', 'United'] },
        { ref: 'attr.flights.year', values: ['2024'] },
        { ref: 'attr.flights.date', period: 'last7' },
        { ref: 'attr.flights.date', period: 'month' },
        { ref: 'attr.flights.at', period: 'between', from: '2024-01-01', to: '2024-01-31' },
      ],
    };
    const aql = toAql(m, built);
    expect(aql).toBe(
      'SELECT [Carrier Name], DATE_TRUNC("month", [Flight Date]) AS "Flight Date (month)", ' +
        '[Number of Flights], SUM([Distance]) AS "Sum of Distance", COUNT([dataset.flights]) AS "Count of flights"\n' +
        'WHERE [Carrier Name] IN ("Delta ""Air""", "United")\n' +
        '  AND [Year] = 2024\n' +
        '  AND [Flight Date] BETWEEN DATE_ADD("day", -6, TODAY()) AND TODAY()\n' +
        '  AND DATE_TRUNC("month", [Flight Date]) = DATE_TRUNC("month", TODAY())\n' +
        '  AND DATE_TRUNC("day", [Departed At]) BETWEEN "2024-01-01" AND "2024-01-31"',
    );
    expect(fromAql(m, aql)).toEqual(built);
    // Written by hand in the same shape (identifiers, any case, aliases): it is read too.
    expect(
      fromAql(
        m,
        'select [label.carriers.name] as "Who", avg([distance]) AS "Miles" where [carrier] = "DL"',
      ),
    ).toEqual({
      dims: [{ ref: 'label.carriers.name', alias: 'Who' }],
      measures: [{ kind: 'fact', ref: 'fact.flights.distance', agg: 'AVG', alias: 'Miles' }],
      filters: [{ ref: 'attr.flights.carrier', values: ['DL'] }],
    });
    for (const hand of [
      'SELECT [Carrier Name], SUM([Distance]) ORDER BY SUM([Distance]) DESC',
      'SELECT [Carrier Name], SUM([Distance]) ORDER BY 3',
      'SELECT [Carrier Name] LIMIT 0',
      'SELECT [Carrier Name] WHERE [Carrier Name] ILIKE "Del%"',
      'SELECT [Carrier Name] WHERE [Carrier Name] > 5',
      'SELECT [Carrier Name] WHERE [Distance] = 5',
      'SELECT [Carrier Name] WHERE DATE_TRUNC("month", [Flight Date]) = DATE_TRUNC("month", DATE_ADD("year", -1, TODAY()))',
      'SELECT [Carrier Name] -- who',
      'SELECT [Distance]',
      'SELECT [Carrier Name] WHERE [Flight Date] = "2024-01-01"',
      'SELECT SUM([Distance]) / 2',
      'SELECT [Nothing]',
    ])
      expect(fromAql(m, hand), hand).toBeNull();
    expect(toAql(m, { measures: [], dims: [], filters: [] })).toBe('');
  });

  it('keeps a formula as written under its name, beside the items it knows', () => {
    const built: Built = {
      dims: [{ ref: 'attr.flights.carrier' }],
      measures: [
        { kind: 'count', dataset: 'flights' },
        {
          kind: 'formula',
          aql: 'SUM([Distance]) / COUNT([dataset.flights])',
          alias: 'Per "flight"',
        },
        { kind: 'formula', aql: 'ROUND(AVG([Distance]), 1)', alias: 'Avg' },
      ],
      filters: [],
      sort: { col: 3, desc: true },
    };
    const aql = toAql(m, built);
    expect(aql).toBe(
      'SELECT [Carrier], COUNT([dataset.flights]) AS "Count of flights", ' +
        'SUM([Distance]) / COUNT([dataset.flights]) AS "Per ""flight""", ' +
        'ROUND(AVG([Distance]), 1) AS "Avg"\nORDER BY 3 DESC',
    );
    expect(fromAql(m, aql)).toEqual(built);
    // A known item that goes on into an expression is a formula too.
    expect(fromAql(m, 'SELECT SUM([Distance]) * 2 AS "Twice"')?.measures).toEqual([
      { kind: 'formula', aql: 'SUM([Distance]) * 2', alias: 'Twice' },
    ]);
    // Without a name, unbalanced, or with a comment: edited by hand.
    for (const hand of [
      'SELECT SUM([Distance]) * 2',
      'SELECT (SUM([Distance]) AS "x"',
      'SELECT SUM([Distance]) AS "x" -- note',
      'SELECT AS "x"',
    ])
      expect(fromAql(m, hand), hand).toBeNull();
  });

  it('writes and reads the sort, the top N, number and text filters and the calendar periods', () => {
    const built: Built = {
      dims: [{ ref: 'attr.flights.carrier' }],
      measures: [{ kind: 'fact', ref: 'fact.flights.distance', agg: 'SUM' }],
      filters: [
        { ref: 'fact.flights.distance', cmp: '>', value: '500' },
        { ref: 'fact.flights.distance', cmp: 'between', from: '-1.5', to: '2000' },
        { ref: 'attr.flights.year', cmp: '<=', value: '2024' },
        { ref: 'label.carriers.name', contains: 'air "x"' },
        { ref: 'label.carriers.name', contains: 'south', not: true },
        { ref: 'attr.flights.carrier', values: ['DL'], not: true },
        { ref: 'attr.flights.carrier', values: ['AA', 'UA'], not: true },
        { ref: 'attr.flights.date', period: 'week' },
        { ref: 'attr.flights.date', period: 'quarter' },
        { ref: 'attr.flights.date', period: 'ytd' },
        { ref: 'attr.flights.at', period: 'prevyear' },
      ],
      sort: { col: 2, desc: true },
      limit: 10,
    };
    const aql = toAql(m, built);
    expect(aql).toBe(
      'SELECT [Carrier], SUM([Distance]) AS "Sum of Distance"\n' +
        'WHERE [Distance] > 500\n' +
        '  AND [Distance] BETWEEN -1.5 AND 2000\n' +
        '  AND [Year] <= 2024\n' +
        '  AND [Carrier Name] ILIKE "%air ""x""%"\n' +
        '  AND [Carrier Name] NOT ILIKE "%south%"\n' +
        '  AND [Carrier] <> "DL"\n' +
        '  AND [Carrier] NOT IN ("AA", "UA")\n' +
        '  AND DATE_TRUNC("week", [Flight Date]) = DATE_TRUNC("week", TODAY())\n' +
        '  AND DATE_TRUNC("quarter", [Flight Date]) = DATE_TRUNC("quarter", TODAY())\n' +
        '  AND [Flight Date] BETWEEN DATE_TRUNC("year", TODAY()) AND TODAY()\n' +
        '  AND DATE_TRUNC("year", [Departed At]) = DATE_TRUNC("year", DATE_ADD("year", -1, TODAY()))\n' +
        'ORDER BY 2 DESC\n' +
        'LIMIT 10',
    );
    expect(fromAql(m, aql)).toEqual(built);
    // Incomplete filters are not written; the sort follows its column when one is removed.
    const half: Built = {
      dims: [{ ref: 'attr.flights.carrier' }],
      measures: [{ kind: 'count', dataset: 'flights' }],
      filters: [
        { ref: 'fact.flights.distance', cmp: '>', value: '' },
        { ref: 'fact.flights.distance', cmp: 'between', from: '1', to: 'x' },
        { ref: 'label.carriers.name', contains: ' ' },
      ],
      sort: { col: 2, desc: false },
    };
    expect(toAql(m, half)).toBe(
      'SELECT [Carrier], COUNT([dataset.flights]) AS "Count of flights"\nORDER BY 2',
    );
    expect(withoutColumn(half, 1).sort).toEqual({ col: 1, desc: false });
    expect(withoutColumn(half, 2).sort).toBeUndefined();
    // A click on a column: largest first, then smallest first, then as the data comes.
    expect(nextSort(undefined, 2)).toEqual({ col: 2, desc: true });
    expect(nextSort({ col: 2, desc: true }, 2)).toEqual({ col: 2, desc: false });
    expect(nextSort({ col: 2, desc: false }, 2)).toBeUndefined();
    expect(nextSort({ col: 2, desc: false }, 1)).toEqual({ col: 1, desc: true });
  });

  it('charts a NEST result by its nested rows under their result row, without the repeated totals', () => {
    const columns = [
      { title: 'Region', kind: 'dimension' as const, dataType: 'string' },
      { title: 'Flights', kind: 'measure' as const, dataType: 'number' },
      {
        title: 'Top',
        kind: 'measure' as const,
        dataType: 'nested',
        columns: [
          { title: 'State', kind: 'dimension' as const, dataType: 'string' },
          { title: 'Flights', kind: 'measure' as const, dataType: 'number' },
        ],
      },
    ];
    const rows = [
      ['West', '30', '[{"State":"CA","Flights":20},{"State":"WA","Flights":10}]'],
      ['South', '5', '[]'],
    ];
    const src = nestedChartSource(columns, rows)!;
    expect(src.columns.map((c) => c.title)).toEqual(['Region', 'State', 'Flights']);
    expect(src.rows).toEqual([
      ['West', 'CA', '20'],
      ['West', 'WA', '10'],
    ]);
    expect(nestedSpec(src, 'bar')).toMatchObject({
      mark: 'bar',
      x: { title: 'Region · State', type: 'nominal' },
      y: [{ title: 'Flights', type: 'quantitative' }],
      data: [
        ['West · CA', '20'],
        ['West · WA', '10'],
      ],
    });
    expect(autoChoice(columns, rows)).toBe('bar');
    expect(nestedChartSource(columns.slice(0, 2), rows)).toBeNull();
  });

  it('picks the chart by the columns: a number, bars, a line over dates, a table for a listing', () => {
    const dim = (title: string, dataType = 'string') => ({
      title,
      kind: 'dimension' as const,
      dataType,
    });
    const mea = (title: string) => ({ title, kind: 'measure' as const, dataType: 'number' });
    expect(autoChoice([mea('Flights')], [['12']])).toBe('kpi');
    const years = [dim('Year', 'integer'), mea('Flights')];
    expect(
      autoChoice(years, [
        ['2001', '5'],
        ['2002', '7'],
      ]),
    ).toBe('bar');
    const monthly = [dim('Month', 'date'), mea('Flights'), mea('Miles')];
    expect(autoChoice(monthly, [['2024-01-01', '5', '6']])).toBe('bar');
    expect(
      autoChoice(monthly, [
        ['2024-01-01', '5', '6'],
        ['2024-02-01', '7', '8'],
      ]),
    ).toBe('line');
    expect(autoChoice([dim('Carrier')], [['DL']])).toBe('table');
    // A listing of records (a dataset's primary key among the columns: "see the rows behind
    // it") is a table, though it has a measure (a fact's SUM per key).
    const listing = [dim('Flight'), dim('Origin Region'), mea('Distance')];
    const key = { type: 'attribute', name: 'Flight', def: { primaryKey: true } };
    const rows = [
      ['1', 'West', '300'],
      ['2', 'West', '500'],
    ];
    expect(autoChoice(listing, rows, [key])).toBe('table');
    expect(autoChoice(listing, rows, [{ ...key, def: {} }])).toBe('bar');
    // More rows than a chart takes: a table.
    const many = Array.from({ length: 1001 }, (_, i) => [`c${i}`, '1']);
    expect(autoChoice([dim('C'), mea('N')], many)).toBe('table');
    expect(formatNumber('1588368')).toBe('1,588,368');
    expect(formatNumber('12.345')).toBe('12.35');
    expect(readableTitle('COUNT([Flight])')).toBe('Count of Flight');
    expect(readableTitle('avg( [Departure Delay] )')).toBe('Average of Departure Delay');
    expect(readableTitle('COUNT([dataset.flights])')).toBe('Count of flights');
    expect(readableTitle('SUM([Distance]) / 2')).toBe('SUM([Distance]) / 2');
  });
});

describe.skipIf(skipBrowser)('the Explore screen in the browser', () => {
  let s: TestServer;
  let browser: Browser;
  let explore: string;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    explore = `/app/p/${s.demo}/explore`;
    await invite(s, s.demo, MEMBER);
    await s.engine.accounts.setPassword(MEMBER, MEMBER_PASSWORD);
    const [, b] = await Promise.all([waitForDemo(s), launch()]);
    browser = b;
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: [
        {
          ident: 'report.ops_delays',
          type: 'report',
          name: 'Delays by region',
          def: {
            aql: 'SELECT [Origin Region], AVG([Departure Delay])',
            visualization: { type: 'bar' },
          },
        },
        {
          ident: 'dashboard.ops',
          type: 'dashboard',
          name: 'Operations',
          def: {
            items: [{ id: 'delays', report: 'report.ops_delays' }],
            layout: [{ item: 'delays', x: 0, y: 0, w: 6, h: 4 }],
          },
        },
      ],
    });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const editor = (page: Page) => page.getByRole('textbox', { name: 'Query' });
  const tableRows = (page: Page) =>
    page
      .locator('.explore-result tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
  /** Rows as the table shows them: the measures (these columns) in the app's number format. */
  const asShown = (rows: string[][], measures = [1]) =>
    rows.map((r) => r.map((c, j) => (measures.includes(j) && c ? formatNumber(c) : c)));
  /** Explore's chart picker, and the live chart's marks (the shared renderer's SVG). */
  const chartPick = (page: Page) =>
    page.locator('.explore-chart').getByLabel('Chart', { exact: true });
  const canvas = (page: Page) => page.locator('.explore-chart .chart-canvas svg');
  /** The first series' bars (its colour in the light theme; dark: #6d9cf0). */
  const bars = (page: Page, fill = '#2f6fde') => canvas(page).locator(`path[fill="${fill}"]`);
  const chartTexts = (page: Page) => canvas(page).locator('text').allTextContents();
  /** Waits for a result with these column titles. */
  const columns = (page: Page, titles: string[]) =>
    expect
      .poll(() => page.locator('.explore-result th').allTextContents(), { timeout: 20_000 })
      .toEqual(titles);

  it('shows an error where it is, fixes it, runs, completes, downloads, saves and adds to a dashboard', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, explore);
    try {
      await page.getByRole('heading', { name: 'Explore' }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Project' });
      await nav.getByRole('link', { name: 'Explore' }).waitFor();

      // A mistake on line 2: the message, the mark at line 2, column 8, and the fixes.
      const wrong =
        '-- miles by carrier\nSELECT [Carier Name], SUM([Distance]) AS "Miles"\nORDER BY 2 DESC';
      await editor(page).fill(wrong);
      await editor(page).press('Control+Enter');
      const alert = page.getByRole('alert');
      await alert
        .getByText('unknown object [Carier Name]; did you mean [Carrier Name], [Carrier Code]?')
        .waitFor();
      const mark = page.locator('.aql-mark');
      expect(await mark.textContent()).toBe('[Carier Name]');
      expect(await mark.getAttribute('data-line')).toBe('2');
      expect(await mark.getAttribute('data-column')).toBe('8');
      expect(await page.locator('.aql-gutter .err').textContent()).toBe('2');
      expect(await editor(page).getAttribute('aria-invalid')).toBe('true');
      // The mark sits over the text it marks: 7 characters into the second line.
      const [box, area] = await Promise.all([mark.boundingBox(), editor(page).boundingBox()]);
      const { ch, pad, padTop, lh } = (await page.evaluate(`(() => {
        const m = document.querySelector('.aql-mark');
        const s = getComputedStyle(document.querySelector('#aql'));
        return {
          ch: m.getBoundingClientRect().width / m.textContent.length,
          pad: parseFloat(s.paddingLeft),
          padTop: parseFloat(s.paddingTop),
          lh: parseFloat(s.lineHeight),
        };
      })()`)) as { ch: number; pad: number; padTop: number; lh: number };
      expect(Math.abs(box!.x - (area!.x + pad + 7 * ch))).toBeLessThan(1.5);
      expect(Math.abs(box!.y - (area!.y + padTop + lh))).toBeLessThan(lh / 2);
      await screenshots(page, 'explore-error');

      // Go to the error selects it; the fix rewrites it.
      await alert.getByRole('button', { name: 'Go to line 2, column 8' }).click();
      expect(
        await page.evaluate(
          `(() => { const t = document.querySelector('#aql'); return t.value.slice(t.selectionStart, t.selectionEnd); })()`,
        ),
      ).toBe('[Carier Name]');
      await alert
        .getByRole('button', { name: 'Replace [Carier Name] with [Carrier Name]' })
        .click();
      const fixed = wrong.replace('[Carier Name]', '[Carrier Name]');
      expect(await editor(page).inputValue()).toBe(fixed);
      expect(await page.locator('.aql-mark').count()).toBe(0);

      // Run: the table is the REST result.
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.locator('.explore-result tbody tr').first().waitFor();
      expect(await page.getByRole('alert').count()).toBe(0);
      const expected = await rowsOf(s, ADMIN, fixed);
      expect(expected.length).toBeGreaterThan(3);
      expect(await page.locator('.explore-result th').allTextContents()).toEqual([
        'Carrier Name',
        'Miles',
      ]);
      expect(await tableRows(page)).toEqual(asShown(expected));
      expect(new URL(page.url()).searchParams.get('aql')).toBe(fixed);

      // The CSV is the same result.
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download CSV' }).click(),
      ]);
      // Named by what it shows.
      expect(file.suggestedFilename()).toBe('Miles by Carrier Name.csv');
      const csv = fs
        .readFileSync((await file.path())!, 'utf8')
        .trim()
        .split(/\r?\n/);
      expect(csv).toEqual(['Carrier Name,Miles', ...expected.map((r) => r.join(','))]);
      // And the XLSX: the same rows, the measure as a number in a number format.
      const [book] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download XLSX' }).click(),
      ]);
      expect(book.suggestedFilename()).toBe('Miles by Carrier Name.xlsx');
      const files = unzip(fs.readFileSync((await book.path())!));
      expect(sheetRows(files.get('xl/worksheets/sheet1.xml')!)).toEqual([
        ['Carrier Name', 'Miles'],
        ...expected.map(([name, miles]) => [name, Number(miles)]),
      ]);
      expect(files.get('xl/styles.xml')).toContain('<xf numFmtId="3"');

      // Completion: objects after `[`, functions on a word; arrows, Enter, Tab, Escape.
      await editor(page).fill('');
      await editor(page).pressSequentially('SELECT [Carr');
      const list = page.getByRole('listbox', { name: 'Suggestions' });
      await list.waitFor();
      expect(await list.getByRole('option').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('Carrier Name')]),
      );
      for (let i = 0; i < 5; i++) {
        const active = list.locator('[aria-selected=true]');
        if ((await active.textContent())?.includes('Carrier Name')) break;
        await editor(page).press('ArrowDown');
      }
      await screenshots(page, 'explore-complete');
      const activeId = await list.locator('[aria-selected=true]').getAttribute('id');
      expect(await editor(page).getAttribute('aria-activedescendant')).toBe(activeId);
      await editor(page).press('Enter');
      expect(await editor(page).inputValue()).toBe('SELECT [Carrier Name]');
      await list.waitFor({ state: 'hidden' });
      await editor(page).pressSequentially(', su');
      await list.getByRole('option', { name: /^SUM/ }).waitFor();
      while (!(await list.locator('[aria-selected=true]').textContent())?.startsWith('SUM'))
        await editor(page).press('ArrowDown');
      await editor(page).press('Tab');
      expect(await editor(page).inputValue()).toBe('SELECT [Carrier Name], SUM(');
      await editor(page).pressSequentially('[Passen');
      await list.getByRole('option', { name: /^Passengers/ }).waitFor();
      await editor(page).press('Escape');
      await list.waitFor({ state: 'hidden' });
      await editor(page).pressSequentially('g');
      await list.waitFor();
      await editor(page).press('Enter');
      await editor(page).pressSequentially(')');
      const completed = 'SELECT [Carrier Name], SUM([Passengers])';
      expect(await editor(page).inputValue()).toBe(completed);
      await editor(page).press('Control+Enter');
      // A column the engine titles with its AQL reads in words (the AQL is its tooltip).
      await columns(page, ['Carrier Name', 'Sum of Passengers']);
      expect(await page.locator('.explore-result th').nth(1).getAttribute('title')).toBe(
        'SUM([Passengers])',
      );
      expect(await tableRows(page)).toEqual(asShown(await rowsOf(s, ADMIN, completed)));

      // Save as a bar chart report: the server draws it.
      const saveReport = page.getByRole('form', { name: 'Save as report' });
      await saveReport.getByLabel('Report name').fill('Passengers by carrier');
      await saveReport.getByLabel('Visualization').selectOption('bar');
      await saveReport.getByRole('button', { name: 'Save report' }).click();
      const drawn = page.getByRole('region', { name: 'Report “Passengers by carrier”' });
      const img = drawn.getByRole('img');
      await img.waitFor();
      const barSrc = await img.getAttribute('src');
      expect(barSrc).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
      expect(await img.getAttribute('alt')).toMatch(/^Bar chart of Passengers by carrier/);
      expect(
        await img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth),
      ).toBeGreaterThan(0);
      const ident = 'report.passengers_by_carrier';
      let obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`);
      expect(obj.status, obj.text).toBe(200);
      expect(obj.json.object.def).toEqual({ aql: completed, visualization: { type: 'bar' } });

      // Another chart type: the report changes and is drawn again.
      await drawn.getByLabel('Visualization').selectOption('line');
      await expect.poll(() => img.getAttribute('src'), { timeout: 20_000 }).not.toBe(barSrc);
      expect(await img.getAttribute('alt')).toMatch(/^Line chart/);
      obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`);
      expect(obj.json.object.def.visualization).toEqual({ type: 'line' });

      // Add it to the dashboard: one more item, laid out below the other.
      await drawn.getByLabel('Dashboard', { exact: true }).selectOption('dashboard.ops');
      await drawn.getByRole('button', { name: 'Add to dashboard' }).click();
      await drawn.getByRole('status').getByText('Added to').waitFor();
      const board = await s.api('GET', `/projects/${s.demo}/pmd/obj/dashboard.ops`);
      expect(board.json.object.def.items).toEqual([
        { id: 'delays', report: 'report.ops_delays' },
        { id: 'passengers_by_carrier', report: ident },
      ]);
      expect(board.json.object.def.layout).toEqual([
        { item: 'delays', x: 0, y: 0, w: 6, h: 4 },
        { item: 'passengers_by_carrier', x: 0, y: 4, w: 12, h: 5 },
      ]);
      const page2 = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.ops`);
      expect(page2.json.items.map((i: { report: string }) => i.report)).toEqual([
        'report.ops_delays',
        ident,
      ]);
      // The list of dashboards is read again after the add: polled.
      await expect
        .poll(() =>
          drawn.getByLabel('Dashboard', { exact: true }).locator('option:checked').textContent(),
        )
        .toBe('Operations (2 items)');
      await screenshots(page, 'explore');
      // Or to a new dashboard holding just it.
      await drawn
        .getByLabel('Dashboard', { exact: true })
        .selectOption({ label: 'A new dashboard…' });
      await drawn.getByLabel('New dashboard name').fill('Carrier board');
      await drawn.getByRole('button', { name: 'Add to dashboard' }).click();
      await drawn.getByRole('link', { name: 'Carrier board' }).waitFor();
      const created = await s.api('GET', `/projects/${s.demo}/pmd/obj/dashboard.carrier_board`);
      expect(created.status, created.text).toBe(200);
      expect(created.json.object.def).toMatchObject({
        items: [{ id: 'passengers_by_carrier', report: ident }],
        layout: [{ item: 'passengers_by_carrier', x: 0, y: 0, w: 12, h: 5 }],
      });

      // A single-measure query saves as a metric, which completion then offers.
      await editor(page).fill('SELECT SUM([Passengers]) WHERE [Distance] > 1000');
      await editor(page).press('Control+Enter');
      await columns(page, ['Sum of Passengers']);
      // The saved report stays open for saving the changed query, until closed.
      await page.getByRole('button', { name: 'Close the report' }).click();
      expect(await page.getByRole('region', { name: /^Report/ }).count()).toBe(0);
      const saveMetric = page.getByRole('form', { name: 'Save as metric' });
      await saveMetric.getByLabel('Metric name').fill('Long Haul Travellers');
      await saveMetric.getByLabel('Number format (optional)').fill('#,##0');
      await saveMetric.getByRole('button', { name: 'Save metric' }).click();
      await saveMetric.getByRole('status').getByText('[Long Haul Travellers]').waitFor();
      const metric = await s.api('GET', `/projects/${s.demo}/pmd/obj/metric.long_haul_travellers`);
      expect(metric.json.object.def).toEqual({
        aql: 'SELECT SUM([Passengers]) WHERE [Distance] > 1000',
        format: '#,##0',
      });
      await editor(page).fill('SELECT [Long Haul');
      await editor(page).press('End');
      await page.getByRole('option', { name: /Long Haul Travellers/ }).waitFor();

      // Chromium logs every 4xx answer: the one is the deliberate mistake's 400.
      expect(problems).toEqual([
        'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
      ]);
    } finally {
      await close();
    }
  }, 60_000);

  it('builds a query by clicking: measures, breakdowns, values from a list, date ranges; a chart of every result', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    try {
      const builder = page.getByRole('region', { name: 'Build' });
      await builder.getByRole('combobox', { name: 'Add a measure' }).waitFor();
      const add = (name: string, label: string) =>
        builder.getByRole('combobox', { name }).selectOption({ label });
      /** Waits for the editor's text and its result, then checks the table is the REST's. */
      const ran = async (aql: string, titles: string[], measures: number[]) => {
        await expect.poll(() => editor(page).inputValue()).toBe(aql);
        await columns(page, titles);
        await expect
          .poll(async () => tableRows(page))
          .toEqual(asShown(await rowsOf(s, MEMBER, aql), measures));
        expect(await page.getByRole('alert').count()).toBe(0);
      };

      // One measure: one number, no raw AQL as its title.
      await add('Add a measure', 'Count of flights');
      const count = 'COUNT([dataset.flights]) AS "Count of flights"';
      await ran(`SELECT ${count}`, ['Count of flights'], [0]);
      const chart = page.locator('.explore-chart');
      await expect.poll(() => chartPick(page).inputValue()).toBe('kpi');
      const flights = (await rowsOf(s, MEMBER, `SELECT ${count}`))[0]![0]!;
      await chart.locator('.kpi-value').getByText(formatNumber(flights)).waitFor();

      // By an attribute: bars, one per row, level labels.
      await add('Add a breakdown', 'Origin Region');
      const byRegion = `SELECT [Origin Region], ${count}`;
      await ran(byRegion, ['Origin Region', 'Count of flights'], [1]);
      expect(await chartPick(page).inputValue()).toBe('bar');
      const rows = (await rowsOf(s, MEMBER, byRegion)).length;
      await expect.poll(() => bars(page).count()).toBe(rows);
      // Level labels: every region under its bar.
      const regions = (await rowsOf(s, MEMBER, byRegion)).map((r) => r[0]!);
      await expect.poll(() => chartTexts(page)).toEqual(expect.arrayContaining(regions));
      // A second measure of another magnitude: a line on a second axis, named on the right.
      await add('Add a measure', 'Sum of Distance');
      const two = `${byRegion}, SUM([Distance]) AS "Sum of Distance"`;
      await ran(two, ['Origin Region', 'Count of flights', 'Sum of Distance'], [1, 2]);
      await expect
        .poll(async () => (await chartTexts(page)).filter((t) => t === 'Sum of Distance').length)
        .toBe(2); // the legend and the right axis
      await screenshots(page, 'explore-builder');
      // Switched by the reader: a line (no bars left).
      await chartPick(page).selectOption('line');
      await expect.poll(() => bars(page).count()).toBe(0);
      await expect.poll(() => chartTexts(page)).toContain('Count of flights');
      await builder.getByRole('button', { name: 'Remove Sum of Distance' }).click();
      await ran(byRegion, ['Origin Region', 'Count of flights'], [1]);

      // A filter by values picked from the list, searched by their start.
      await add('Add a filter on', 'Carrier Name');
      const filter = builder.getByRole('group', { name: 'Filter on Carrier Name' });
      await filter.getByRole('searchbox', { name: 'Search values of Carrier Name' }).fill('del');
      await filter.getByRole('checkbox', { name: /^Delta Air Lines/ }).check();
      const delta = `${byRegion}\nWHERE [Carrier Name] = "Delta Air Lines"`;
      await ran(delta, ['Origin Region', 'Count of flights'], [1]);
      await filter.getByRole('searchbox').fill('uni');
      await filter.getByRole('checkbox', { name: /^United Airlines/ }).check();
      const both = `${byRegion}\nWHERE [Carrier Name] IN ("Delta Air Lines", "United Airlines")`;
      await ran(both, ['Origin Region', 'Count of flights'], [1]);

      // A date range: relative ones compile and run; between two dates.
      await add('Add a filter on', 'Flight Date');
      const period = builder.getByLabel('Period of Flight Date');
      const dated = (cond: string) => `${both}\n  AND ${cond}`;
      await ran(
        dated('[Flight Date] BETWEEN DATE_ADD("day", -29, TODAY()) AND TODAY()'),
        ['Origin Region', 'Count of flights'],
        [1],
      );
      for (const [label, cond] of <[string, string][]>[
        ['Last 90 days', '[Flight Date] BETWEEN DATE_ADD("day", -89, TODAY()) AND TODAY()'],
        ['This month', 'DATE_TRUNC("month", [Flight Date]) = DATE_TRUNC("month", TODAY())'],
        ['This year', 'DATE_TRUNC("year", [Flight Date]) = DATE_TRUNC("year", TODAY())'],
      ]) {
        await period.selectOption({ label });
        await expect.poll(() => editor(page).inputValue()).toBe(dated(cond));
        await expect.poll(() => page.getByRole('status').getByText('Running…').count()).toBe(0);
        expect(await page.getByRole('alert').count()).toBe(0);
      }
      await period.selectOption({ label: 'Between two dates' });
      await builder.getByLabel('From').fill('2024-01-01');
      await builder.getByLabel('To').fill('2024-01-31');
      const january = dated('[Flight Date] BETWEEN "2024-01-01" AND "2024-01-31"');
      await ran(january, ['Origin Region', 'Count of flights'], [1]);
      expect((await tableRows(page)).length).toBeGreaterThan(0);

      // The editor's text shows in the builder when it fits; otherwise it says so.
      await editor(page).fill('SELECT [Origin State], AVG([Distance]) AS "Miles"');
      await builder.getByRole('button', { name: 'Remove Origin State' }).waitFor();
      await builder.getByRole('button', { name: 'Remove Miles' }).waitFor();
      await editor(page).fill('SELECT [Origin State], AVG([Distance]) ORDER BY AVG([Distance])');
      await builder.getByText(/^Edited by hand/).waitFor();

      // A phone gets a phone chart: bars across, nothing wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await builder.getByRole('button', { name: 'Start over with the builder' }).click();
      await add('Add a breakdown', 'Carrier Name');
      await add('Add a measure', 'Count of flights');
      await columns(page, ['Carrier Name', 'Count of flights']);
      const svg = canvas(page);
      const carriers = (
        await rowsOf(s, MEMBER, 'SELECT [Carrier Name], COUNT([dataset.flights])')
      ).map((r) => r[0]!);
      await expect.poll(() => bars(page).count()).toBe(carriers.length);
      expect(Number(await svg.getAttribute('width'))).toBeLessThanOrEqual(390);
      // Every carrier's name is on the axis (slanted where they do not fit level).
      await expect.poll(() => chartTexts(page)).toEqual(expect.arrayContaining(carriers));
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  it('sorts by a click on a column or a pick, keeps the top N, filters numbers and text, offers calendar periods and formulas, and saves the chart shown', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    try {
      const builder = page.getByRole('region', { name: 'Build' });
      await builder.getByRole('combobox', { name: 'Add a measure' }).waitFor();
      const add = (name: string, label: string) =>
        builder.getByRole('combobox', { name }).selectOption({ label });
      const ran = async (aql: string, measures = [1]) => {
        await expect.poll(() => editor(page).inputValue()).toBe(aql);
        await expect
          .poll(async () => tableRows(page))
          .toEqual(asShown(await rowsOf(s, ADMIN, aql), measures));
        expect(await page.getByRole('alert').count()).toBe(0);
      };
      const count = 'COUNT([dataset.flights]) AS "Count of flights"';
      await add('Add a breakdown', 'Carrier Name');
      await add('Add a measure', 'Count of flights');
      const base = `SELECT [Carrier Name], ${count}`;
      await ran(base);

      // A click on a column's title: largest first, again: smallest first, again: unsorted.
      const head = page.locator('.explore-result thead');
      await head.getByRole('button', { name: 'Count of flights' }).click();
      await ran(`${base}\nORDER BY 2 DESC`);
      expect(await head.locator('th').nth(1).getAttribute('aria-sort')).toBe('descending');
      await head.getByRole('button', { name: 'Count of flights' }).click();
      await ran(`${base}\nORDER BY 2`);
      expect(await head.locator('th').nth(1).getAttribute('aria-sort')).toBe('ascending');
      await head.getByRole('button', { name: 'Count of flights' }).click();
      await ran(base);
      // Or picked in the builder, with a top N.
      await builder
        .getByLabel('Sort by')
        .selectOption({ label: 'Count of flights, largest first' });
      await ran(`${base}\nORDER BY 2 DESC`);
      await builder.getByLabel('Show only the first N rows').fill('3');
      await builder.getByLabel('Show only the first N rows').press('Tab');
      const top3 = `${base}\nORDER BY 2 DESC\nLIMIT 3`;
      await ran(top3);
      expect((await tableRows(page)).length).toBe(3);
      await screenshots(page, 'explore-builder-sort');

      // A number filter: greater than, then between.
      await add('Add a filter on', 'Distance');
      const distance = builder.getByRole('group', { name: 'Filter on Distance' });
      await distance.getByLabel('Number').fill('1000');
      await distance.getByLabel('Number').press('Tab');
      const far = `${base}\nWHERE [Distance] > 1000\nORDER BY 2 DESC\nLIMIT 3`;
      await ran(far);
      await distance.getByLabel('Distance is').selectOption({ label: 'between' });
      await distance.getByLabel('To').fill('2000');
      await distance.getByLabel('To').press('Tab');
      const between = `${base}\nWHERE [Distance] BETWEEN 1000 AND 2000\nORDER BY 2 DESC\nLIMIT 3`;
      await ran(between);

      // Text: contains, then does not contain.
      await add('Add a filter on', 'Carrier Name');
      const carrier = builder.getByRole('group', { name: 'Filter on Carrier Name' });
      await carrier.getByLabel('Match Carrier Name').selectOption({ label: 'contains' });
      await carrier.getByLabel('Text').fill('air');
      await carrier.getByLabel('Text').press('Tab');
      const cond = (c: string) =>
        `${base}\nWHERE [Distance] BETWEEN 1000 AND 2000\n  AND ${c}\nORDER BY 2 DESC\nLIMIT 3`;
      await ran(cond('[Carrier Name] ILIKE "%air%"'));
      const names = (await tableRows(page)).map((r) => r[0]!);
      expect(names.length).toBeGreaterThan(0);
      for (const n of names) expect(n.toLowerCase()).toContain('air');
      await carrier.getByLabel('Match Carrier Name').selectOption({ label: 'does not contain' });
      await ran(cond('[Carrier Name] NOT ILIKE "%air%"'));
      for (const [n] of await tableRows(page)) expect(n!.toLowerCase()).not.toContain('air');
      await builder.getByRole('button', { name: 'Remove the filter on Carrier Name' }).click();
      await builder.getByRole('button', { name: 'Remove the filter on Distance' }).click();
      await ran(top3);

      // The calendar periods compile and run.
      await add('Add a filter on', 'Flight Date');
      const period = builder.getByLabel('Period of Flight Date');
      const dated = (c: string) => `${base}\nWHERE ${c}\nORDER BY 2 DESC\nLIMIT 3`;
      for (const [label, c] of <[string, string][]>[
        ['This week', 'DATE_TRUNC("week", [Flight Date]) = DATE_TRUNC("week", TODAY())'],
        ['This quarter', 'DATE_TRUNC("quarter", [Flight Date]) = DATE_TRUNC("quarter", TODAY())'],
        ['Year to date', '[Flight Date] BETWEEN DATE_TRUNC("year", TODAY()) AND TODAY()'],
        [
          'Previous year',
          'DATE_TRUNC("year", [Flight Date]) = DATE_TRUNC("year", DATE_ADD("year", -1, TODAY()))',
        ],
      ]) {
        await period.selectOption({ label });
        await ran(dated(c));
      }
      await builder.getByRole('button', { name: 'Remove the filter on Flight Date' }).click();
      await ran(top3);

      // A formula, written with completion over the model, is a column of its own.
      await builder.getByText('Add a formula').click();
      await builder.getByLabel('Name', { exact: true }).fill('Miles per flight');
      const formula = builder.getByRole('textbox', { name: 'Formula' });
      await formula.pressSequentially('SUM([Dista');
      await builder
        .getByRole('option', { name: /^Distance/ })
        .first()
        .waitFor();
      await formula.press('Enter');
      await expect.poll(() => formula.inputValue()).toBe('SUM([Distance]');
      await formula.pressSequentially(') / COUNT([dataset.flights])');
      await screenshots(page, 'explore-builder-formula');
      await builder.getByRole('button', { name: 'Add the formula' }).click();
      const withFormula = `SELECT [Carrier Name], ${count}, SUM([Distance]) / COUNT([dataset.flights]) AS "Miles per flight"\nORDER BY 2 DESC\nLIMIT 3`;
      await ran(withFormula, [1, 2]);
      await columns(page, ['Carrier Name', 'Count of flights', 'Miles per flight']);
      await builder.getByRole('button', { name: 'Remove Miles per flight' }).click();
      await ran(top3);

      // The chart picked here is the one the saved report shows.
      await chartPick(page).selectOption('line');
      const saveReport = page.getByRole('form', { name: 'Save as report' });
      await expect.poll(() => saveReport.getByLabel('Visualization').inputValue()).toBe('line');
      await saveReport.getByLabel('Report name').fill('Top carriers');
      await saveReport.getByRole('button', { name: 'Save report' }).click();
      await page.getByRole('region', { name: 'Report “Top carriers”' }).getByRole('img').waitFor();
      const obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/report.top_carriers`);
      expect(obj.json.object.def).toEqual({ aql: top3, visualization: { type: 'line' } });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('shows the fields that cannot combine with the question before it runs', async () => {
    const project = await createProject(s, 'combine', 'Combine');
    await loadDataset(s, project, 'sales', 'region,amount\nEU,5\nUS,7\n', '', [
      ['region', 'A', 'string', 'Region'],
      ['amount', 'F', 'integer', 'Amount'],
    ]);
    await loadDataset(s, project, 'weather', 'city,temp\nOslo,3\n', '', [
      ['city', 'A', 'string', 'City'],
      ['temp', 'F', 'integer', 'Temperature'],
    ]);
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${project}/explore`,
    );
    page.context().setDefaultTimeout(20_000);
    try {
      const builder = page.getByRole('region', { name: 'Build' });
      const pick = (name: string) => builder.getByRole('combobox', { name });
      const option = (name: string, label: string) =>
        pick(name).locator('option', { hasText: new RegExp(`^${label}`) });
      await pick('Add a measure').selectOption({ label: 'Sum of Amount' });
      await expect.poll(() => editor(page).inputValue()).toContain('SUM([Amount])');
      // Grouped by dataset; the weather's city cannot break sales down.
      expect(
        await pick('Add a breakdown')
          .locator('optgroup')
          .evaluateAll((g) => g.map((x) => x.getAttribute('label'))),
      ).toEqual(['sales', 'weather']);
      await expect
        .poll(() => option('Add a breakdown', 'City').textContent())
        .toBe('City (cannot combine)');
      expect(await option('Add a breakdown', 'City').isDisabled()).toBe(true);
      expect(await option('Add a breakdown', 'Region').isDisabled()).toBe(false);
      expect(await option('Add a filter on', 'City').isDisabled()).toBe(true);
      // And back: with the city as the breakdown, the sales' measures cannot join.
      await builder.getByRole('button', { name: 'Remove Sum of Amount' }).click();
      await pick('Add a breakdown').selectOption({ label: 'City' });
      await expect.poll(() => option('Add a measure', 'Sum of Amount').isDisabled()).toBe(true);
      expect(await option('Add a measure', 'Sum of Temperature').isDisabled()).toBe(false);
      await screenshots(page, 'explore-builder-combine');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('opens a saved report, changes and saves it, renames it (a taken title refused at the name) and deletes it', async () => {
    const created = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: [
        {
          ident: 'report.rep_flights',
          type: 'report',
          name: 'Flights by region',
          def: {
            aql: 'SELECT [Origin Region], COUNT([dataset.flights]) AS "Flights"',
            visualization: { type: 'bar' },
          },
        },
        {
          ident: 'report.rep_miles',
          type: 'report',
          name: 'Miles by region',
          def: { aql: 'SELECT [Origin Region], SUM([Distance])', visualization: { type: 'bar' } },
        },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    const obj = async () =>
      (await s.api('GET', `/projects/${s.demo}/pmd/obj/report.rep_flights`)).json.object;
    try {
      // Opened from the list: its query in the editor, run, the address names it.
      await page.getByLabel('Open a saved report').selectOption({ label: 'Flights by region' });
      const aql = 'SELECT [Origin Region], COUNT([dataset.flights]) AS "Flights"';
      await expect.poll(() => editor(page).inputValue()).toBe(aql);
      await columns(page, ['Origin Region', 'Flights']);
      expect(new URL(page.url()).searchParams.get('report')).toBe('report.rep_flights');
      const card = page.getByRole('form', { name: 'Report “Flights by region”' });

      // Changed with the builder and saved.
      await page
        .getByRole('region', { name: 'Build' })
        .getByRole('combobox', { name: 'Add a measure' })
        .selectOption({ label: 'Sum of Distance' });
      const changed = `${aql}, SUM([Distance]) AS "Sum of Distance"`;
      await columns(page, ['Origin Region', 'Flights', 'Sum of Distance']);
      await card.getByRole('button', { name: 'Save changes' }).click();
      await card.getByRole('status').getByText('Saved.').waitFor();
      expect((await obj()).def).toEqual({ aql: changed, visualization: { type: 'bar' } });

      // A title another report holds, in any case: the API's 409 at the name field.
      const name = card.getByLabel('Name');
      await name.fill('miles BY region');
      await card.getByRole('button', { name: 'Save changes' }).click();
      const taken = card.getByRole('alert');
      await taken
        .getByText(/the title "miles BY region" is taken by report "report\.rep_miles"/)
        .waitFor();
      expect(await name.getAttribute('aria-invalid')).toBe('true');
      expect(await name.getAttribute('aria-describedby')).toBe(await taken.getAttribute('id'));
      expect((await obj()).name).toBe('Flights by region');
      await screenshots(page, 'explore-report');
      // Renamed: the list and the card follow.
      await name.fill('Flights and miles by region');
      await card.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('form', { name: 'Report “Flights and miles by region”' }).waitFor();
      expect((await obj()).name).toBe('Flights and miles by region');
      await expect
        .poll(() => page.getByLabel('Open a saved report').locator('option').allTextContents())
        .toContain('Flights and miles by region');

      // A reload opens it again; saving another report under a taken title is refused too.
      await page.reload();
      const reopened = page.getByRole('form', { name: 'Report “Flights and miles by region”' });
      await reopened.waitFor();
      expect(await editor(page).inputValue()).toBe(changed);
      const saveReport = page.getByRole('form', { name: 'Save as report' });
      await saveReport.getByLabel('Report name').fill('Miles by Region');
      await saveReport.getByRole('button', { name: 'Save report' }).click();
      await saveReport
        .getByRole('alert')
        .getByText(/is taken by report "report\.rep_miles"/)
        .waitFor();
      expect(await saveReport.getByLabel('Report name').getAttribute('aria-invalid')).toBe('true');

      // The card and its inline message fit a phone.
      await page.setViewportSize({ width: 390, height: 844 });
      // The chart follows the new width once its resize observer runs: polled, not read at once.
      await expect
        .poll(() => page.evaluate('document.documentElement.scrollWidth'))
        .toBeLessThanOrEqual(390);
      await page.setViewportSize({ width: 1280, height: 900 });

      // Deleted after a confirmation: gone from the API, the list and the screen.
      await reopened.getByRole('button', { name: 'Delete…' }).click();
      await reopened.getByRole('button', { name: 'Delete the report' }).click();
      await reopened.waitFor({ state: 'detached' });
      expect((await s.api('GET', `/projects/${s.demo}/pmd/obj/report.rep_flights`)).status).toBe(
        404,
      );
      await expect
        .poll(() => page.getByLabel('Open a saved report').locator('option').allTextContents())
        .not.toContain('Flights and miles by region');
      expect(new URL(page.url()).searchParams.get('report')).toBeNull();
      expectOnlyRefused(problems, { 409: 2 });
    } finally {
      await close();
    }
  }, 90_000);

  it('draws charts people can read: years as years, level labels, the width it has, dark mode', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    try {
      const aql = 'SELECT YEAR([Flight Date]) AS "Year", COUNT([Flight]) AS "Flights"';
      await editor(page).fill(aql);
      await editor(page).press('Control+Enter');
      await columns(page, ['Year', 'Flights']);
      const rows = await rowsOf(s, MEMBER, aql);
      const svg = canvas(page);
      await expect.poll(() => bars(page).count()).toBe(rows.length);
      // The years are the axis's labels as written (2024, not 2,024); counts grouped, no
      // year on the value axis.
      const texts = await chartTexts(page);
      expect(rows[0]![0]).toMatch(/^\d{4}$/);
      expect(texts).toEqual(expect.arrayContaining(rows.map((r) => r[0])));
      expect(texts.filter((t) => /^\d{1,3}(,\d{3})+$/.test(t))).toEqual([]);
      expect(texts).not.toContain('2,000.0');
      expect(texts).not.toContain('2,024');
      expect(await tableRows(page)).toEqual(asShown(rows));
      // Drawn for the width it has, and again when that changes.
      const wide = Number(await svg.getAttribute('width'));
      expect(wide).toBeGreaterThan(600);
      await page.setViewportSize({ width: 390, height: 844 });
      await expect.poll(async () => Number(await svg.getAttribute('width'))).toBeLessThan(390);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // The theme's colours: light, then dark (drawn again in the dark palette).
      await page.emulateMedia({ colorScheme: 'dark' });
      await expect.poll(() => bars(page, '#6d9cf0').count()).toBe(rows.length);
      expect(await bars(page).count()).toBe(0);
      await screenshots(page, 'explore-chart-dark');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows a NEST column as a small table of its rows in each result row, and charts the nested rows', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    try {
      const aql =
        'SELECT [Origin Region], COUNT([Flight]) AS "Flights", NEST(SELECT [Origin State], COUNT([Flight]) AS "Flights" ORDER BY 2 DESC LIMIT 2) AS "Top states"';
      await editor(page).fill(aql);
      await editor(page).press('Control+Enter');
      await columns(page, ['Origin Region', 'Flights', 'Top states']);
      const rows = await rowsOf(s, MEMBER, aql);
      const nested = page.locator('.explore-result table.nested');
      await expect.poll(() => nested.count()).toBe(rows.length);
      // Each nested table holds the rows of its cell: states and their counts, formatted.
      const first = JSON.parse(rows[0]![2]!) as { 'Origin State': string; Flights: number }[];
      const shown = await nested
        .first()
        .locator('tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      expect(shown).toEqual(first.map((x) => [x['Origin State'], formatNumber(String(x.Flights))]));
      expect(await nested.first().getAttribute('aria-label')).toBe('Top states');
      // The chart draws the nested rows under their region ("Midwest · IL"), not the
      // region's own flights (which repeat on every nested row).
      const labels = rows.flatMap((r) =>
        (JSON.parse(r[2]!) as { 'Origin State': string }[]).map(
          (x) => `${r[0]} · ${x['Origin State']}`,
        ),
      );
      await expect.poll(() => chartTexts(page)).toEqual(expect.arrayContaining(labels));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('opens the AQL reference as a page of the app in a new tab, keeping the query', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, explore);
    // api.md is the largest document: rendering it on a loaded 2-core machine took over 10 s.
    page.context().setDefaultTimeout(30_000);
    try {
      await page.getByRole('heading', { name: 'Explore' }).waitFor();
      await editor(page).fill('SELECT [Origin Region]');
      const [help] = await Promise.all([
        page.waitForEvent('popup'),
        page.getByRole('link', { name: 'AQL', exact: true }).click(),
      ]);
      expect(new URL(help.url()).pathname).toBe('/app/docs/aql.md');
      // Rendered, not the Markdown's text: headings, tables and code are elements.
      await help.getByRole('heading', { name: 'AQL reference', level: 1 }).waitFor();
      await help.getByRole('heading', { name: '2. References in brackets', level: 2 }).waitFor();
      expect(await help.locator('article table').count()).toBeGreaterThan(3);
      expect(await help.locator('article pre code').first().textContent()).toMatch(/select/i);
      const text = (await help.locator('article').textContent())!;
      expect(text).not.toMatch(/^# |\n## |\|---/m);
      expect(await help.title()).toBe('AQL reference · Ursa');
      await screenshots(help, 'docs');
      // Another document it names opens as a page too.
      await help.getByRole('link', { name: 'api.md', exact: true }).first().click();
      await help.getByRole('heading', { name: 'REST API', level: 1 }).waitFor();
      expect(new URL(help.url()).pathname).toBe('/app/docs/api.md');
      // The query being written is still there.
      expect(await editor(page).inputValue()).toBe('SELECT [Origin Region]');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  it('lets a plain member run queries at 390 px, without saving', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, explore, {
      width: 390,
      height: 844,
    });
    try {
      await page.getByRole('heading', { name: 'Explore' }).waitFor();
      const aql = 'SELECT [Origin Region], COUNT([Flight]) AS "Flights" ORDER BY 1';
      await editor(page).fill(aql);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await page.locator('.explore-result tbody tr').first().waitFor();
      expect(await tableRows(page)).toEqual(asShown(await rowsOf(s, MEMBER, aql)));
      expect(await page.getByRole('button', { name: 'Download CSV' }).isVisible()).toBe(true);
      expect(await page.getByRole('form', { name: /^Save as/ }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /^Save|Add to dashboard/ }).count()).toBe(0);
      // Nothing wider than the phone.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // No rows because of a value no member has: the note, and the closest member as a fix.
      const delta = 'SELECT [Carrier Name], COUNT([Flight]) WHERE [Carrier Name] = "delta"';
      await editor(page).fill(delta);
      await editor(page).press('Control+Enter');
      const note = page.getByRole('status').filter({ hasText: 'has no member' });
      await note
        .getByText('[Carrier Name] has no member "delta"; closest members: "Delta Air Lines"')
        .waitFor();
      expect(await page.locator('.aql-mark').textContent()).toBe('"delta"');
      await note.getByRole('button', { name: 'Replace "delta" with "Delta Air Lines"' }).click();
      await editor(page).press('Control+Enter');
      await page.getByRole('cell', { name: 'Delta Air Lines' }).waitFor();
      expect(await tableRows(page)).toEqual(
        asShown(await rowsOf(s, MEMBER, delta.replace('"delta"', '"Delta Air Lines"'))),
      );
      // Completion works for members too (objects they may read).
      await editor(page).fill('');
      await editor(page).pressSequentially('SELECT [Origin R');
      await page.getByRole('option', { name: /Origin Region/ }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
