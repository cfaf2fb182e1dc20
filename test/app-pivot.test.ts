// Pivot tables and conditionally formatted tables in Chromium against the real server (the
// reports fixture on the demo project), at 1280 and 390 px: a dashboard shows a pivot with its
// subtotal and total rows (the totals REST computed at their grain), a wide pivot scrolling
// inside its card and never the page, and a table whose cells are coloured as the engine's
// rules say; in Explore, a report becomes a pivot from the picker and a table gains a rule.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { cellStyle, type ResolvedRule } from '../src/shared/conditional.js';
import { expectOnlyRefused, signedIn, skipBrowser } from './helpers/app-browser.js';
import { startWithReports } from './helpers/dashboard-app.js';
import { ADMIN, ADMIN_PASSWORD, type TestServer } from './helpers/server.js';

const ARTIFACTS = 'test/artifacts/app';
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Any = Record<string, any>;

async function shot(page: Page, name: string) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}/${name}.png`, fullPage: true });
}

/** The browser's globals this test reads (the test project has no DOM types). */
type Window = {
  getComputedStyle(e: unknown): Record<string, string>;
  document: { documentElement: { scrollWidth: number; clientWidth: number } };
};

/** A computed style of the element. */
const style = (l: Locator, property: string) =>
  l.evaluate((el, p) => (globalThis as unknown as Window).getComputedStyle(el)[p], property);

const rgb = (hex: string) =>
  `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

describe.skipIf(skipBrowser)('the web application: pivot tables and conditional formatting', () => {
  let s: TestServer;
  let browser: Browser;

  const save = async (ident: string, type: string, def: Any) => {
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: { ident, type, name: ident, def },
    });
    expect(r.status, r.text).toBe(201);
  };

  beforeAll(async () => {
    ({ s, browser } = await startWithReports());
    await save('report.pivot_months', 'report', {
      aql: 'SELECT [Origin Region], [Carrier Name], [Month], [Average Delay]',
      visualization: { type: 'pivot', rows: [1, 2], columns: 'Month' },
    });
    await save('report.coloured', 'report', {
      aql: 'SELECT [Carrier Name], [Flights Flown], [Total Miles]',
      visualization: {
        type: 'table',
        conditional: [
          { column: 'Flights Flown', type: 'scale', colors: ['#ffffff', '#1f5fbf'] },
          { column: 3, type: 'threshold', op: '<', value: 1e9, background: '#fde2e1' },
        ],
      },
    });
    await save('report.to_pivot', 'report', {
      aql: 'SELECT [Origin Region], [Cancelled], [Flights Flown]',
      visualization: { type: 'table' },
    });
    // A pivot of some 500 lines (each state's carriers): a PDF runs over several pages.
    await save('report.pivot_states', 'report', {
      aql: 'SELECT [Origin State], [Carrier Name], [Month], [Flights Flown]',
      visualization: { type: 'pivot', columns: 'Month' },
    });
    await save('dashboard.long', 'dashboard', {
      items: [{ id: 'states', report: 'report.pivot_states', title: 'Flights by state' }],
    });
    await save('dashboard.tables', 'dashboard', {
      items: [
        { id: 'pivot', report: 'report.pivot_months', title: 'Delay by month' },
        { id: 'coloured', report: 'report.coloured', title: 'Carriers' },
      ],
      layout: [
        { item: 'pivot', x: 0, y: 0, w: 8, h: 7 },
        { item: 'coloured', x: 8, y: 0, w: 4, h: 7 },
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  for (const width of [1280, 390]) {
    it(`at ${width} px: a dashboard's pivot with its totals, scrolling in its card, and a coloured table`, async () => {
      const rest = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.tables`, {});
      expect(rest.status, rest.text).toBe(200);
      const [pivotItem, coloured] = rest.json.items as Any[];
      const p = pivotItem!.pivot;
      const { page, problems, close } = await signedIn(
        browser,
        s,
        ADMIN,
        ADMIN_PASSWORD,
        `/app/p/${s.demo}/dashboards/dashboard.tables`,
        { width, height: width === 390 ? 844 : 900 },
      );
      try {
        const pivot = page.getByRole('region', { name: 'Delay by month: pivot table' });
        await pivot.locator('tbody tr').first().waitFor({ timeout: 20_000 });
        const lines = pivot.locator('tbody tr');
        expect(await lines.count()).toBe(p.lines.length);
        // A subtotal row per region, and the grand total last, as the API computed them.
        const regions = p.lines.filter((l: Any) => l.level === 1).length;
        expect(regions).toBeGreaterThan(1);
        expect(await pivot.locator('tbody tr.sub').count()).toBe(regions);
        const total = pivot.locator('tbody tr.total');
        expect(await total.locator('th').allTextContents()).toEqual(['Total']);
        const grand = p.lines.at(-1).cells.at(-1)[0] as number;
        // "0.0 min": the metric's format, the engine's grand total (the AVG over every flight).
        expect(await total.locator('td').last().textContent()).toBe(`${grand.toFixed(1)} min`);
        expect(await style(total.locator('td').last(), 'fontWeight')).toBe('650');
        // 12 months and a total: wider than its card, which scrolls; the page does not.
        const sizes = await pivot.evaluate((el) => ({
          inner: el.scrollWidth,
          box: el.clientWidth,
          page: (globalThis as unknown as Window).document.documentElement.scrollWidth,
          view: (globalThis as unknown as Window).document.documentElement.clientWidth,
        }));
        expect(sizes.inner).toBeGreaterThan(sizes.box);
        expect(sizes.page).toBeLessThanOrEqual(sizes.view);

        // The coloured table: each cell as shared/conditional.ts colours it from the API's rules.
        const table = page.getByRole('region', { name: 'Carriers: data' });
        const rules = coloured!.conditional as ResolvedRule[];
        const flights = (coloured!.rows as number[][]).map((r) => r[1]!);
        const most = flights.indexOf(Math.max(...flights));
        const cell = table.locator('tbody tr').nth(most).locator('td').nth(1);
        const want = cellStyle(rules, 1, flights[most])!;
        expect(want.background).toBe('#1f5fbf');
        expect(await style(cell, 'backgroundColor')).toBe(rgb(want.background!));
        expect(await style(cell, 'color')).toBe(rgb(want.color!));
        const miles = table.locator('tbody tr').first().locator('td').nth(2);
        expect(await style(miles, 'backgroundColor')).toBe(rgb('#fde2e1'));
        await shot(page, `pivot-dashboard-${width}`);
        expectOnlyRefused(problems);
      } finally {
        await close();
      }
    });
  }

  it('in a PDF: the pivot printed whole, its header repeated on each page, totals in bold rows', async () => {
    const res = await fetch(`${s.url}/api/v1/projects/${s.demo}/app/export/url`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/json',
        accept: 'application/pdf',
      },
      body: JSON.stringify({
        url: `${s.url}/api/v1/projects/${s.demo}/app/dashboards/dashboard.long`,
      }),
    });
    expect(res.status).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pivot-pdf-'));
    try {
      const file = path.join(dir, 'pivot.pdf');
      fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      fs.copyFileSync(file, `${ARTIFACTS}/pivot-dashboard.pdf`);
      const pages = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' })
        .split('\f')
        .filter((t) => t.trim());
      expect(pages.length).toBeGreaterThan(1);
      // Every page the pivot runs over starts with its header again, every column on the page.
      expect(pages.length).toBeGreaterThan(2);
      for (const t of pages) {
        expect(t).toMatch(/Flights Flown/);
        expect(t).toMatch(/Origin\s+Carrier/);
        expect(t).toMatch(/\b1\s+2\s+3\s+4\s+5\s+6\s+7\s+8\s+9\s+10\s+11\s+12\s+Total/);
      }
      // The grand total line at the end: each month's flights, then all of them.
      const all = (
        await s.api('GET', `/projects/${s.demo}/app/reports/report.pivot_states`, {})
      ).json.pivot.lines
        .at(-1)
        .cells.at(-1)[0] as number;
      expect(pages.at(-1)).toMatch(/^\s*Total\s/m);
      expect(pages.at(-1)).toContain(all.toLocaleString('en-US'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('in Explore: the picker makes a report a pivot, and a table gains a rule from the editor', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}/explore?report=report.to_pivot`,
    );
    try {
      const editor = page.getByRole('form', { name: 'Conditional formatting' });
      await editor.waitFor({ timeout: 20_000 });
      await editor.getByLabel('Column', { exact: true }).selectOption('Flights Flown');
      await editor.getByLabel('Rule', { exact: true }).selectOption('threshold');
      await editor.getByLabel('When the value is').selectOption('>');
      await editor.getByLabel('Value', { exact: true }).fill('0');
      await editor.getByRole('button', { name: 'Add the rule' }).click();
      await editor
        .getByText(/^Flights Flown greater than 0: background #fde2e1, text #b3261e/)
        .waitFor();
      const def = (await s.api('GET', `/projects/${s.demo}/pmd/obj/report.to_pivot`, {})).json
        .object.def;
      expect(def.visualization.conditional).toEqual([
        {
          column: 'Flights Flown',
          type: 'threshold',
          op: '>',
          value: 0,
          background: '#fde2e1',
          color: '#b3261e',
        },
      ]);
      const first = page.locator('.explore-drawn tbody tr').first().locator('td').nth(2);
      await expect.poll(() => style(first, 'backgroundColor')).toBe(rgb('#fde2e1'));
      await shot(page, 'pivot-explore-rule');

      await page.locator('#saved-visualization').selectOption('pivot');
      const pivot = page.getByRole('region', { name: 'report.to_pivot: pivot table' });
      await pivot.locator('tbody tr.total').waitFor({ timeout: 20_000 });
      const after = (await s.api('GET', `/projects/${s.demo}/pmd/obj/report.to_pivot`, {})).json
        .object.def.visualization;
      // A pivot has no conditional formatting: the picker leaves the rules out.
      expect(after).toEqual({ type: 'pivot' });
      await shot(page, 'pivot-explore');
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  });
});
