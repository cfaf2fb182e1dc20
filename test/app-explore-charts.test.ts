// Explore's chart and pivot in Chromium against the real server (demo flights): the chart of an
// unsaved question is the one its saved report draws (the same spec and SVG, from the shared
// renderer), a hovered bar shows its tooltip, its menu's "See the rows behind it" lists the
// rows as a table and "Break out by…" adds a breakdown; a pivot built by picking (no AQL
// typed) shows the engine's subtotals, and saving it gives a report with the same pivot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Response } from 'playwright-core';
import { formatMeasure } from '../src/app/format.js';
import { launch, resultTable, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { rowsOf, waitForDemo } from './helpers/aql-demo.js';
import { describeViolations, seriousViolations } from './helpers/axe.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Any = Record<string, any>;

const BY_REGION = 'SELECT [Origin Region], COUNT([Flight]) AS "Flights"';

describe.skipIf(skipBrowser)('Explore: the shared chart, its mark menu, and pivots', () => {
  let s: TestServer;
  let browser: Browser;
  let explore: string;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    explore = `/app/p/${s.demo}/explore`;
    const [, b] = await Promise.all([waitForDemo(s), launch()]);
    browser = b;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const chartPick = (page: Page) =>
    page.locator('.explore-chart').getByLabel('Chart', { exact: true });
  const bars = (page: Page) =>
    page.locator('.explore-chart .chart-canvas svg path[fill="#2f6fde"]');
  const aqlOf = (page: Page) => new URL(page.url()).searchParams.get('aql') ?? '';
  const executed = (page: Page) =>
    page.waitForResponse(
      (r: Response) => r.url().includes('/app/reports/execute') && r.status() === 200,
    );

  /** Hovers each bar until the one whose tooltip names `region`; answers its menu. */
  async function menuOf(page: Page, region: string, count: number) {
    await expect.poll(() => bars(page).count(), { timeout: 20_000 }).toBe(count);
    const boxes = [];
    for (const b of await bars(page).all()) boxes.push((await b.boundingBox())!);
    for (const box of boxes) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height - 3);
      const tip = page.getByText(/^(Midwest|Northeast|South|West) · Flights: /);
      await tip.waitFor();
      const text = (await tip.textContent())!;
      expect(text).toMatch(/^\w+ · Flights: [\d,]+$/);
      if (!text.startsWith(`${region} · `)) continue;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height - 3);
      const menu = page.getByRole('menu');
      await menu.waitFor();
      return menu;
    }
    throw new Error(`no bar says ${region}`);
  }

  it('draws the chart its saved report draws; a bar’s tooltip and menu: the rows behind it as a table, a break-out', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, '/app');
    page.context().setDefaultTimeout(20_000);
    try {
      const answer = executed(page);
      await page.goto(`${s.url}${explore}?${new URLSearchParams({ aql: BY_REGION })}`);
      const chart = (await (await answer).json()) as Any;
      const regions = await rowsOf(s, ADMIN, BY_REGION);
      await expect.poll(() => chartPick(page).inputValue()).toBe('bar');
      await expect.poll(() => bars(page).count()).toBe(regions.length);

      // Saved as it is shown: the report draws the same chart (spec and SVG).
      const save = page.getByRole('form', { name: 'Save as report' });
      await expect.poll(() => save.getByLabel('Visualization').inputValue()).toBe('bar');
      await save.getByLabel('Report name').fill('Flights by origin region');
      await save.getByRole('button', { name: 'Save report' }).click();
      await page.getByRole('region', { name: 'Report “Flights by origin region”' }).waitFor();
      const saved = await s.api(
        'GET',
        `/projects/${s.demo}/app/reports/report.flights_by_origin_region`,
        {
          accept: 'application/json',
        },
      );
      expect(saved.status, saved.text).toBe(200);
      expect(saved.json.report.visualization).toEqual({ type: 'bar' });
      expect(chart.chart.spec).toEqual(saved.json.chart.spec);
      expect(chart.chart.svg).toBe(saved.json.chart.svg);

      const vs = await seriousViolations(page);
      expect(vs, describeViolations(vs)).toEqual([]);
      // A bar's tooltip, then its menu: the rows behind the West bar, as a table.
      let menu = await menuOf(page, 'West', regions.length);
      await page.screenshot({ path: 'test/artifacts/app/explore-chart-menu-1280.png' });
      await menu.getByRole('menuitem', { name: 'See the rows behind it' }).click();
      await expect
        .poll(() => aqlOf(page))
        .toMatch(/^SELECT \[attr\.flights\.flight_id\] AS "Flight"/);
      expect(aqlOf(page)).toMatch(/WHERE \[Origin Region\] = "West"\nLIMIT 1000$/);
      await expect.poll(async () => (await resultTable(page)).head[0]).toBe('Flight');
      const rows = await resultTable(page);
      expect(rows.rows.length).toBeGreaterThan(100);
      const region = rows.head.indexOf('Origin Region');
      expect(new Set(rows.rows.map((r) => r[region]))).toEqual(new Set(['West']));
      await expect.poll(() => chartPick(page).inputValue()).toBe('table');
      expect(
        await page.locator('.explore-chart .chart-live, .explore-chart .chart-still').count(),
      ).toBe(0);
      await screenshots(page, 'explore-chart-rows');

      // Back to the question: "Break out by…" Carrier Name.
      await page.goBack();
      await expect.poll(() => aqlOf(page)).toBe(BY_REGION);
      menu = await menuOf(page, 'West', regions.length);
      await menu.getByRole('menuitem', { name: 'Break out by…' }).click();
      const form = page.getByRole('form', { name: 'Break out Origin Region: West' });
      await form
        .getByLabel('Break out Origin Region: West by')
        .selectOption({ label: 'Carrier Name' });
      await form.getByRole('button', { name: 'Break out' }).click();
      await expect
        .poll(() => aqlOf(page))
        .toBe(`${BY_REGION}, [label.carriers.name]\nWHERE [Origin Region] = "West"`);
      await expect.poll(async () => (await resultTable(page)).head.length).toBe(3);
      const out = await resultTable(page);
      expect(out.head).toEqual(['Origin Region', 'Flights', 'Carrier Name']);
      expect(new Set(out.rows.map((r) => r[0]))).toEqual(new Set(['West']));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('opens a saved report with its own chart: its keys (by position too) and its pivot’s placement', async () => {
    const aql =
      'SELECT [Origin Region], [Carrier Name], COUNT([Flight]) AS "Flights", AVG([Departure Delay]) AS "Delay"';
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: [
        {
          ident: 'report.xp_pivot',
          type: 'report',
          name: 'Pivot by position',
          def: { aql, visualization: { type: 'pivot', rows: [2], columns: 'origin region', y: 3 } },
        },
        {
          ident: 'report.xp_bar',
          type: 'report',
          name: 'Flights only',
          def: {
            aql: 'SELECT [Origin Region], COUNT([Flight]) AS "Flights", AVG([Departure Delay]) AS "Delay"',
            visualization: { type: 'bar', x: 1, y: 2 },
          },
        },
      ],
    });
    expect(r.status, r.text).toBe(201);
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, '/app');
    page.context().setDefaultTimeout(20_000);
    try {
      // A bar chart of one of two measures (y: 2): Explore draws the report's chart.
      let answer = executed(page);
      await page.goto(`${s.url}${explore}?report=report.xp_bar`);
      const bar = (await (await answer).json()) as Any;
      const savedBar = await s.api('GET', `/projects/${s.demo}/app/reports/report.xp_bar`, {
        accept: 'application/json',
      });
      expect(bar.chart.spec).toEqual(savedBar.json.chart.spec);
      expect(bar.chart.spec.y.map((y: Any) => y.title)).toEqual(['Flights']);

      // A pivot naming its rows by position and its columns in another case.
      answer = executed(page);
      await page.getByLabel('Open a saved report').selectOption('report.xp_pivot');
      await answer;
      await expect.poll(() => chartPick(page).inputValue()).toBe('pivot');
      expect(await page.getByLabel('Place Carrier Name in').inputValue()).toBe('rows');
      expect(await page.getByLabel('Place Origin Region in').inputValue()).toBe('columns');
      expect(await page.getByRole('checkbox', { name: 'Flights' }).isChecked()).toBe(true);
      expect(await page.getByRole('checkbox', { name: 'Delay' }).isChecked()).toBe(false);
      const saved = await s.api('GET', `/projects/${s.demo}/app/reports/report.xp_pivot`, {
        accept: 'application/json',
      });
      const p = saved.json.pivot as Any;
      const heads = await page.locator('.explore-chart table.pivot thead th').allTextContents();
      expect(heads).toEqual(
        expect.arrayContaining(p.keys.slice(0, -1).map((k: Any) => k.values[0])),
      );
      expect(await page.locator('.explore-chart table.pivot tbody tr').count()).toBe(
        p.lines.length,
      );

      // A question typed by hand, its measure unaliased: the pivot names the engine's column
      // (`SUM([Passengers])`), the page its words.
      const typed = 'SELECT [Origin Region], [Carrier Name], SUM([Passengers])';
      answer = executed(page);
      await page.getByRole('textbox', { name: 'Query' }).fill(typed);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      expect((await answer).request().postDataJSON()).toEqual({
        aql: typed,
        visualization: {
          type: 'pivot',
          rows: ['Carrier Name'],
          columns: ['Origin Region'],
          y: ['SUM([Passengers])'],
        },
      });
      const passengers = page.getByRole('checkbox', { name: 'Sum of Passengers' });
      await passengers.waitFor();
      expect(await passengers.isChecked()).toBe(true);
      await expect
        .poll(() => page.locator('.explore-chart table.pivot tbody tr').count())
        .toBe(p.lines.length);
      expect(await page.locator('.explore-chart [role=alert]').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);

  it('builds a pivot by picking (no AQL typed): the engine’s subtotals, saved as the same pivot', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, explore);
    page.context().setDefaultTimeout(20_000);
    try {
      const builder = page.getByRole('region', { name: 'Build' });
      const add = (name: string, label: string) =>
        builder.getByRole('combobox', { name }).selectOption({ label });
      await add('Add a measure', 'Count of flights');
      await add('Add a measure', 'Avg Departure Delay');
      await add('Add a breakdown', 'Origin Region');
      await add('Add a breakdown', 'Carrier Name');
      const aql =
        'SELECT [Origin Region], [Carrier Name], COUNT([dataset.flights]) AS "Count of flights", [Avg Departure Delay]';
      await expect.poll(() => page.getByRole('textbox', { name: 'Query' }).inputValue()).toBe(aql);
      await resultTable(page);

      // Pivot table: by default Carrier Name is its columns; placed in the rows instead.
      await chartPick(page).selectOption('pivot');
      const pivot = page.locator('.explore-chart table.pivot');
      await pivot.waitFor();
      expect(await page.getByLabel('Place Carrier Name in').inputValue()).toBe('columns');
      const answer = executed(page);
      await page.getByLabel('Place Carrier Name in').selectOption('rows');
      const vis = {
        type: 'pivot',
        rows: ['Origin Region', 'Carrier Name'],
        columns: [],
        y: ['Count of flights', 'Avg Departure Delay'],
      };
      expect((await answer).request().postDataJSON()).toEqual({ aql, visualization: vis });

      // Its lines are what the engine computes for the same definition over REST.
      const rest = await s.api('POST', `/projects/${s.demo}/app/reports/execute`, {
        body: { aql, visualization: vis },
      });
      expect(rest.status, rest.text).toBe(200);
      const p = rest.json.pivot as Any;
      const cellsOf = (line: Any) =>
        line.cells.flatMap((key: unknown[]) =>
          key.map((v, m) =>
            v === null ? '–' : formatMeasure(v as number, p.measures[m]?.format as string),
          ),
        );
      const shown = () =>
        pivot
          .locator('tbody tr')
          .evaluateAll((trs) =>
            trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
          );
      await expect.poll(shown).toEqual(p.lines.map(cellsOf));
      // A subtotal line per region (bold), and the grand total last.
      const regions = await rowsOf(s, ADMIN, 'SELECT [Origin Region]');
      expect(await pivot.locator('tbody tr.sub').count()).toBe(regions.length);
      expect(await pivot.locator('tbody tr').last().getAttribute('class')).toBe('total');
      expect(p.lines.filter((l: Any) => l.level === 1)).toHaveLength(regions.length);
      await screenshots(page, 'explore-pivot');
      // The picker and the pivot pass axe (labels, contrast, the table's headers).
      const vs = await seriousViolations(page);
      expect(vs, describeViolations(vs)).toEqual([]);

      // Saved: the report is the same pivot.
      const save = page.getByRole('form', { name: 'Save as report' });
      await expect.poll(() => save.getByLabel('Visualization').inputValue()).toBe('pivot');
      await save.getByLabel('Report name').fill('Carriers by region');
      await save.getByRole('button', { name: 'Save report' }).click();
      const card = page.getByRole('region', { name: 'Report “Carriers by region”' });
      await card.locator('table.pivot').waitFor();
      const obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/report.carriers_by_region`);
      expect(obj.json.object.def.visualization).toEqual(vis);
      const report = await s.api(
        'GET',
        `/projects/${s.demo}/app/reports/report.carriers_by_region`,
        {
          accept: 'application/json',
        },
      );
      expect(report.json.pivot).toEqual(p);
      expect(
        await card.locator('table.pivot tbody tr').last().locator('td').allTextContents(),
      ).toEqual(cellsOf(p.lines.at(-1)));
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
