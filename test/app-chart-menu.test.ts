// A dashboard chart's mark menu in Chromium against the real server (the reports fixture on the
// demo project), at 1280 and 390 px: a hover shows the bar's tooltip, a click its menu; "See
// the rows behind it" opens Explore with a listing of the flights of that region only (for a
// member with a row filter, only theirs) as a table, "Break out by…" the report's question with the
// attribute picked as one more breakdown.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { resultTable, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { startWithReports } from './helpers/dashboard-app.js';
import { ADMIN, ADMIN_PASSWORD, invite, type TestServer } from './helpers/server.js';

const CA = 'ca@example.com';
const ARTIFACTS = 'test/artifacts/app';

/** The page as it is now (its width kept: a resize would close the menu). */
async function shot(page: Page, name: string) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}
const PASSWORD = 'member-password-1';

describe.skipIf(skipBrowser)('the web application: a chart mark’s menu', () => {
  let s: TestServer;
  let browser: Browser;
  let ops: string;
  /** The codes of California's airports (CA's row filter: flights from these only). */
  let caAirports: Set<string>;

  beforeAll(async () => {
    ({ s, browser } = await startWithReports());
    await invite(s, s.demo, CA, { roles: ['viewers'], filter: '[Origin State] = "CA"' });
    await s.engine.accounts.setPassword(CA, PASSWORD);
    ops = `/app/p/${s.demo}/dashboards/dashboard.ops`;
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      body: { aql: 'SELECT [Airport Code] WHERE [Origin State] = "CA"' },
      headers: { prefer: 'wait=30' },
    });
    expect(r.status, r.text).toBe(200);
    caAirports = new Set((r.json.data.values as string).split('\n'));
    expect(caAirports.size).toBeGreaterThan(2);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Opens the menu of the West bar of "By region" (after its tooltip on hover). */
  async function westMenu(page: Page, regions = 4) {
    const chart = page.getByRole('group', { name: /^By region: chart\./ });
    const bars = chart.locator('.chart-canvas svg path[fill="#2f6fde"]');
    await expect.poll(() => bars.count(), { timeout: 20_000 }).toBe(regions);
    await page.waitForFunction("!document.querySelector('.dash-item [aria-busy=true]')");
    // The West bar: the one whose tooltip says West (a hovered bar changes colour: the boxes
    // are read first).
    await chart.scrollIntoViewIfNeeded();
    const boxes = [];
    for (const b of await bars.all()) boxes.push((await b.boundingBox())!);
    for (const box of boxes) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height - 3);
      const tip = page.getByText(/^(Midwest|Northeast|South|West) · /);
      await tip.waitFor();
      const text = (await tip.textContent())!;
      if (!text.startsWith('West · ')) continue;
      expect(text).toMatch(/^West · Flights Flown: [\d,]+$/);
      await page.mouse.click(box.x + box.width / 2, box.y + box.height - 3);
      const menu = page.getByRole('menu');
      await menu.waitFor();
      return menu;
    }
    throw new Error('no bar says West');
  }

  const aqlOf = (page: Page) => new URL(page.url()).searchParams.get('aql') ?? '';

  for (const width of [1280, 390]) {
    it(`at ${width} px: see the rows behind the West bar, then break it out by Carrier Name`, async () => {
      const viewport = { width, height: width === 390 ? 844 : 900 };
      const { page, problems, close } = await signedIn(
        browser,
        s,
        ADMIN,
        ADMIN_PASSWORD,
        ops,
        viewport,
      );
      try {
        let menu = await westMenu(page);
        await shot(page, `chart-menu-${width}`);
        await menu.getByRole('menuitem', { name: 'See the rows behind it' }).click();
        await page.waitForURL((u) => u.pathname.endsWith('/explore'));
        expect(aqlOf(page)).toMatch(
          /^SELECT \[attr\.flights\.flight_id\] AS "Flight", \[Origin Region\]/,
        );
        expect(aqlOf(page)).toMatch(/WHERE \[Origin Region\] = "West"\nLIMIT 1000$/);
        const rows = await resultTable(page);
        const region = rows.head.indexOf('Origin Region');
        const origin = rows.head.indexOf('Origin');
        expect(region).toBeGreaterThanOrEqual(0);
        expect(rows.head).toContain('Distance');
        expect(rows.rows.length).toBeGreaterThan(100);
        expect(new Set(rows.rows.map((r) => r[region]))).toEqual(new Set(['West']));
        // The Admin sees West's flights beyond California (Denver's, Seattle's…).
        expect(rows.rows.some((r) => !caAirports.has(r[origin]!))).toBe(true);
        // A listing of rows is shown as a table: no chart of it.
        const pick = page.locator('.explore-chart').getByLabel('Chart', { exact: true });
        await expect.poll(() => pick.inputValue()).toBe('table');
        expect(
          await page.locator('.explore-chart .chart-live, .explore-chart .chart-still').count(),
        ).toBe(0);
        await shot(page, `chart-rows-${width}`);

        // Back on the dashboard: "Break out by…" Carrier Name.
        await page.goBack();
        menu = await westMenu(page);
        await menu.getByRole('menuitem', { name: 'Break out by…' }).click();
        const form = page.getByRole('form', { name: 'Break out Origin Region: West' });
        await form
          .getByLabel('Break out Origin Region: West by')
          .selectOption({ label: 'Carrier Name' });
        await shot(page, `chart-breakout-form-${width}`);
        await form.getByRole('button', { name: 'Break out' }).click();
        await page.waitForURL((u) => u.pathname.endsWith('/explore'));
        expect(aqlOf(page)).toBe(
          'SELECT [Origin Region], [Flights Flown], [label.carriers.name]\nWHERE [Origin Region] = "West"',
        );
        const out = await resultTable(page);
        expect(out.head).toEqual(['Origin Region', 'Flights Flown', 'Carrier Name']);
        expect(out.rows.length).toBeGreaterThan(3);
        expect(new Set(out.rows.map((r) => r[0]))).toEqual(new Set(['West']));
        await shot(page, `chart-breakout-${width}`);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }, 120_000);
  }

  it('a member with a row filter sees only their rows behind the bar', async () => {
    const { page, problems, close } = await signedIn(browser, s, CA, PASSWORD, ops);
    try {
      // Their row filter leaves one region: West.
      const menu = await westMenu(page, 1);
      await menu.getByRole('menuitem', { name: 'See the rows behind it' }).click();
      await page.waitForURL((u) => u.pathname.endsWith('/explore'));
      const rows = await resultTable(page);
      const origin = rows.head.indexOf('Origin');
      expect(origin).toBeGreaterThanOrEqual(0);
      expect(rows.rows.length).toBeGreaterThan(10);
      expect(rows.rows.filter((r) => !caAirports.has(r[origin]!))).toEqual([]);
      await screenshots(page, 'chart-rows-member');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
