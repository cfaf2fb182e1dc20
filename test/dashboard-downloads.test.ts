// Downloads of a dashboard item's data with the dashboard's filters (GET app/dashboards/{id}/
// items/{item}, every row, CSV and XLSX) and XLSX wherever the API answers CSV: the workbook
// is read back (its zip and sheet XML) and compared with the JSON rows. In the app, each item
// links both (a chart its PNG too), with the filters of the address; a chart's values filter
// the dashboard. A chart is also a PNG (…/chart.png), the very drawing of its SVG.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, signedIn, skipBrowser } from './helpers/app-browser.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { sheetRows, unzip } from './helpers/xlsx.js';
import { pngHeader } from './helpers/png.js';
import { svgToPng } from '../src/engine/reports/png.js';
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
    // Named by the dashboard's and the item's titles.
    expect(csv.headers.get('content-disposition')).toBe(
      `attachment; filename="Flights overview - Carriers.csv"; filename*=UTF-8''Flights%20overview%20-%20Carriers.csv`,
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
      'xl/styles.xml',
    ]);
    const sheet = sheetRows(files.get('xl/worksheets/sheet1.xml')!);
    expect(sheet[0]).toEqual(columns);
    // Numbers as numbers (a rate keeps its digits), names as text, every row.
    expect(sheet.slice(1)).toEqual(rows.map((r) => r.map((c) => (c === null ? '' : c))));
  });

  it('writes XLSX as on screen: dates as dates, measures in their number format, the title as file name', async () => {
    const get = async (path: string) => {
      const r = await fetch(`${s.url}/api/v1/projects/${s.demo}${path}`, {
        headers: { authorization: `Bearer ${await s.token(ADMIN)}` },
      });
      expect(r.status).toBe(200);
      return { r, files: unzip(Buffer.from(await r.arrayBuffer())) };
    };
    // Each cell's style, and the number format each style shows with.
    const styled = (files: Map<string, string>) => {
      const styles = files.get('xl/styles.xml')!;
      const custom = new Map(
        [...styles.matchAll(/<numFmt numFmtId="(\d+)" formatCode="([^"]*)"\/>/g)].map((m) => [
          Number(m[1]),
          m[2]!.replace(/&quot;/g, '"'),
        ]),
      );
      const builtIn: Record<number, string> = { 0: 'General', 3: '#,##0', 4: '#,##0.00' };
      const xfs = [...styles.split('<cellXfs')[1]!.matchAll(/<xf numFmtId="(\d+)"/g)].map(
        (m) => custom.get(Number(m[1])) ?? builtIn[Number(m[1])],
      );
      const sheet = files.get('xl/worksheets/sheet1.xml')!;
      return [...sheet.matchAll(/<row [^>]*>(.*?)<\/row>/g)].map((row) =>
        [...row[1]!.matchAll(/<c r="[A-Z]+\d+"(?: s="(\d+)")?( t="inlineStr")?>(.*?)<\/c>/g)].map(
          (c) => ({
            format: xfs[Number(c[1] ?? 0)],
            value: c[2]
              ? /<t[^>]*>(.*)<\/t>/.exec(c[3]!)![1]
              : Number(/<v>(.*)<\/v>/.exec(c[3]!)![1]),
          }),
        ),
      );
    };

    // A month is a date: Excel's serial day (2024-01-01 is 45292) shown as a date.
    const months = await get('/app/reports/report.demo_flights_by_month?format=xlsx');
    expect(months.r.headers.get('content-disposition')).toContain(
      'filename="Flights by month.xlsx"',
    );
    const byMonth = styled(months.files);
    expect(byMonth[1]![0]).toEqual({ format: 'yyyy-mm-dd', value: 45292 });
    // The count in its metric's format (#,##0).
    expect(byMonth[1]![1]!.format).toBe('#,##0');
    expect(typeof byMonth[1]![1]!.value).toBe('number');

    // A rate keeps every digit but shows as its metric's 0.00%; a delay as #,##0.0; names as text.
    const carriers = styled(
      (await get(`/app/dashboards/${DASH}/items/carriers?format=xlsx`)).files,
    );
    const json = await s.api(
      'GET',
      `/projects/${s.demo}/app/dashboards/${DASH}/items/carriers?exact=true`,
    );
    const titles = (json.json.item.columns as { title: string }[]).map((c) => c.title);
    expect(titles).toEqual([
      'Carrier Name',
      'Number of Flights',
      'Cancellation Rate',
      'Avg Arrival Delay',
    ]);
    expect(carriers[0]!.map((c) => c.format)).toEqual(['General', 'General', 'General', 'General']);
    expect(carriers[1]!.map((c) => c.format)).toEqual(['General', '#,##0', '0.00%', '#,##0.0']);
    expect(carriers[1]![2]!.value).toBe(json.json.item.rows[0][2]);
    expect(String(carriers[1]![2]!.value).length).toBeGreaterThan(6); // not cut to 0.02
    // The header row is bold (style 1).
    expect(months.files.get('xl/worksheets/sheet1.xml')).toContain(
      '<c r="A1" s="1" t="inlineStr">',
    );

    // A title beyond ASCII: exact in filename* (RFC 6266), plain ASCII in filename.
    const made = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: {
        type: 'report',
        name: 'Vols par région: "été"',
        def: {
          aql: 'SELECT [Carrier Name], [Number of Flights]',
          visualization: { type: 'table' },
        },
      },
    });
    expect(made.status, made.text).toBe(201);
    const named = await get(`/app/reports/${made.json.objects[0].ident}?format=xlsx`);
    expect(named.r.headers.get('content-disposition')).toBe(
      `attachment; filename="Vols par r_gion_ __t__.xlsx"; filename*=UTF-8''Vols%20par%20r%C3%A9gion_%20_%C3%A9t%C3%A9_.xlsx`,
    );

    // Explore's result (app/aql): a date as a date, a measure grouped (no metric: #,##0).
    const run = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      headers: { prefer: 'wait=30' },
      body: {
        aql: 'SELECT DATE_TRUNC("year", [Flight Date]) AS "Year", COUNT([flights]) AS "Count" ORDER BY 1',
      },
    });
    expect(run.status, run.text).toBe(200);
    const data = (run.json.link as { rel: string; href: string }[]).find(
      (l) => l.rel === 'data.created',
    )!;
    const explore = await fetch(`${s.url}${data.href}?format=xlsx`, {
      headers: { authorization: `Bearer ${await s.token(ADMIN)}` },
    });
    const year = styled(unzip(Buffer.from(await explore.arrayBuffer())));
    expect(year[1]).toEqual([
      { format: 'yyyy-mm-dd', value: 45292 },
      { format: '#,##0', value: expect.any(Number) },
    ]);
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

  it("draws an item's or a report's chart as a PNG: the page's drawing, with the filters", async () => {
    const token = await s.token(ADMIN);
    const png = (p: string) =>
      fetch(`${s.url}/api/v1/projects/${s.demo}${p}`, {
        headers: { authorization: `Bearer ${token}` },
      });
    const whole = await s.api('GET', `/projects/${s.demo}/app/dashboards/${DASH}?${WEST}`);
    const items = whole.json.items as { id: string; chart?: { svg: string }; title: string }[];
    const charted = items.find((i) => i.chart)!;
    const table = items.find((i) => !i.chart && i.title)!;
    expect(charted && table).toBeTruthy();

    const r = await png(`/app/dashboards/${DASH}/items/${charted.id}/chart.png?${WEST}&width=800`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('content-disposition')).toContain(
      `filename="Flights overview - ${charted.title}.png"`,
    );
    const bytes = Buffer.from(await r.arrayBuffer());
    expect(pngHeader(bytes).width).toBe(800);
    // The very drawing of the item's SVG with the same filters.
    expect(bytes.equals(await svgToPng(charted.chart!.svg, { width: 800 }))).toBe(true);
    const all = await png(`/app/dashboards/${DASH}/items/${charted.id}/chart.png?width=800`);
    expect(Buffer.from(await all.arrayBuffer()).equals(bytes)).toBe(false);

    const def = (await s.api('GET', `/projects/${s.demo}/pmd/obj/${DASH}`)).json.object.def;
    const reportId = (def.items as { id: string; report: string }[]).find(
      (i) => i.id === charted.id,
    )!.report;
    const report = await png(`/app/reports/${reportId}/chart.png`);
    expect(report.status).toBe(200);
    expect(pngHeader(Buffer.from(await report.arrayBuffer())).width).toBe(1200);

    const notChart = await s.api(
      'GET',
      `/projects/${s.demo}/app/dashboards/${DASH}/items/${table.id}/chart.png`,
    );
    expect(notChart.status).toBe(404);
    expect(notChart.json.message).toMatch(/is not drawn as a chart/);
    const tooSmall = await s.api(
      'GET',
      `/projects/${s.demo}/app/dashboards/${DASH}/items/${charted.id}/chart.png?width=10`,
    );
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.text).toContain('width');
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
    'links each item’s CSV and XLSX (a chart’s PNG too) in the app, with the address’s filters',
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
        expect(download.suggestedFilename()).toBe('Flights overview - Carriers.xlsx');
        const sheet = sheetRows(
          unzip(fs.readFileSync((await download.path())!)).get('xl/worksheets/sheet1.xml')!,
        );
        const rest = await s.api('GET', item('carriers', `?${WEST}`));
        expect(sheet.length).toBe(rest.json.item.rows.length + 1);
        expect(await page.getByRole('link', { name: 'CSV of Carriers' }).getAttribute('href')).toBe(
          `/api/v1${item('carriers', `?${WEST}&format=csv`)}`,
        );
        // A chart's PNG, drawn as on the page; a table has none.
        const whole = await s.api('GET', `/projects/${s.demo}/app/dashboards/${DASH}?${WEST}`);
        const items = whole.json.items as { id: string; chart?: unknown; title: string }[];
        const charted = items.find((i) => i.chart)!;
        const [png] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: `PNG of ${charted.title}` }).click(),
        ]);
        expect(png.suggestedFilename()).toBe(`Flights overview - ${charted.title}.png`);
        expect(pngHeader(fs.readFileSync((await png.path())!)).width).toBe(1200);
        for (const i of items.filter((x) => !x.chart && x.title))
          expect(await page.getByRole('link', { name: `PNG of ${i.title}` }).count()).toBe(0);
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    },
  );
});
