// The journey issue 23's "Done means" describes, as one person does it in Chromium against
// the real server and demo project, without typing AQL or JSON: sign in, build a chart by
// clicking in Explore's builder, save it as a report, put it on a new dashboard, arrange it
// beside another item with the keyboard, add a date-range filter and use it, drill down from
// a bar of the chart, share the
// dashboard publicly (the dialog turns embedding on), open the public address signed out, and
// export a PDF that reads like the screen (pdftotext; page 1 as PNG for a person to look at).
// Every number shown is compared with what REST computes; every screen at 390 and 1280 px
// fits without sideways scrolling, has no serious axe violation and logs no error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  checkScreen,
  expectOnlyRefused,
  launch,
  signedIn,
  skipBrowser,
} from './helpers/app-browser.js';
import { rowsOf, waitForDemo } from './helpers/aql-demo.js';
import { restKpi } from './helpers/dashboard-app.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/app/', import.meta.url));
const JANUARY = 'attr.flights.flight_date:2024-01-01..2024-01-31';
const CHART = 'Flights by origin region';
const KPI = 'Total flights';

describe.skipIf(skipBrowser)(
  'the journey: from signing in to a public dashboard and its PDF',
  () => {
    let s: TestServer;
    let browser: Browser;

    beforeAll(async () => {
      [s, browser] = await Promise.all([startTestServer({ URSA_DEMO_DATA: 'true' }), launch()]);
      await waitForDemo(s);
    });
    afterAll(async () => {
      await browser?.close();
      await s?.close();
    });

    it('builds, saves, arranges, filters, shares and exports a dashboard by clicking', async () => {
      const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, '/app');
      page.context().setDefaultTimeout(20_000);
      try {
        // One project: the app opens straight into it.
        await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}`);

        // Explore: a chart by clicking in the builder.
        await page
          .getByRole('navigation', { name: 'Project' })
          .getByRole('link', { name: 'Explore' })
          .click();
        const builder = page.getByRole('region', { name: 'Build' });
        await builder
          .getByRole('combobox', { name: 'Add a breakdown' })
          .selectOption({ label: 'Origin Region' });
        await builder
          .getByRole('combobox', { name: 'Add a measure' })
          .selectOption({ label: 'Count of flights' });
        const chart = page.locator('.explore-chart');
        await expect
          .poll(() => chart.getByLabel('Chart', { exact: true }).inputValue())
          .toBe('bar');
        const aql = await page.getByRole('textbox', { name: 'Query' }).inputValue();
        expect(aql).toBe('SELECT [Origin Region], COUNT([dataset.flights]) AS "Count of flights"');
        const regions = await rowsOf(s, ADMIN, aql);
        // The shared renderer's bars (the first series' colour), one per region.
        const bars = chart.locator('.chart-canvas svg path[fill="#2f6fde"]');
        await expect.poll(() => bars.count()).toBe(regions.length);
        await checkScreen(page, 'journey-explore');

        // Saved as a report, put on a new dashboard.
        const save = page.getByRole('form', { name: 'Save as report' });
        await save.getByLabel('Report name').fill(CHART);
        await save.getByLabel('Visualization').selectOption('bar');
        await save.getByRole('button', { name: 'Save report' }).click();
        const drawn = page.getByRole('region', { name: `Report “${CHART}”` });
        await drawn.getByRole('img').waitFor();
        await drawn
          .getByLabel('Dashboard', { exact: true })
          .selectOption({ label: 'A new dashboard…' });
        await drawn.getByLabel('New dashboard name').fill('My journey');
        await drawn.getByRole('button', { name: 'Add to dashboard' }).click();
        await drawn.getByRole('link', { name: 'My journey' }).click();
        await page.getByRole('heading', { name: 'My journey', level: 1 }).waitFor();
        const dash = new URL(page.url()).pathname;
        const ident = decodeURIComponent(dash.split('/').pop()!);

        // Edit: another report, arranged beside the chart with the keyboard; a date filter.
        await page.getByRole('button', { name: 'Edit', exact: true }).click();
        await page.getByRole('heading', { name: 'Editing My journey' }).waitFor();
        await page.getByLabel('A saved report').selectOption({ label: KPI });
        await page.getByRole('button', { name: 'Add report' }).click();
        const status = (name: string) => page.getByRole('status').filter({ hasText: `${name}:` });
        await page.getByRole('button', { name: `Move ${CHART}`, exact: true }).focus();
        for (let i = 0; i < 6; i++) await page.keyboard.press('Shift+ArrowLeft');
        await expect
          .poll(() => status(CHART).textContent())
          .toBe(`${CHART}: column 1, row 1, 6 columns wide, 5 rows high.`);
        await page.getByRole('button', { name: `Move ${KPI}`, exact: true }).focus();
        for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
        for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowUp');
        await expect
          .poll(() => status(KPI).textContent())
          // A number gets a small cell (3 × 2) when added.
          .toBe(`${KPI}: column 7, row 1, 3 columns wide, 2 rows high.`);
        for (const attribute of ['Flight Date', 'Origin Region']) {
          await page.getByLabel('Filter by').selectOption({ label: attribute });
          await page.getByRole('button', { name: 'Add filter' }).click();
          await page.getByRole('button', { name: `Remove the filter ${attribute}` }).waitFor();
        }
        await checkScreen(page, 'journey-edit');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByRole('heading', { name: 'My journey', exact: true, level: 1 }).waitFor();
        const saved = (await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`)).json.object.def;
        expect(saved.filters).toEqual([
          { attribute: 'attr.flights.flight_date' },
          { attribute: 'attr.airports.region' },
        ]);
        expect(
          saved.layout.map((l: { x: number; y: number; w: number }) => [l.x, l.y, l.w]),
        ).toEqual([
          [0, 0, 6],
          [6, 0, 3],
        ]);

        // Beside each other on the screen.
        const kpiItem = saved.items[1].id as string;
        expect(saved.items[1].report).toBe('report.demo_flights');
        const kpiOf = (query: string) => restKpi(s, ident, query, ADMIN, kpiItem);
        const kpiValue = page.locator('.dash-kpi-value');
        const all = await kpiOf('');
        await expect.poll(() => kpiValue.textContent()).toBe(all);
        const [c, k] = await Promise.all(
          [CHART, KPI].map((n) => page.getByRole('region', { name: n }).boundingBox()),
        );
        expect(k!.x).toBeGreaterThan(c!.x + c!.width);
        expect(Math.abs(k!.y - c!.y)).toBeLessThan(2);

        // The date range, as a member uses it: January 2024.
        await page.getByLabel('Flight Date', { exact: true }).selectOption('between');
        await page.getByLabel('Flight Date from').fill('2024-01-01');
        await page.getByLabel('Flight Date to').fill('2024-01-31');
        await page.getByRole('button', { name: 'Apply' }).click();
        const january = await kpiOf(`?filter=${JANUARY}`);
        expect(january).not.toBe(all);
        await expect.poll(() => kpiValue.textContent()).toBe(january);
        expect(decodeURIComponent(new URL(page.url()).search)).toBe(`?filter=${JANUARY}`);
        // Drill-down: the West bar's menu (reached by the keyboard) adds the region to the
        // filters.
        const both = `?filter=${JANUARY}&filter=attr.airports.region:West`;
        const west = await kpiOf(both);
        expect(west).not.toBe(january);
        const live = page.locator('.chart-live').first();
        await expect.poll(() => live.locator('svg').count(), { timeout: 20_000 }).toBe(1);
        await live.focus();
        const said = live.locator('[aria-live]');
        for (
          let i = 0;
          i < regions.length && !/^West · /.test((await said.textContent()) ?? '');
          i++
        )
          await page.keyboard.press('ArrowRight');
        expect(await said.textContent()).toMatch(/^West · /);
        await page.keyboard.press('Enter');
        await page
          .getByRole('menuitem', { name: 'Filter the dashboard by Origin Region: West' })
          .click();
        await expect.poll(() => kpiValue.textContent()).toBe(west);
        expect(decodeURIComponent(new URL(page.url()).search)).toBe(both);
        await checkScreen(page, 'journey-dashboard');

        // Shared publicly: the dialog turns embedding on.
        await page.getByRole('button', { name: 'Share…' }).click();
        const dialog = page.getByRole('dialog', { name: 'Share “My journey”' });
        await dialog.getByLabel(/Public/).check();
        await dialog.getByLabel(/Sites that may frame it/).fill('https://intranet.example.com');
        await dialog.getByRole('button', { name: 'Turn on embedding' }).click();
        await dialog.getByText('Dashboard embedding is on').waitFor();
        await dialog.getByRole('button', { name: /^(Share|Save changes)$/ }).click();
        const address = dialog.getByLabel('Public address');
        await address.waitFor();
        const url = await address.inputValue();
        await checkScreen(page, 'journey-share');
        await page.keyboard.press('Escape');

        // The public address, signed out: the same numbers in the same format.
        const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        try {
          const v = await visitor.newPage();
          const errors: string[] = [];
          v.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
          expect((await v.goto(url))!.status()).toBe(200);
          await v.getByRole('heading', { name: 'My journey' }).first().waitFor();
          await v.getByText(all, { exact: true }).waitFor();
          expect(await v.locator('svg rect[data-drill]').count()).toBe(regions.length);
          await checkScreen(v, 'journey-public');
          // Its date filter is a period and two date fields (the page runs no script).
          const range = v.getByRole('group', { name: 'Flight Date' });
          await range.locator('select').selectOption({ label: 'Between the dates' });
          await range.getByLabel('From', { exact: true }).fill('2024-01-01');
          await range.getByLabel('To', { exact: true }).fill('2024-01-31');
          await v.getByRole('button', { name: 'Apply' }).click();
          await v.getByText(january, { exact: true }).waitFor();
          expect(await range.getByLabel('From', { exact: true }).inputValue()).toBe('2024-01-01');
          await checkScreen(v, 'journey-public-range');
          expect(errors).toEqual([]);
        } finally {
          await visitor.close();
        }

        // The PDF of the filtered dashboard: its text, and page 1 drawn for a person to look at.
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Export to PDF' }).click(),
        ]);
        expect(download.suggestedFilename()).toBe('My journey.pdf');
        const pdf = `${ARTIFACTS}journey.pdf`;
        fs.mkdirSync(ARTIFACTS, { recursive: true });
        await download.saveAs(pdf);
        const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' });
        for (const expected of [
          'My journey',
          CHART,
          KPI,
          west,
          'Flight Date: 2024-01-01 – 2024-01-31 · Origin Region: West',
        ])
          expect(text, `the PDF's text lacks "${expected}"`).toContain(expected);
        execFileSync('pdftoppm', [
          '-png',
          '-r',
          '60',
          '-f',
          '1',
          '-l',
          '1',
          '-singlefile',
          pdf,
          `${ARTIFACTS}journey-pdf-1`,
        ]);
        expect(fs.statSync(`${ARTIFACTS}journey-pdf-1.png`).size).toBeGreaterThan(5_000);
        await page.getByText('PDF saved.').waitFor();
        // The share's GET answers 404 while the dashboard is not shared yet; nothing else.
        expectOnlyRefused(problems, { 404: 1 });
      } finally {
        await close();
      }
    }, 180_000);
  },
);
