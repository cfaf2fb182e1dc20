// Editing a dashboard in the web application (Chromium against the real server, the reports
// fixture on the demo project): items moved with the keyboard and resized with the mouse on
// the 12-column grid, a text item and a report added, one retitled, filters added; saved
// through PUT pmd/obj and read back over REST. Then the filters as a member uses them: a
// date range (between two days) and values picked from the attribute's list with a search,
// each compared with what REST computes; a bad date explained once, at its field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectOnlyRefused, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { restKpi as kpiOf, startWithReports } from './helpers/dashboard-app.js';
import { ADMIN, ADMIN_PASSWORD, type TestServer } from './helpers/server.js';

const DASH = 'dashboard.edit_me';
const GRID = 'dashboard.grid_moves';
const TABBED = 'dashboard.tabbed';
const JANUARY = 'attr.flights.flight_date:2024-01-01..2024-01-31';

describe.skipIf(skipBrowser)('the web application: editing a dashboard', () => {
  let s: TestServer;
  let browser: Browser;
  let page: string;

  const restKpi = (query: string) => kpiOf(s, DASH, query);
  const shownKpi = (p: Page) => p.locator('[data-item=kpi] .dash-kpi-value');

  beforeAll(async () => {
    ({ s, browser } = await startWithReports());
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: DASH,
          type: 'dashboard',
          name: 'Edit me',
          def: {
            items: [
              { id: 'kpi', report: 'report.kpi_miles' },
              { id: 'region', report: 'report.by_region' },
            ],
            layout: [
              { item: 'kpi', x: 0, y: 0, w: 3, h: 2 },
              { item: 'region', x: 3, y: 0, w: 6, h: 5 },
            ],
          },
        },
      ],
      ADMIN,
    );
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: TABBED,
          type: 'dashboard',
          name: 'Tabbed',
          def: {
            items: [
              { id: 'kpi', report: 'report.kpi_miles' },
              { id: 'region', report: 'report.by_region' },
            ],
            layout: [
              { item: 'kpi', x: 0, y: 0, w: 4, h: 2 },
              { item: 'region', x: 4, y: 0, w: 8, h: 5 },
            ],
            filters: [{ attribute: 'attr.airports.region' }],
          },
        },
        {
          ident: GRID,
          type: 'dashboard',
          name: 'Grid moves',
          def: {
            items: [
              { id: 'a', text: 'Alpha' },
              { id: 'b', text: 'Bravo' },
              { id: 'c', text: 'Charlie' },
              { id: 'd', text: 'Delta' },
            ],
            // A hole: rows 2–4 are empty above d.
            layout: [
              { item: 'a', x: 0, y: 0, w: 6, h: 2 },
              { item: 'b', x: 0, y: 2, w: 6, h: 3 },
              { item: 'c', x: 6, y: 0, w: 6, h: 2 },
              { item: 'd', x: 6, y: 5, w: 6, h: 2 },
            ],
          },
        },
      ],
      ADMIN,
    );
    page = `/app/p/${s.demo}/dashboards/${DASH}`;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('moves (keyboard), resizes (mouse), adds a text, a report and filters, retitles; saved', async () => {
    const { page: p, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, page);
    try {
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
      await p.getByRole('heading', { name: 'Editing Edit me' }).waitFor();

      // Keyboard: two columns right, then one wider with Shift+→.
      const move = p.getByRole('button', { name: 'Move Flights by region', exact: true });
      await move.focus();
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('ArrowRight');
      await p.keyboard.press('Shift+ArrowRight');
      await expect
        .poll(() => p.getByRole('status').filter({ hasText: 'Flights by region' }).textContent())
        .toBe('Flights by region: column 6, row 1, 7 columns wide, 5 rows high.');

      // Mouse: the KPI's resize handle dragged two columns right and one row down.
      const handle = p.getByRole('button', { name: 'Resize Miles flown', exact: true });
      await handle.scrollIntoViewIfNeeded();
      const grid = (await p.locator('.dash-grid.editing').boundingBox())!;
      const col = grid.width / 12;
      const box = (await handle.boundingBox())!;
      const [hx, hy] = [box.x + box.width / 2, box.y + box.height / 2];
      await p.mouse.move(hx, hy);
      await p.mouse.down();
      for (let i = 1; i <= 10; i++) await p.mouse.move(hx + (col * 2 * i) / 10, hy + (70 * i) / 10);
      await p.mouse.up();
      await p.getByText('Miles flown: column 1, row 1, 5 columns wide, 3 rows high.').waitFor();

      // A text, a report, a new title, two filters.
      await p.getByLabel('A text (a heading or a note)').fill('Miles are great-circle distances.');
      await p.getByRole('button', { name: 'Add text' }).click();
      await p.getByLabel('A saved report').selectOption({ label: 'Miles by carrier' });
      await p.getByRole('button', { name: 'Add report' }).click();
      await p.locator('[data-item=kpi]').getByLabel('Title').fill('Miles');
      await p.getByLabel('Filter by').selectOption({ label: 'Flight Date' });
      await p.getByRole('button', { name: 'Add filter' }).click();
      await p.getByLabel('Filter by').selectOption({ label: 'Origin Region' });
      await p.getByRole('button', { name: 'Add filter' }).click();
      await screenshots(p, 'dashboard-edit');
      await p.getByRole('button', { name: 'Save' }).click();
      await p.getByRole('heading', { name: 'Edit me', exact: true, level: 1 }).waitFor();

      const saved = await s.api('GET', `/projects/${s.demo}/pmd/obj/${DASH}`);
      const def = saved.json.object.def;
      expect(def.items).toEqual([
        { id: 'kpi', report: 'report.kpi_miles', title: 'Miles' },
        { id: 'region', report: 'report.by_region' },
        { id: 'text', text: 'Miles are great-circle distances.' },
        { id: 'carrier_pie', report: 'report.carrier_pie' },
      ]);
      expect(def.layout).toEqual([
        { item: 'kpi', x: 0, y: 0, w: 5, h: 3 },
        { item: 'region', x: 5, y: 0, w: 7, h: 5 },
        { item: 'text', x: 0, y: 5, w: 12, h: 4 },
        { item: 'carrier_pie', x: 0, y: 9, w: 6, h: 5 },
      ]);
      expect(def.filters).toEqual([
        { attribute: 'attr.flights.flight_date' },
        { attribute: 'attr.airports.region' },
      ]);
      // The saved dashboard as the member sees it: the text, the new report's chart, beside.
      await p.getByText('Miles are great-circle distances.').waitFor();
      await expect.poll(() => p.locator('.chart-live svg').count(), { timeout: 20_000 }).toBe(2);
      const [k, r] = await Promise.all(
        ['kpi', 'region'].map((id) => p.locator(`[data-item=${id}]`).boundingBox()),
      );
      expect(r!.x).toBeGreaterThan(k!.x + k!.width);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('keeps the grid compact, trades places without leapfrogging, undoes and redoes; a drag scrolls the page', async () => {
    const {
      page: p,
      problems,
      close,
    } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, `/app/p/${s.demo}/dashboards/${GRID}`, {
      width: 1280,
      height: 700,
    });
    const said = () => p.getByRole('status').filter({ hasText: /row/ }).textContent();
    const cellOf = async (id: string) =>
      /--y: (\d+)/.exec((await p.locator(`[data-item=${id}]`).getAttribute('style')) ?? '')?.[1];
    try {
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
      await p.getByRole('heading', { name: 'Editing Grid moves' }).waitFor();
      // The hole above Delta is closed as the editor opens.
      await expect.poll(() => cellOf('d')).toBe('3');

      // A row down onto Bravo: Alpha and Bravo trade places; Charlie and Delta stay.
      const moveA = p.getByRole('button', { name: 'Move Text', exact: true }).first();
      await moveA.focus();
      await p.keyboard.press('ArrowDown');
      await expect.poll(said).toBe('Text: column 1, row 4, 6 columns wide, 2 rows high.');
      expect([await cellOf('a'), await cellOf('b'), await cellOf('c'), await cellOf('d')]).toEqual([
        '4',
        '1',
        '1',
        '3',
      ]);
      // Undone with the button, redone with the keyboard (focus on a handle, not a text).
      await p.getByRole('button', { name: 'Undo' }).click();
      await expect.poll(() => cellOf('a')).toBe('1');
      await moveA.focus();
      await p.keyboard.press('Control+Shift+Z');
      await expect.poll(() => cellOf('a')).toBe('4');
      await p.keyboard.press('Control+Z');
      await expect.poll(() => cellOf('a')).toBe('1');
      await expect(p.getByRole('button', { name: 'Undo' }).isDisabled()).resolves.toBe(true);

      // Charlie removed: Delta rises into its rows.
      await p
        .locator('[data-item=c]')
        .getByRole('button', { name: /^Remove/ })
        .click();
      await expect.poll(() => cellOf('d')).toBe('1');

      // Delta dragged six columns left to the window's bottom edge and held there: the page
      // scrolls, Delta follows, and lands below Bravo (the grid is compact: no lower).
      const handle = p.locator('[data-item=d]').getByRole('button', { name: /^Move/ });
      await handle.scrollIntoViewIfNeeded();
      const box = (await handle.boundingBox())!;
      const col = (await p.locator('.dash-grid.editing').boundingBox())!.width / 12;
      const top = await p.evaluate<number>('window.scrollY');
      await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await p.mouse.down();
      await p.mouse.move(box.x + box.width / 2 - 6 * col, 690, { steps: 8 });
      await expect.poll(() => p.evaluate<number>('window.scrollY')).toBeGreaterThan(top + 100);
      await p.mouse.up();
      await expect.poll(() => cellOf('d')).toBe('6');
      expect(await cellOf('b')).toBe('3');
      await p.getByRole('button', { name: 'Save' }).click();
      await p.getByRole('heading', { name: 'Grid moves', exact: true, level: 1 }).waitFor();
      const saved = await s.api('GET', `/projects/${s.demo}/pmd/obj/${GRID}`);
      expect(saved.json.object.def.layout).toEqual([
        { item: 'a', x: 0, y: 0, w: 6, h: 2 },
        { item: 'b', x: 0, y: 2, w: 6, h: 3 },
        { item: 'd', x: 0, y: 5, w: 6, h: 2 },
      ]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('tabs, a filter wired to one item, auto-refresh: set in the editor, saved, used on the page; full screen', async () => {
    const dash = `/projects/${s.demo}/app/dashboards/${TABBED}`;
    const {
      page: p,
      problems,
      close,
    } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, `/app/p/${s.demo}/dashboards/${TABBED}`);
    try {
      await p.getByRole('button', { name: 'Edit', exact: true }).click();
      await p.getByRole('heading', { name: 'Editing Tabbed' }).waitFor();
      await p.getByRole('button', { name: 'Add tab' }).click();
      await p.getByLabel('Tab 1 title').fill('Overview');
      await p.getByRole('button', { name: 'Add tab' }).click();
      await p.getByLabel('Tab 2 title').fill('Detail');
      await p.getByLabel('Tab of Flights by region').selectOption({ label: 'Detail' });
      // The Overview tab's grid no longer shows it; the Detail tab's does.
      await expect.poll(() => p.locator('[data-item=region]').count()).toBe(0);
      await p.getByRole('tab', { name: 'Detail' }).click();
      await p.locator('[data-item=region]').waitFor();
      // The region filter narrows the KPI only.
      await p.getByText('Narrows every item').click();
      await p.locator('.dash-narrows-edit').getByLabel('Flights by region').uncheck();
      await p.getByText('Narrows Miles flown').waitFor();
      await p.getByLabel('Refresh automatically').selectOption({ label: 'Every minute' });
      await screenshots(p, 'dashboard-edit-tabs');
      await p.getByRole('button', { name: 'Save' }).click();
      await p.getByRole('heading', { name: 'Tabbed', exact: true, level: 1 }).waitFor();
      const def = (await s.api('GET', `/projects/${s.demo}/pmd/obj/${TABBED}`)).json.object.def;
      expect(def.tabs).toEqual([
        { id: 'tab_1', title: 'Overview' },
        { id: 'tab_2', title: 'Detail' },
      ]);
      expect(def.items).toEqual([
        { id: 'kpi', report: 'report.kpi_miles' },
        { id: 'region', report: 'report.by_region', tab: 'tab_2' },
      ]);
      expect(def.layout).toEqual([
        { item: 'kpi', x: 0, y: 0, w: 4, h: 2 },
        { item: 'region', x: 4, y: 0, w: 8, h: 5 },
      ]);
      expect(def.filters).toEqual([{ attribute: 'attr.airports.region', items: ['kpi'] }]);
      expect(def.refresh).toBe(60);

      // The page: the Overview tab first; the filter says what it narrows.
      await expect(
        p.getByRole('tab', { name: 'Overview' }).getAttribute('aria-selected'),
      ).resolves.toBe('true');
      await p.locator('[data-item=kpi] .dash-kpi-value').waitFor();
      expect(await p.locator('[data-item=region]').count()).toBe(0);
      await p.getByText('Narrows Miles flown only').waitFor();
      await p.getByText(/^Refreshes every minute; last at/).waitFor();
      await p.getByLabel('Origin Region', { exact: true }).fill('West');
      await p.getByRole('button', { name: 'Apply' }).click();
      await expect
        .poll(() => p.locator('[data-item=kpi] .dash-kpi-value').textContent())
        .toBe(await kpiOf(s, TABBED, '?filter=attr.airports.region:West'));
      // Arrow keys move between tabs; the chart by region still has every region.
      await p.getByRole('tab', { name: 'Overview' }).focus();
      await p.keyboard.press('ArrowRight');
      await p.locator('[data-item=region]').waitFor();
      const all = await s.api('GET', dash);
      const regions = all.json.items.find((i: { id: string }) => i.id === 'region').rows.length;
      expect(regions).toBeGreaterThan(1);
      await expect.poll(() => p.locator('[data-item=region] tbody tr').count()).toBe(regions);
      await screenshots(p, 'dashboard-tabs');

      // Full screen: the dashboard alone, left with the same button.
      await p.getByRole('button', { name: 'Full screen' }).click();
      await expect
        .poll(() => p.evaluate<string | null>('document.fullscreenElement?.className ?? null'))
        .toBe('dash');
      await p.getByRole('button', { name: 'Exit full screen' }).click();
      await expect
        .poll(() => p.evaluate<string | null>('document.fullscreenElement?.className ?? null'))
        .toBe(null);

      // A minute later the dashboard is read again, by itself.
      await p.clock.install();
      await p.reload();
      await p.getByText(/^Refreshes every minute/).waitFor();
      const again = p.waitForRequest((r) => r.url().includes(`/app/dashboards/${TABBED}?`));
      await p.clock.fastForward('01:05');
      await again;
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 90_000);

  it('starts a new dashboard from the list: edit mode at once, a Markdown text, a report previewed before saving', async () => {
    const list = `/app/p/${s.demo}/dashboards`;
    const { page: p, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, list);
    try {
      await p.getByRole('button', { name: 'New dashboard' }).click();
      await p.getByLabel('Title of the new dashboard').fill('Fresh board');
      await p.getByRole('button', { name: 'Create' }).click();
      await p.getByRole('heading', { name: 'Editing Fresh board' }).waitFor();
      const created = await s.api('GET', `/projects/${s.demo}/pmd/obj/dashboard.fresh_board`);
      expect(created.status, created.text).toBe(200);
      expect(created.json.object.def.items).toEqual([]);

      // A text in Markdown: previewed as it will show; markup and javascript: stay inert.
      const md =
        '## Read me\n\nSee [the wiki](https://wiki.example.com/x) and [no](javascript:alert(1)).\n\n- one\n- <b>two</b>';
      await p.getByLabel('A text (a heading or a note)').fill(md);
      await p.getByRole('button', { name: 'Add text' }).click();
      const preview = p.getByRole('region', { name: 'Text: preview' });
      await preview.getByRole('heading', { name: 'Read me', level: 3 }).waitFor();
      // A report added is drawn before saving, computed as the editor sees it.
      await p.getByLabel('A saved report').selectOption({ label: 'Miles flown' });
      await p.getByRole('button', { name: 'Add report' }).click();
      await expect
        .poll(() => p.locator('[data-item=kpi_miles] .dash-kpi-value').textContent())
        .toBe(await kpiOf(s, 'dashboard.ops', '', ADMIN));
      await screenshots(p, 'dashboard-new');
      await p.getByRole('button', { name: 'Save' }).click();
      await p.getByRole('heading', { name: 'Fresh board', exact: true, level: 1 }).waitFor();
      expect(new URL(p.url()).search).toBe('');

      const card = p.locator('[data-item=text]');
      await card.getByRole('heading', { name: 'Read me', level: 3 }).waitFor();
      const link = card.getByRole('link', { name: 'the wiki' });
      await expect(link.getAttribute('href')).resolves.toBe('https://wiki.example.com/x');
      await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
      expect(await card.getByRole('link').count()).toBe(1);
      await expect(card.getByRole('listitem').allTextContents()).resolves.toEqual([
        'one',
        '<b>two</b>',
      ]);
      expect(await card.locator('b').count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('filters by a date range and by values picked from a searchable list; a bad date once, at its field', async () => {
    const all = await restKpi('');
    const january = await restKpi(`?filter=${JANUARY}`);
    const west = await restKpi('?filter=attr.airports.region:West');
    expect(january).not.toBe(all);
    expect(west).not.toBe(all);
    for (const width of [1280, 390]) {
      const {
        page: p,
        problems,
        close,
      } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, page, { width, height: 900 });
      try {
        await expect.poll(() => shownKpi(p).textContent()).toBe(all);
        await p.getByLabel('Flight Date', { exact: true }).selectOption('between');
        await p.getByLabel('Flight Date from').fill('2024-01-01');
        await p.getByLabel('Flight Date to').fill('2024-01-31');
        await p.getByRole('button', { name: 'Apply' }).click();
        await expect.poll(() => shownKpi(p).textContent()).toBe(january);
        expect(decodeURIComponent(new URL(p.url()).search)).toBe(`?filter=${JANUARY}`);
        await p.getByRole('button', { name: 'Clear' }).click();
        await expect.poll(() => shownKpi(p).textContent()).toBe(all);

        // Values from the list the MCP tool get_attribute_values gives, narrowed by a search.
        await p.getByRole('button', { name: 'Choose Origin Region values' }).click();
        await p.getByLabel('Search Origin Region values').fill('we');
        const values = p.getByRole('group', { name: 'Origin Region values' });
        await expect.poll(() => values.getByRole('checkbox').count()).toBe(1);
        // Counted in flights (the facts), as REST counts them; a drop-down over the page.
        const listed = await s.api(
          'GET',
          `/projects/${s.demo}/pmd/obj/attr.airports.region/values?prefix=we`,
        );
        await values.getByText('counts of flights rows').waitFor();
        await expect(values.getByText(/^West/).textContent()).resolves.toBe(
          `West ${listed.json.values[0].count.toLocaleString('en-US')}`,
        );
        await expect(
          p.evaluate<string>("getComputedStyle(document.querySelector('.dash-values')).position"),
        ).resolves.toBe('absolute');
        await values.getByRole('checkbox', { name: /West/ }).check();
        await expect(p.getByLabel('Origin Region', { exact: true }).inputValue()).resolves.toBe(
          'West',
        );
        // Escape closes the list, back on its button.
        await p.keyboard.press('Escape');
        await expect.poll(() => values.count()).toBe(0);
        await p.getByRole('button', { name: 'Apply' }).click();
        await expect.poll(() => shownKpi(p).textContent()).toBe(west);
        expect(p.viewportSize()!.width).toBe(width);
        const overflow = await p.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(overflow).toBe(0);
        if (width === 1280) await screenshots(p, 'dashboard-filters');

        // A day that does not exist: the API's message once, under the date field.
        const bad = await s.api(
          'GET',
          `/projects/${s.demo}/app/dashboards/${DASH}?filter=attr.flights.flight_date:2024-02-30`,
        );
        expect(bad.status).toBe(400);
        await p.goto(`${s.url}${page}?filter=attr.flights.flight_date:2024-02-30`);
        const field = p
          .locator('.dash-filter-field')
          .filter({ has: p.getByLabel('Flight Date', { exact: true }) });
        await expect(field.getByRole('alert').textContent()).resolves.toBe(bad.json.message);
        expect(await p.getByText(bad.json.message).count()).toBe(1);
        expectOnlyRefused(problems, { 400: 1 });
      } finally {
        await close();
      }
    }
  }, 120_000);
});
