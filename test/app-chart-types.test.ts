// The new chart types live on a dashboard in Chromium against the real server (demo flights),
// at 1280 and 390 px: 100% stacked bars, combo, funnel, gauge and a map of the states are
// drawn by ECharts in the page (the map's boundaries loaded on demand), each mark with its
// tooltip; a KPI over months shows its change against the month before and a sparkline.
// Explore's saved report offers the types in its picker and draws the chosen one.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { signedIn, skipBrowser } from './helpers/app-browser.js';
import { startWithReports } from './helpers/dashboard-app.js';
import { ADMIN, ADMIN_PASSWORD, type TestServer } from './helpers/server.js';

const ARTIFACTS = 'test/artifacts/app';
const acl = [{ userrole: 'viewers', acl: 'r----' }];
const MONTHLY = 'SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", [Flights Flown]';

const REPORTS: [string, string, string, Record<string, unknown>][] = [
  ['monthly', 'Flights this month', MONTHLY, { type: 'kpi' }],
  ['gauge', 'Delay gauge', 'SELECT [Average Delay]', { type: 'gauge', max: 60, target: 15 }],
  [
    'shares',
    'Carrier shares',
    'SELECT [Origin Region], [Carrier Name], [Flights Flown]',
    { type: 'bar', stack: 'percent' },
  ],
  [
    'combo',
    'Flights and delay',
    'SELECT [Origin Region], [Flights Flown], [Average Delay]',
    { type: 'combo' },
  ],
  ['funnel', 'Region funnel', 'SELECT [Origin Region], [Flights Flown]', { type: 'funnel' }],
  ['states', 'Flights by state', 'SELECT [Origin State], [Flights Flown]', { type: 'map' }],
];

async function shot(page: Page, name: string) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/** Hovers the marks until their chart's tooltip matches `tip`; answers its text. */
async function hoverUntil(page: Page, chart: Locator, marks: string, tip: RegExp): Promise<string> {
  const all = chart.locator(marks);
  await expect.poll(() => all.count(), { timeout: 20_000 }).toBeGreaterThan(0);
  for (const m of await all.all()) {
    await m.scrollIntoViewIfNeeded();
    const box = await m.boundingBox();
    if (!box || box.width < 4 || box.height < 4) continue;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // The chart's own tooltip (ECharts keeps each chart's in its box).
    const shown = chart.getByText(tip);
    try {
      await shown.first().waitFor({ timeout: 2_000 });
      return (await shown.first().textContent())!;
    } catch {
      // Not this one (a hovered region without a value, a gap): the next mark.
    }
  }
  throw new Error(`no mark shows a tooltip like ${tip}`);
}

describe.skipIf(skipBrowser)('the web application: chart types', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    ({ s, browser } = await startWithReports());
    const objects = REPORTS.map(([id, name, aql, visualization]) => ({
      ident: `report.${id}`,
      type: 'report',
      name,
      def: { aql, visualization },
      acl,
    }));
    const at = { monthly: [0, 0, 3, 3], gauge: [3, 0, 3, 3] } as Record<string, number[]>;
    const items = REPORTS.map(([id]) => ({ id, report: `report.${id}` }));
    const layout = REPORTS.map(([id], i) => {
      const [x, y, w, h] = at[id] ?? [((i - 2) % 2) * 6, 3 + Math.floor((i - 2) / 2) * 5, 6, 5];
      return { item: id, x, y, w, h };
    });
    objects.push({
      ident: 'dashboard.types',
      type: 'dashboard',
      name: 'Chart types',
      def: { items, layout } as never,
      acl,
    });
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: objects });
    expect(r.status, r.text).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  for (const width of [1280, 390]) {
    it(`at ${width} px: every type drawn live with its tooltips, the KPI with its change`, async () => {
      const viewport = { width, height: width === 390 ? 844 : 900 };
      const path = `/app/p/${s.demo}/dashboards/dashboard.types`;
      const { page, problems, close } = await signedIn(
        browser,
        s,
        ADMIN,
        ADMIN_PASSWORD,
        path,
        viewport,
      );
      try {
        const item = (title: string) => page.getByRole('region', { name: title });
        // The KPI: last month, the change against the month before, a sparkline.
        const kpi = item('Flights this month');
        await kpi.locator('.kpi-value').waitFor({ timeout: 20_000 });
        await expect
          .poll(() => kpi.locator('.kpi-change').textContent())
          .toMatch(/^[▲▼]\s?(up|down) [+−][\d,]+ flights \([+−][\d.]+%\) vs [A-Z][a-z]{2} \d{4}$/);
        expect(await kpi.locator('svg.kpi-spark polyline').getAttribute('points')).toMatch(
          /^[\d.]+,[\d.]+( [\d.]+,[\d.]+){2,}$/,
        );

        const canvas = (title: string) =>
          item(title).getByRole('group', { name: new RegExp(`^${title}: chart\\.`) });
        // 100% stacked bars: a carrier's share of a region's flights, with its count.
        const shares = await hoverUntil(
          page,
          canvas('Carrier shares'),
          '.chart-canvas svg path[fill="#2f6fde"]',
          /^(Midwest|Northeast|South|West) · .+ · Flights Flown: [\d,]+ \([\d.]+%\)$/,
        );
        expect(shares).toMatch(/%\)$/);
        await expect.poll(() => canvas('Carrier shares').getByText('100%').count()).toBe(1);
        // Combo: the bars and the line of the other measure.
        await hoverUntil(
          page,
          canvas('Flights and delay'),
          '.chart-canvas svg path[fill="#2f6fde"]',
          /^(Midwest|Northeast|South|West) · Flights Flown: [\d,]+$/,
        );
        expect(
          await canvas('Flights and delay')
            .locator('.chart-canvas svg path[fill="none"][stroke="#e8793a"]')
            .count(),
        ).toBeGreaterThan(0);
        // Funnel: its widest stage.
        await hoverUntil(
          page,
          canvas('Region funnel'),
          '.chart-canvas svg path[fill="#2f6fde"]',
          /^(Midwest|Northeast|South|West) · Flights Flown: [\d,]+( \([\d.]+%\))?$/,
        );
        // Gauge: its value as text (a small gauge keeps its value and name, not its scale).
        await expect
          .poll(() => canvas('Delay gauge').locator('.chart-canvas svg text').allTextContents())
          .toEqual(
            expect.arrayContaining(['Average Delay', expect.stringMatching(/^\d+\.\d{1,2}$/)]),
          );
        await hoverUntil(
          page,
          canvas('Delay gauge'),
          '.chart-canvas svg path[fill="#2f6fde"]',
          /^Average Delay: [\d.,]+$/,
        );
        // The map: the states' boundaries loaded on demand, a state's flights on hover.
        const map = canvas('Flights by state');
        const shaded = '.chart-canvas svg path[fill^="rgb("]';
        await expect
          .poll(() => map.locator(shaded).count(), { timeout: 20_000 })
          .toBeGreaterThan(5);
        await hoverUntil(page, map, shaded, /^[A-Z]{2} · Flights Flown: [\d,]+$/);
        await shot(page, `chart-types-${width}`);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }, 180_000);
  }

  it("Explore's picker saves 100% stacked bars, then a funnel, each drawn by the server", async () => {
    const aql = 'SELECT [Origin Region], [Carrier Name], [Flights Flown]';
    const path = `/app/p/${s.demo}/explore?aql=${encodeURIComponent(aql)}`;
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, path);
    try {
      const save = page.getByRole('form', { name: 'Save as report' });
      await save.getByLabel('Report name').fill('Shares by region');
      await save.getByLabel('Visualization').selectOption({ label: '100% stacked bars' });
      await save.getByRole('button', { name: 'Save report' }).click();
      const drawn = page.getByRole('region', { name: 'Report “Shares by region”' });
      const img = drawn.getByRole('img');
      await img.waitFor({ timeout: 20_000 });
      const stacked = decodeURIComponent((await img.getAttribute('src'))!);
      expect(stacked).toContain('>100%<');
      const ident = 'report.shares_by_region';
      let obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`);
      expect(obj.json.object.def.visualization).toEqual({ type: 'bar', stack: 'percent' });
      await expect.poll(() => drawn.getByLabel('Visualization').inputValue()).toBe('bar-percent');
      await shot(page, 'chart-types-explore');
      // Another type: the stacking goes with the old one.
      await drawn.getByLabel('Visualization').selectOption({ label: 'Funnel' });
      await expect
        .poll(async () => decodeURIComponent((await img.getAttribute('src')) ?? ''), {
          timeout: 20_000,
        })
        .not.toBe(stacked);
      obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`);
      expect(obj.json.object.def.visualization).toEqual({ type: 'funnel' });
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
