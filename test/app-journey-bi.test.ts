// Issue 34's "Done means", as one BI user does it in Chromium against the real server and the
// demo project, without typing AQL: a sorted top-10 question, a pivot table and a KPI with its
// comparison built in Explore's builder and saved; a new dashboard laid out with a Markdown
// heading and two tabs; a drill from a bar to the rows behind it; the dashboard exported as
// PDF, a chart as PNG and an item as XLSX. What the screens show is compared with what REST
// computes; the key screens fit 390 and 1280 px with no serious axe violation (screenshots
// in test/artifacts/app/).
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  checkScreen,
  expectOnlyRefused,
  launch,
  resultTable,
  signedIn,
  skipBrowser,
} from './helpers/app-browser.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { pngHeader } from './helpers/png.js';
import { sheetRows, unzip } from './helpers/xlsx.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

const COUNT = 'COUNT([dataset.flights]) AS "Count of flights"';
const TOP10 = `SELECT [Carrier Name], ${COUNT}\nORDER BY 2 DESC\nLIMIT 10`;

describe.skipIf(skipBrowser)('a BI user, from questions to a dashboard, without AQL', () => {
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

  /** The saved report's def, by its name. */
  async function reportDef(name: string) {
    const list = await s.api('GET', `/projects/${s.demo}/pmd/obj?type=report&limit=1000`);
    const found = (list.json.objects as { ident: string; name: string }[]).find(
      (o) => o.name === name,
    );
    expect(found, `a report named ${name}`).toBeDefined();
    const obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${found!.ident}`);
    return { ident: found!.ident, def: obj.json.object.def };
  }

  /** A new question in Explore: the builder's pickers, the chart picker, saving. */
  async function explore(page: Page) {
    await page.goto(`${s.url}/app/p/${s.demo}/explore`);
    const builder = page.getByRole('region', { name: 'Build' });
    await builder.getByRole('combobox', { name: 'Add a measure' }).waitFor();
    const editor = page.getByRole('textbox', { name: 'Query' });
    return {
      builder,
      add: (name: string, label: string) =>
        builder.getByRole('combobox', { name }).selectOption({ label }),
      aql: () => editor.inputValue(),
      chart: page.locator('.explore-chart').getByLabel('Chart', { exact: true }),
      save: async (name: string) => {
        const form = page.getByRole('form', { name: 'Save as report' });
        await form.getByLabel('Report name').fill(name);
        await form.getByRole('button', { name: 'Save report' }).click();
        const saved = page.getByRole('region', { name: `Report “${name}”` });
        await saved.or(form.getByRole('alert')).first().waitFor();
        expect(await form.getByRole('alert').allTextContents()).toEqual([]);
        await saved.waitFor();
      },
    };
  }

  it('builds a top 10, a pivot and a KPI, lays out a dashboard with a heading and tabs, drills to rows, exports PDF, PNG and XLSX', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}`,
    );
    page.context().setDefaultTimeout(20_000);
    try {
      // 1. The top 10 carriers by flights: sorted and limited by picking.
      let q = await explore(page);
      await q.add('Add a breakdown', 'Carrier Name');
      await q.add('Add a measure', 'Count of flights');
      await q.builder
        .getByLabel('Sort by')
        .selectOption({ label: 'Count of flights, largest first' });
      await q.builder.getByLabel('Show only the first N rows').fill('10');
      await q.builder.getByLabel('Show only the first N rows').press('Tab');
      await expect.poll(q.aql).toBe(TOP10);
      await q.chart.selectOption('bar');
      await checkScreen(page, 'bi-top10');
      await q.save('Top 10 carriers');
      const top = await reportDef('Top 10 carriers');
      expect(top.def).toEqual({ aql: TOP10, visualization: { type: 'bar' } });
      const topRows = (await s.api('GET', `/projects/${s.demo}/app/reports/${top.ident}`)).json
        .rows as [string, number][];
      expect(topRows.length).toBeGreaterThan(3);
      expect(topRows.length).toBeLessThanOrEqual(10);
      const counts = topRows.map((r) => r[1]);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));

      // 2. A pivot: regions down, carriers across, with totals.
      q = await explore(page);
      await q.add('Add a breakdown', 'Origin Region');
      await q.add('Add a breakdown', 'Carrier Name');
      await q.add('Add a measure', 'Count of flights');
      await q.chart.selectOption('pivot');
      await page.getByLabel('Place Carrier Name in').selectOption('columns');
      await page.getByLabel('Place Origin Region in').selectOption('rows');
      // The pivot drawn in Explore's chart card (the result table below has no totals).
      await page.locator('.explore-chart table.pivot tr.total').first().waitFor();
      await checkScreen(page, 'bi-pivot');
      await q.save('Regions by carrier');
      const pivot = await reportDef('Regions by carrier');
      expect(pivot.def.visualization.type).toBe('pivot');
      const computed = await s.api('GET', `/projects/${s.demo}/app/reports/${pivot.ident}`);
      expect(computed.status, computed.text).toBe(200);
      expect(computed.json.pivot).toBeDefined();

      // 3. A KPI over months: the last month, its change against the month before.
      q = await explore(page);
      await q.add('Add a breakdown', 'Flight Date by month');
      await q.add('Add a measure', 'Count of flights');
      await q.chart.selectOption('kpi');
      await page.locator('.explore-chart .kpi-change').waitFor();
      await q.save('Monthly flights');
      const kpi = await reportDef('Monthly flights');
      expect(kpi.def.visualization.type).toBe('kpi');
      const kpiRun = await s.api('GET', `/projects/${s.demo}/app/reports/${kpi.ident}`);
      expect(kpiRun.json.kpi.change).toBeDefined();

      // 4. A new dashboard: a Markdown heading, the three reports, two tabs.
      await page.goto(`${s.url}/app/p/${s.demo}/dashboards`);
      await page.getByRole('button', { name: 'New dashboard' }).click();
      await page.getByLabel('Title of the new dashboard').fill('Carrier board');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'Editing Carrier board' }).waitFor();
      await page.getByLabel('A text (a heading or a note)').fill('## Carriers at a glance');
      await page.getByRole('button', { name: 'Add text' }).click();
      for (const name of ['Top 10 carriers', 'Monthly flights', 'Regions by carrier']) {
        await page.getByLabel('A saved report').selectOption({ label: name });
        await page.getByRole('button', { name: 'Add report' }).click();
      }
      await page.getByRole('button', { name: 'Add tab' }).click();
      await page.getByLabel('Tab 1 title').fill('Overview');
      await page.getByRole('button', { name: 'Add tab' }).click();
      await page.getByLabel('Tab 2 title').fill('Pivot');
      await page.getByLabel('Tab of Regions by carrier').selectOption({ label: 'Pivot' });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('heading', { name: 'Carrier board', exact: true, level: 1 }).waitFor();
      const dashPath = new URL(page.url()).pathname;
      const dash = decodeURIComponent(dashPath.split('/').pop()!);
      const def = (await s.api('GET', `/projects/${s.demo}/pmd/obj/${dash}`)).json.object.def;
      expect(def.tabs.map((t: { title: string }) => t.title)).toEqual(['Overview', 'Pivot']);
      expect(def.items.map((i: { report?: string }) => i.report ?? 'text')).toEqual([
        'text',
        top.ident,
        kpi.ident,
        pivot.ident,
      ]);
      await page
        .locator('.dash-item')
        .getByRole('heading', { name: 'Carriers at a glance', level: 3 })
        .waitFor();
      await page.locator('.dash-item .kpi-value, .dash-item .dash-kpi-value').first().waitFor();
      await checkScreen(page, 'bi-dashboard');
      await page.getByRole('tab', { name: 'Pivot' }).click();
      await page.locator('.dash-item tr.total').first().waitFor();
      await checkScreen(page, 'bi-dashboard-pivot');
      await page.getByRole('tab', { name: 'Overview' }).click();

      // 5. From the top carrier's bar to the flights behind it.
      const chart = page.getByRole('group', { name: /^Top 10 carriers: chart\./ });
      const bars = chart.locator('.chart-canvas svg path[fill="#2f6fde"]');
      await expect.poll(() => bars.count()).toBe(topRows.length);
      await page.waitForFunction("!document.querySelector('.dash-item [aria-busy=true]')");
      await chart.scrollIntoViewIfNeeded();
      const [first] = topRows;
      let opened = false;
      for (const bar of await bars.all()) {
        const box = (await bar.boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        const tip = page.getByText(/ · Count of flights: [\d,]+$/);
        await tip.waitFor();
        if (!(await tip.textContent())!.startsWith(`${first![0]} · `)) continue;
        await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
        await page
          .getByRole('menu')
          .getByRole('menuitem', { name: 'See the rows behind it' })
          .click();
        opened = true;
        break;
      }
      expect(opened, `a bar says ${first![0]}`).toBe(true);
      await page.waitForURL((u) => u.pathname.endsWith('/explore'));
      const { head, rows } = await resultTable(page);
      const carrier = head.indexOf('Carrier Name');
      expect(carrier).toBeGreaterThanOrEqual(0);
      const names = rows.map((r) => r[carrier]);
      expect(names.length).toBeGreaterThan(0);
      expect(new Set(names)).toEqual(new Set([first![0]]));
      // A listing is a table, not a chart of its rows.
      expect(await page.locator('.explore-chart .chart-canvas svg').count()).toBe(0);
      await checkScreen(page, 'bi-rows');
      await page.goBack();
      await page.getByRole('heading', { name: 'Carrier board', exact: true, level: 1 }).waitFor();

      // 6. Exports: the dashboard as PDF, the top 10's chart as PNG and its rows as XLSX.
      const [pdf] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export to PDF' }).click(),
      ]);
      expect(pdf.suggestedFilename()).toBe('Carrier board.pdf');
      const pdfText = execFileSync('pdftotext', ['-layout', (await pdf.path())!, '-'], {
        encoding: 'utf8',
      });
      for (const expected of ['Carrier board', 'Carriers at a glance', 'Top 10 carriers'])
        expect(pdfText, `the PDF's text lacks "${expected}"`).toContain(expected);
      const [png] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'PNG of Top 10 carriers' }).click(),
      ]);
      expect(png.suggestedFilename()).toBe('Carrier board - Top 10 carriers.png');
      expect(pngHeader(fs.readFileSync((await png.path())!)).width).toBe(1200);
      const [xlsx] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'XLSX of Top 10 carriers' }).click(),
      ]);
      expect(xlsx.suggestedFilename()).toBe('Carrier board - Top 10 carriers.xlsx');
      const sheet = sheetRows(
        unzip(fs.readFileSync((await xlsx.path())!)).get('xl/worksheets/sheet1.xml')!,
      );
      expect(sheet[0]).toEqual(['Carrier Name', 'Count of flights']);
      expect(sheet.slice(1)).toEqual(topRows);
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  }, 240_000);
});
