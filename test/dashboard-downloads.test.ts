// Downloads of a dashboard item's data with the dashboard's filters (GET app/dashboards/{id}/
// items/{item}, every row, CSV and XLSX) and XLSX wherever the API answers CSV: the workbook
// is read back (its zip and sheet XML) and compared with the JSON rows. In the app, each item
// links both, with the filters of the address; a chart's values filter the dashboard.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, signedIn, skipBrowser } from './helpers/app-browser.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { sheetRows, unzip } from './helpers/xlsx.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

const DASH = 'dashboard.demo_flights';
const WEST = 'filter=attr.airports.region:West';

describe('dashboard item downloads', () => {
  let s: TestServer;
  let browser: Browser | undefined;
  const item = (id: string, query: string) =>
    `/projects/${s.demo}/app/dashboards/${DASH}/items/${id}${query}`;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await waitForDemo(s);
    if (!skipBrowser) browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('answers an item with the filters: JSON, CSV and an XLSX that holds the same rows', async () => {
    const json = await s.api('GET', item('carriers', `?${WEST}`));
    expect(json.status, json.text).toBe(200);
    const whole = await s.api('GET', `/projects/${s.demo}/app/dashboards/${DASH}?${WEST}`);
    const onDashboard = whole.json.items.find((i: { id: string }) => i.id === 'carriers');
    expect(json.json.item.rows).toEqual(onDashboard.rows);
    const rows = json.json.item.rows as (string | number)[][];
    const columns = (json.json.item.columns as { title: string }[]).map((c) => c.title);
    expect(rows.length).toBeGreaterThan(1);

    const csv = await fetch(`${s.url}/api/v1${item('carriers', `?${WEST}&format=csv`)}`, {
      headers: { authorization: `Bearer ${await s.token(ADMIN)}` },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="${DASH}.carriers.csv"`,
    );
    expect((await csv.text()).split('\r\n')[0]).toBe(columns.join(','));

    const xlsx = await fetch(`${s.url}/api/v1${item('carriers', `?${WEST}`)}`, {
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        accept: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      },
    });
    expect(xlsx.status).toBe(200);
    expect(xlsx.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const files = unzip(Buffer.from(await xlsx.arrayBuffer()));
    expect([...files.keys()]).toEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'xl/workbook.xml',
      'xl/_rels/workbook.xml.rels',
      'xl/worksheets/sheet1.xml',
    ]);
    const sheet = sheetRows(files.get('xl/worksheets/sheet1.xml')!);
    expect(sheet[0]).toEqual(columns);
    // Numbers as numbers (a rate keeps its digits), names as text, every row.
    expect(sheet.slice(1)).toEqual(rows.map((r) => r.map((c) => (c === null ? '' : c))));
  });

  it('offers XLSX wherever the API offers CSV; an unknown item is a 404', async () => {
    const report = await fetch(
      `${s.url}/api/v1/projects/${s.demo}/app/reports/report.demo_flights_by_carrier?format=xlsx`,
      { headers: { authorization: `Bearer ${await s.token(ADMIN)}` } },
    );
    expect(report.status).toBe(200);
    const sheet = sheetRows(
      unzip(Buffer.from(await report.arrayBuffer())).get('xl/worksheets/sheet1.xml')!,
    );
    expect(sheet[0]).toEqual(['Carrier Name', 'Number of Flights']);
    expect(sheet.length).toBe(11);
    const missing = await s.api('GET', item('nope', ''));
    expect(missing.status).toBe(404);
    expect(missing.json.message).toBe(`item "nope" not found on dashboard "${DASH}"`);
  });

  it.skipIf(skipBrowser)(
    'drills down: the chart’s data opened under it, a value filters the dashboard',
    async () => {
      const { page, problems, close } = await signedIn(
        browser!,
        s,
        ADMIN,
        ADMIN_PASSWORD,
        `/app/p/${s.demo}/dashboards/${DASH}`,
      );
      try {
        const kpi = page.locator('[data-item=flights] .dash-kpi-value');
        const rest = async (q: string) =>
          (await s.api('GET', `/projects/${s.demo}/app/dashboards/${DASH}${q}`)).json.items.find(
            (i: { id: string }) => i.id === 'flights',
          ).kpi.formatted as string;
        await expect.poll(() => kpi.textContent()).toBe(await rest(''));
        await page.locator('[data-item=by_region] summary').click();
        // The data's table (the chart's marks' menus carry the same name).
        await page
          .locator('[data-item=by_region] table')
          .getByRole('button', { name: 'Filter the dashboard by Origin Region: West' })
          .click();
        await expect.poll(() => kpi.textContent()).toBe(await rest(`?${WEST}`));
        expect(decodeURIComponent(new URL(page.url()).search)).toBe(`?${WEST}`);
        // A column the dashboard has no filter for stays plain text.
        await page.locator('[data-item=by_carrier] summary').click();
        await page.locator('[data-item=by_carrier] td').first().waitFor();
        expect(await page.locator('[data-item=by_carrier] button.dash-drill').count()).toBe(0);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );

  it.skipIf(skipBrowser)(
    'links each item’s CSV and XLSX in the app, with the address’s filters',
    async () => {
      const { page, problems, close } = await signedIn(
        browser!,
        s,
        ADMIN,
        ADMIN_PASSWORD,
        `/app/p/${s.demo}/dashboards/${DASH}?${WEST}`,
      );
      try {
        const link = page.getByRole('link', { name: 'XLSX of Carriers' });
        const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
        expect(download.suggestedFilename()).toBe(`${DASH}.carriers.xlsx`);
        const sheet = sheetRows(
          unzip(fs.readFileSync((await download.path())!)).get('xl/worksheets/sheet1.xml')!,
        );
        const rest = await s.api('GET', item('carriers', `?${WEST}`));
        expect(sheet.length).toBe(rest.json.item.rows.length + 1);
        expect(await page.getByRole('link', { name: 'CSV of Carriers' }).getAttribute('href')).toBe(
          `/api/v1${item('carriers', `?${WEST}&format=csv`)}`,
        );
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );
});
