// The data screens of the app in Chromium against the real server: the Model screen edits an
// object (a metric's title, description, tags, number format and readers; a fact's title) as
// an MD Admin, shows a taken title at the field, changes a column's role (attribute ↔ fact:
// its dataset loaded again; a refused structure shows the API's reason), and offers a plain
// member no editing (the API answers them 403); the header's search ("/" focuses it) finds
// datasets, metrics, reports and dashboards by kind, only those the member may read, each
// opening its screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { describeViolations, seriousViolations } from './helpers/axe.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';
import { aclFor } from '../src/app/screens/model/acl.js';

const MD = 'screens-md@example.com';
const VIEWER = 'screens-viewer@example.com';
const PASSWORD = 'member-password-1';

describe('the readers an edit gives an object', () => {
  it('keeps other positions, gives or takes reading, and empties for every member', () => {
    const acl = [
      { userrole: 'sales', acl: 'rw---' },
      { userrole: 'board', acl: 'r----' },
    ];
    expect(aclFor(acl, true, ['sales'])).toEqual([]);
    expect(aclFor(acl, false, ['finance', 'sales'])).toEqual([
      { userrole: 'sales', acl: 'rw---' },
      { userrole: 'finance', acl: 'r----' },
    ]);
    // Reading taken from sales keeps its writing; board, left with nothing, goes.
    expect(aclFor(acl, false, [])).toEqual([{ userrole: 'sales', acl: '-w---' }]);
  });
});

describe.skipIf(skipBrowser)('the web application: model editing and search', () => {
  let s: TestServer;
  let browser: Browser;
  let model: string;

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer({ URSA_DEMO_DATA: 'true' }), launch()]);
    await waitForDemo(s);
    await invite(s, s.demo, MD, { mdadmin: true });
    await invite(s, s.demo, VIEWER);
    for (const who of [MD, VIEWER]) await s.engine.accounts.setPassword(who, PASSWORD);
    const made = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: [
        { ident: 'sales', type: 'userrole', name: 'Sales', def: {} },
        {
          ident: 'report.flights_for_sales',
          type: 'report',
          name: 'Flights for sales only',
          def: { aql: 'SELECT [Number of Flights]', visualization: { type: 'kpi' } },
          acl: [{ userrole: 'sales', acl: 'r----' }],
        },
      ],
    });
    expect(made.status, made.text).toBe(201);
    model = `/app/p/${s.demo}/model`;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it("edits a metric's title, description, tags, format and readers, and a fact's title", async () => {
    const metric = `/projects/${s.demo}/pmd/obj/metric.avg_arrival_delay`;
    const before = (await s.api('GET', metric)).json.object;
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MD,
      PASSWORD,
      `${model}/metric.avg_arrival_delay`,
    );
    page.setDefaultTimeout(10_000);
    try {
      await page.getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit' });
      await form.getByLabel('Title').fill('Late arrival (minutes)');
      await form.getByLabel('Description').fill('Minutes late on arrival, on average');
      await form.getByLabel(/^Tags/).fill('delays, operations');
      await form.getByLabel(/^Number format/).fill('#,##0.00" min"');
      // The format previewed as it will show.
      await expect.poll(() => form.locator('output').textContent()).toBe('1,234,567.89 min');
      await form.getByLabel('Only members holding these roles (and MD Admins, Admins):').check();
      await form.getByRole('checkbox', { name: 'sales' }).check();
      await screenshots(page, 'model-edit');
      expect(
        await seriousViolations(page),
        describeViolations(await seriousViolations(page)),
      ).toEqual([]);
      await form.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved as revision' }).waitFor();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Late arrival (minutes)');
      const after = (await s.api('GET', metric)).json.object;
      expect(after).toMatchObject({
        name: 'Late arrival (minutes)',
        description: 'Minutes late on arrival, on average',
        tag: ['delays', 'operations'],
        acl: [{ userrole: 'sales', acl: 'r----' }],
        def: { ...before.def, format: '#,##0.00" min"' },
      });
      expect(after.revision).toBe(before.revision + 1);

      // A title another object has: the API's 409 at the field.
      await page.getByRole('button', { name: 'Edit' }).click();
      await form.getByLabel('Title').fill('Avg Departure Delay');
      await form.getByRole('button', { name: 'Save' }).click();
      const title = form.getByLabel('Title');
      await expect.poll(() => title.getAttribute('aria-invalid')).toBe('true');
      expect(await form.locator('#model-edit-name-error').textContent()).toMatch(
        /Avg Departure Delay/,
      );
      await form.getByRole('button', { name: 'Cancel' }).click();

      // A column's title (a fact): AQL finds it by its new title.
      await page.goto(`${s.url}${model}/fact.flights.distance`);
      await page.getByRole('button', { name: 'Edit' }).click();
      await form.getByLabel('Title').fill('Distance flown');
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Distance flown');
      const q = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        headers: { prefer: 'wait=30' },
        body: { aql: 'SELECT SUM([Distance flown])' },
      });
      expect(q.status, q.text).toBe(200);
      expect(problems.filter((p) => !/status of 409/.test(p))).toEqual([]);
    } finally {
      await close();
    }
  });

  it('offers a plain member no editing; the API refuses them with 403', async () => {
    const { page, close } = await signedIn(
      browser,
      s,
      VIEWER,
      PASSWORD,
      `${model}/metric.number_of_flights`,
    );
    try {
      await page.locator('h1', { hasText: 'Number of Flights' }).waitFor();
      await page.getByRole('heading', { name: 'Definition' }).waitFor();
      expect(await page.getByRole('button', { name: 'Edit' }).count()).toBe(0);
    } finally {
      await close();
    }
    const path = `/projects/${s.demo}/pmd/obj/metric.number_of_flights`;
    const o = (await s.api('GET', path, { as: VIEWER })).json.object;
    const put = await s.api('PUT', path, {
      as: VIEWER,
      body: { ...o, link: undefined, name: 'Mine' },
    });
    expect(put.status).toBe(403);
    expect(put.json).toMatchObject({ statusCode: 403, message: expect.any(String) });
    expect((await s.api('GET', path)).json.object.name).toBe('Number of Flights');
  });

  it('finds datasets, metrics, reports and dashboards from the header, "/" first', async () => {
    const { page, problems, close } = await signedIn(browser, s, MD, PASSWORD, `/app/p/${s.demo}`);
    page.setDefaultTimeout(10_000);
    try {
      await page.locator('h1').first().waitFor();
      await page.keyboard.press('/');
      const box = page.getByRole('searchbox', {
        name: 'Search datasets, metrics, reports and dashboards',
      });
      expect(await page.evaluate('document.activeElement.id')).toBe('gsearch-input');
      await page.keyboard.type('flight');
      const panel = page.getByRole('region', { name: 'Search results' });
      await panel.getByRole('status').filter({ hasText: 'results for “flight”' }).waitFor();
      // Grouped by kind, in this order; other kinds (attributes…) are the Model's.
      expect(await panel.locator('h2').allTextContents()).toEqual([
        'Datasets',
        'Metrics',
        'Reports',
        'Dashboards',
      ]);
      const group = (name: string) =>
        panel.getByRole('region', { name }).or(panel.locator(`section:has(h2:text-is("${name}"))`));
      expect(await group('Datasets').getByRole('link').allTextContents()).toEqual(['flights']);
      expect(await group('Metrics').getByRole('link').allTextContents()).toContain(
        'Number of Flights',
      );
      expect(await group('Reports').getByRole('link').allTextContents()).toContain(
        'Flights for sales only',
      );
      expect(await group('Dashboards').getByRole('link').allTextContents()).toEqual([
        'Flights overview',
      ]);
      await screenshots(page, 'search');
      expect(
        await seriousViolations(page),
        describeViolations(await seriousViolations(page)),
      ).toEqual([]);
      // Each opens its screen: the dataset's page (Data, for an MD Admin).
      await group('Datasets').getByRole('link', { name: 'flights' }).click();
      await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}/data/datasets/flights`);
      // The address changes first; the results close as the new screen is drawn.
      await expect.poll(() => panel.count()).toBe(0);
      // From Explore, a report opens in Explore.
      await page.goto(`${s.url}/app/p/${s.demo}/explore`);
      await box.fill('carrier');
      await group('Reports').getByRole('link', { name: 'Flights by carrier' }).click();
      await page.waitForURL(
        (u) => u.searchParams.get('report') === 'report.demo_flights_by_carrier',
      );
      await expect.poll(() => page.locator('#aql').inputValue()).toContain('[Carrier Name]');
      await page.locator('.explore-result tbody tr').first().waitFor();
      // Typing "/" in a text field is a character, not the shortcut.
      await page.locator('#aql').press('End');
      await page.locator('#aql').press('/');
      expect(await page.evaluate('document.activeElement.id')).toBe('aql');
      // A dashboard opens its page; Escape closes the results.
      await box.fill('overview');
      await group('Dashboards').getByRole('link', { name: 'Flights overview' }).waitFor();
      await box.press('Escape');
      expect(await panel.count()).toBe(0);
      await box.fill('overvie');
      await group('Dashboards').getByRole('link', { name: 'Flights overview' }).click();
      await page.waitForURL(
        (u) => u.pathname === `/app/p/${s.demo}/dashboards/dashboard.demo_flights`,
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows a plain member only what they may read, at 390 px too', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      VIEWER,
      PASSWORD,
      `/app/p/${s.demo}`,
      { width: 390, height: 844 },
    );
    page.setDefaultTimeout(10_000);
    try {
      const box = page.getByRole('searchbox', {
        name: 'Search datasets, metrics, reports and dashboards',
      });
      await box.fill('flight');
      const panel = page.getByRole('region', { name: 'Search results' });
      await panel.getByRole('status').filter({ hasText: 'results for “flight”' }).waitFor();
      expect(await panel.getByRole('link', { name: 'Flights for sales only' }).count()).toBe(0);
      // A dataset opens in Explore, its rows counted (the Data section is not theirs).
      await panel.getByRole('link', { name: 'flights', exact: true }).click();
      await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}/explore`);
      expect(new URL(page.url()).searchParams.get('aql')).toBe(
        'SELECT COUNT([dataset.flights]) AS "Count of flights"',
      );
      const sideways = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(sideways).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  // Last: it loads the flights again with another structure.
  it("changes a column's role: a text column cannot be a fact (the API's 400, shown), Distance made an attribute is a breakdown in Explore", async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MD,
      PASSWORD,
      `${model}/attr.flights.carrier`,
    );
    page.setDefaultTimeout(20_000);
    try {
      const role = page.getByRole('region', { name: 'Role' });
      await role.getByText('is an attribute').waitFor();
      await role.getByRole('button', { name: 'Make it a fact' }).click();
      // The API checks the structure before anything loads: its reason, at the form.
      const refused = role.getByRole('alert');
      await expect.poll(() => refused.textContent()).toMatch(/carrier.*(numeric|number)/i);
      expect((await s.api('GET', `/projects/${s.demo}/pmd/obj/attr.flights.carrier`)).status).toBe(
        200,
      );

      await page.goto(`${s.url}${model}/fact.flights.distance`);
      await role.getByText('is a fact').waitFor();
      const explore = `/app/p/${s.demo}/explore`;
      const breakdowns = async () => {
        await page.goto(`${s.url}${explore}`);
        const pick = page
          .getByRole('region', { name: 'Build' })
          .getByRole('combobox', { name: 'Add a breakdown' });
        await pick.waitFor();
        return pick.locator('option').allTextContents();
      };
      const name = async (ident: string) =>
        (await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`)).json.object.name as string;
      // A fact: among the measures, not the breakdowns.
      const factName = await name('fact.flights.distance');
      expect(await breakdowns()).not.toContain(factName);
      await page.goto(`${s.url}${model}/fact.flights.distance`);
      await role.getByRole('button', { name: 'Make it an attribute' }).click();
      // The flights load again; the column's attribute opens once they have.
      await page.waitForURL((u) => u.pathname.endsWith('/model/attr.flights.distance'), {
        timeout: 60_000,
      });
      await role.getByText('is an attribute').waitFor();
      expect((await s.api('GET', `/projects/${s.demo}/pmd/obj/fact.flights.distance`)).status).toBe(
        404,
      );
      const attrName = await name('attr.flights.distance');
      await expect.poll(() => page.locator('h1').textContent()).toBe(attrName);
      await screenshots(page, 'model-role');
      expect(await breakdowns()).toContain(attrName);
      expect(problems.filter((p) => !/status of 400/.test(p))).toEqual([]);
    } finally {
      await close();
    }
  });
});
