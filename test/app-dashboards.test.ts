// The Dashboards screen of the web application in Chromium against the real server (the
// reports fixture on the demo project): the list, a dashboard's charts, KPI and table, its
// filters kept in the address (and a bad one's message from the API), members' row filters
// and hidden reports, PDF export, and sharing privately and publicly. Every number the screen
// shows is compared with what REST answers for the same member and filter.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { expectOnlyRefused, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { restKpi as kpiOf, startWithReports } from './helpers/dashboard-app.js';
import { pixelAt, pngPixels } from './helpers/png.js';
import { OUTSIDER, VIEWER, WEST } from './helpers/reports-fixture.js';
import { ADMIN, ADMIN_PASSWORD, type TestServer } from './helpers/server.js';

const PASSWORD = 'member-password-1';
const WEST_REGION = 'filter=attr.airports.region:West';

describe.skipIf(skipBrowser)('the web application: dashboards', () => {
  let s: TestServer;
  let browser: Browser;
  let list: string;
  let ops: string;
  /** The KPI as REST computes it: for the Admin, with the West filter, for WEST. */
  const kpi: Record<'all' | 'west' | 'westMember', string> = { all: '', west: '', westMember: '' };

  const restKpi = (query: string, as = ADMIN) => kpiOf(s, 'dashboard.ops', query, as);

  /** The dashboard's KPI as the screen shows it. */
  const shownKpi = (page: Page) =>
    page.getByRole('region', { name: 'Miles flown' }).locator('.dash-kpi-value');

  beforeAll(async () => {
    ({ s, browser } = await startWithReports());
    for (const who of [VIEWER, WEST, OUTSIDER]) await s.engine.accounts.setPassword(who, PASSWORD);
    list = `/app/p/${s.demo}/dashboards`;
    ops = `${list}/dashboard.ops`;
    kpi.all = await restKpi('');
    kpi.west = await restKpi(`?${WEST_REGION}`);
    kpi.westMember = await restKpi('', WEST);
    // WEST's row filter is the West region: narrower than the whole, like the filter.
    expect(kpi.west).not.toBe(kpi.all);
    expect(kpi.westMember).not.toBe(kpi.all);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('lists dashboards and shows one: 4 charts, the KPI and the table; filters in the address', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, list);
    try {
      await page.getByRole('heading', { name: 'Dashboards', level: 1 }).waitFor();
      const card = page.getByRole('link', { name: /Operations/ });
      await expect(card.textContent()).resolves.toMatch(/Flights, miles and delays.*6 items/);
      await screenshots(page, 'dashboards-list');
      await card.click();
      await page.getByRole('heading', { name: 'Operations', level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe(ops);

      // Four live charts (their code loaded on demand), each drawn and described.
      const charts = page.locator('.chart-live');
      await expect.poll(() => charts.locator('svg').count(), { timeout: 20_000 }).toBe(4);
      for (const c of await charts.all()) {
        expect(await c.getAttribute('aria-label')).toMatch(/: chart\. Arrow keys/);
        expect(await c.locator('.chart-canvas').getAttribute('aria-label')).toMatch(/ · .+: \d/);
        expect(await c.locator('svg path').count()).toBeGreaterThan(3);
      }
      await expect(shownKpi(page).textContent()).resolves.toBe(kpi.all);
      const table = page.getByRole('region', { name: 'Carrier finance table' }).locator('table');
      await expect(table.locator('th').allTextContents()).resolves.toEqual([
        'Carrier Name',
        'Flights Flown',
        'Total Miles',
      ]);
      const align = await page.evaluate(
        `getComputedStyle(document.querySelector('[data-item=finance] tbody td:nth-child(2)')).textAlign`,
      );
      expect(align).toBe('right');
      // Laid out on the grid's 12 columns: the KPI (w 3) beside "By region" (w 9).
      const [k, r] = await Promise.all(
        ['Miles flown', 'By region'].map((n) =>
          page.getByRole('region', { name: n }).boundingBox(),
        ),
      );
      expect(r!.x).toBeGreaterThan(k!.x + k!.width);
      await screenshots(page, 'dashboard');

      // A filter: applied through the address, so the page can be bookmarked and reopened.
      await page.getByLabel('Origin Region', { exact: true }).fill('West');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.west);
      expect(decodeURIComponent(new URL(page.url()).search)).toBe(`?${WEST_REGION}`);
      await page.reload();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.west);
      await expect(page.getByLabel('Origin Region', { exact: true }).inputValue()).resolves.toBe(
        'West',
      );
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.all);
      expect(new URL(page.url()).search).toBe('');
      expect(problems).toEqual([]);

      // A value that is not of the attribute's type: the API's 400 next to the filters.
      const bad = await s.api(
        'GET',
        `/projects/${s.demo}/app/dashboards/dashboard.ops?filter=attr.flights.cancelled:maybe`,
      );
      expect(bad.status).toBe(400);
      await page.getByLabel('Cancelled').fill('maybe');
      await page.getByRole('button', { name: 'Apply' }).click();
      const filters = page.getByRole('form', { name: 'Filters' });
      await expect(filters.getByRole('alert').textContent()).resolves.toBe(bad.json.message);
      expect(await page.getByLabel('Cancelled').getAttribute('aria-invalid')).toBe('true');
      // Opened at a bookmark naming a filter the dashboard does not have.
      await page.goto(`${s.url}${ops}?filter=attr.nope:x`);
      await expect(filters.getByRole('alert').textContent()).resolves.toMatch(
        /"attr.nope" is not a filter of this dashboard/,
      );
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.all);
      // The two refused requests (the bad value, the unknown filter); nothing else.
      expectOnlyRefused(problems, { 400: 2 });
    } finally {
      await close();
    }
  });

  it('drills down from a chart: a tooltip on hover, a click or Enter on a bar opens its menu, which filters the dashboard', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, ops);
    try {
      const rest = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.ops`);
      const rows = (rest.json.items as { id: string; rows: [string, number][] }[]).find(
        (i) => i.id === 'region',
      )!.rows;
      // The live chart (its code loaded on demand) draws one bar per region, tallest first.
      const chart = page.getByRole('group', { name: /^By region: chart\./ });
      const bars = chart.locator('.chart-canvas svg path[fill="#2f6fde"]');
      await expect.poll(() => bars.count(), { timeout: 20_000 }).toBe(rows.length);
      const sorted = [...rows].sort((a, b) => b[1] - a[1]);
      const heights: number[] = [];
      for (const b of await bars.all()) heights.push((await b.boundingBox())!.height);
      expect(heights).toEqual([...heights].sort((a, b) => b - a));
      const at = sorted.findIndex((r) => r[0] === 'West');
      const west = (await bars.nth(at).boundingBox())!;

      // Hover: the tooltip says the region and its flights, as the table writes them.
      await page.mouse.move(west.x + west.width / 2, west.y + west.height - 4);
      const tip = page.getByText(/^West · /);
      await tip.waitFor();
      expect(await tip.textContent()).toMatch(/^West · .+: [\d,.]+$/);

      // A click: the menu, the whole bar its target (here its top edge).
      await page.mouse.click(west.x + west.width / 2, west.y + 2);
      const menu = page.getByRole('menu');
      await menu.waitFor();
      await menu
        .getByRole('menuitem', { name: 'Filter the dashboard by Origin Region: West' })
        .click();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.west);
      expect(decodeURIComponent(new URL(page.url()).search)).toBe(`?${WEST_REGION}`);
      await page.getByRole('button', { name: 'Clear' }).click();
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.all);

      // The keyboard: the chart is one tab stop; arrows to West (said aloud), Enter, Escape
      // closes the menu, Enter again and the item filters.
      await expect.poll(() => bars.count()).toBe(rows.length);
      await chart.focus();
      for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowRight');
      await expect.poll(() => chart.locator('[aria-live]').textContent()).toMatch(/^West · /);
      await page.keyboard.press('Enter');
      await menu.waitFor();
      await page.keyboard.press('Escape');
      await expect.poll(() => menu.count()).toBe(0);
      // The focus comes back to the chart (a frame after the menu goes, under load).
      await expect
        .poll(() => page.evaluate('document.activeElement.getAttribute("role")'))
        .toBe('group');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.evaluate('document.activeElement.textContent'))
        .toBe('Filter the dashboard by Origin Region: West');
      await page.keyboard.press('Enter');
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.west);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('draws the server’s charts dark in dark mode', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, ops);
    try {
      const chart = page.locator('[data-item=region] .chart-live');
      await expect.poll(() => chart.locator('svg').count(), { timeout: 20_000 }).toBe(1);
      const corner = async () => {
        const png = pngPixels(await chart.screenshot());
        return pixelAt(png, 3, 3).slice(0, 3);
      };
      const light = await corner();
      // The system's dark mode, as a person's browser starts with it.
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.reload();
      await expect.poll(async () => Math.max(...(await corner()))).toBeLessThan(60);
      expect(Math.min(...light)).toBeGreaterThan(200);
      await screenshots(page, 'dashboard-dark');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('exports the dashboard, as filtered, to PDF', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `${ops}?${WEST_REGION}`,
    );
    try {
      await expect.poll(() => shownKpi(page).textContent()).toBe(kpi.west);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export to PDF' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('Operations.pdf');
      const bytes = fs.readFileSync((await download.path())!);
      expect(bytes.subarray(0, 4).toString()).toBe('%PDF');
      await page.getByText('PDF saved.').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says why an item has no rows: a filter value that matches no member, with the closest', async () => {
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'report.typo_region',
          type: 'report',
          name: 'Typo region',
          def: {
            aql: 'SELECT [Carrier Name], [Flights Flown] WHERE [Origin Region] = "Wset"',
            visualization: { type: 'table' },
          },
        },
        {
          ident: 'dashboard.typo',
          type: 'dashboard',
          name: 'Typo',
          def: {
            items: [{ id: 'typo', report: 'report.typo_region' }],
            layout: [{ item: 'typo', x: 0, y: 0, w: 12, h: 4 }],
          },
        },
      ],
      ADMIN,
    );
    const rest = await s.api('GET', `/projects/${s.demo}/app/dashboards/dashboard.typo`);
    expect(rest.status, rest.text).toBe(200);
    const [warning] = rest.json.items[0].warnings as { message: string }[];
    expect(warning!.message).toMatch(/has no member "Wset"; closest members: "West"/);
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `${list}/dashboard.typo`,
    );
    try {
      const item = page.getByRole('region', { name: 'Typo region' });
      await item.getByText('No rows.').waitFor();
      await expect.poll(() => item.locator('.dash-warning').textContent()).toBe(warning!.message);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows each member their numbers: WEST their rows, VIEWER without the finance table', async () => {
    const west = await signedIn(browser, s, WEST, PASSWORD, ops);
    const viewer = await signedIn(browser, s, VIEWER, PASSWORD, ops);
    try {
      await expect.poll(() => shownKpi(west.page).textContent()).toBe(kpi.westMember);
      await expect.poll(() => shownKpi(viewer.page).textContent()).toBe(kpi.all);
      await expect
        .poll(() => viewer.page.locator('.chart-live svg').count(), { timeout: 20_000 })
        .toBe(4);
      expect(await viewer.page.getByText('Carrier finance table').count()).toBe(0);
      // VIEWER may not share: the dialog says so and offers no form.
      await viewer.page.getByRole('button', { name: 'Share…' }).click();
      const dialog = viewer.page.getByRole('dialog', { name: 'Share “Operations”' });
      await dialog.getByText('This dashboard is not shared').waitFor();
      await dialog.getByText(/needs the share \(s\) right/).waitFor();
      expect(await dialog.getByRole('button', { name: 'Share' }).count()).toBe(0);
      expect(west.problems).toEqual([]);
      // The share's GET answers 404 while the dashboard is not shared.
      expectOnlyRefused(viewer.problems, { 404: 1 });
    } finally {
      await west.close();
      await viewer.close();
    }
  });

  it('shares privately: the member named then finds it in their list', async () => {
    const outsider = await signedIn(browser, s, OUTSIDER, PASSWORD, list);
    const admin = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, ops);
    try {
      // Their roles open none of the fixture's: only the demo's own dashboard (no ACL).
      await outsider.page.getByRole('link', { name: /Flights overview/ }).waitFor();
      expect(await outsider.page.getByRole('link', { name: /Operations/ }).count()).toBe(0);

      const page = admin.page;
      const share = page.getByRole('button', { name: 'Share…' });
      await share.click();
      const dialog = page.getByRole('dialog', { name: 'Share “Operations”' });
      await dialog.getByText('This dashboard is not shared').waitFor();
      expect(
        await page.evaluate(`document.querySelector('dialog').contains(document.activeElement)`),
      ).toBe(true);
      await dialog.getByLabel('Members’ e-mail addresses').fill(OUTSIDER);
      await dialog.getByRole('button', { name: 'Share', exact: true }).click();
      await dialog.getByText(`Shared privately with ${OUTSIDER}.`).waitFor();
      const r = await s.api('GET', `/projects/${s.demo}/pmd/share/dashboard.ops`);
      expect(r.json.share).toMatchObject({ type: 'private', users: [OUTSIDER] });
      await screenshots(page, 'share');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Share…');

      await outsider.page.reload();
      await outsider.page.getByRole('link', { name: /Operations/ }).click();
      await expect.poll(() => shownKpi(outsider.page).textContent()).toBe(kpi.all);
      await expect
        .poll(() => outsider.page.locator('.chart-live svg').count(), { timeout: 20_000 })
        .toBe(4);
      // Shared with them only, they are told so, and not shown the share (404) nor a form.
      await outsider.page.getByRole('button', { name: 'Share…' }).click();
      const theirs = outsider.page.getByRole('dialog', { name: 'Share “Operations”' });
      await theirs.getByText('It was shared with you').waitFor();
      expect(await theirs.getByRole('button', { name: 'Share', exact: true }).count()).toBe(0);
      expectOnlyRefused(outsider.problems, { 404: 1 });
      expectOnlyRefused(admin.problems, { 404: 1 });
    } finally {
      await outsider.close();
      await admin.close();
    }
  });

  it('makes it public, turning embedding on in the dialog: its address opens without signing in', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD, ops);
    try {
      const open = async () => {
        await page.getByRole('button', { name: 'Share…' }).click();
        const d = page.getByRole('dialog', { name: 'Share “Operations”' });
        await d.getByText('Shared privately').waitFor();
        return d;
      };
      // Embedding off: the dialog explains, and shows the API's 403.
      const dialog = await open();
      await dialog.getByLabel(/Public/).check();
      await dialog.getByText('Public shares are off in this project').waitFor();
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(/dashboardEmbedding/);

      // Turned on in the dialog, with the sites that may frame it (a bad one refused first).
      const origins = dialog.getByLabel(/Sites that may frame it/);
      await origins.fill('ftp://intranet.example.com');
      await dialog.getByRole('button', { name: 'Turn on embedding' }).click();
      await expect.poll(() => origins.getAttribute('aria-invalid')).toBe('true');
      await origins.fill('https://intranet.example.com');
      await dialog.getByRole('button', { name: 'Turn on embedding' }).click();
      await dialog.getByText('Dashboard embedding is on').waitFor();
      const project = await s.api('GET', `/projects/${s.demo}`);
      expect(project.json.project).toMatchObject({
        dashboardEmbedding: true,
        embedOrigins: ['https://intranet.example.com'],
      });
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      const address = dialog.getByLabel('Public address');
      await address.waitFor();
      const url = await address.inputValue();
      expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{43}$/);
      await expect(dialog.getByLabel('Embed in a web page').inputValue()).resolves.toContain(
        `<iframe src="${url}"`,
      );
      await dialog.getByText('Only pages of https://intranet.example.com may frame it.').waitFor();
      // The test server's site address is localhost: the dialog says nobody else can open it.
      expect(new URL(url).hostname).toBe('localhost');
      await expect(dialog.getByRole('alert').textContent()).resolves.toMatch(
        /^This address is on localhost:\d+: only the computer running Ursa can open it\. Set the site address \(URSA_SITE_URL\)/,
      );
      await screenshots(page, 'share-public');

      const visitor = await browser.newContext();
      try {
        const v = await visitor.newPage();
        const res = await v.goto(url);
        expect(res!.status()).toBe(200);
        await v.getByRole('heading', { name: 'Operations' }).first().waitFor();
        // Its table writes numbers as the app does: each metric in its own format.
        const firstRow = (root: Page) =>
          root.locator('table').last().locator('tbody tr').first().locator('td').allTextContents();
        const shown = await firstRow(page);
        expect(shown).toEqual([
          'Alaska Airlines',
          expect.stringMatching(/^\d,\d{3} flights$/),
          expect.stringMatching(/^[\d,]+K mi$/),
        ]);
        await expect(firstRow(v)).resolves.toEqual(shown);
      } finally {
        await visitor.close();
      }

      // Stopping: asked first, then the address answers 404.
      await dialog.getByRole('button', { name: 'Stop sharing' }).click();
      await dialog.getByRole('button', { name: 'Yes, stop sharing' }).click();
      await dialog.getByText('This dashboard is not shared').waitFor();
      expect((await fetch(url)).status).toBe(404);
      // The public share refused while embedding was off; the bad origin.
      expectOnlyRefused(problems, { 403: 1, 400: 1 });
    } finally {
      await close();
    }
  });
});
