// A dashboard printed to PDF (app/export/url) lays its items out as on screen: the layout's
// rows become bands, several per page, pages breaking between them, and a table item printed
// whole (every row, across pages) instead of cut at its cell. The page that is printed is
// checked in Chromium with print media; the real export (read back with poppler) has the
// pages and the table's last row. Its public page shows the table in full (no inner scroll
// box) with numeric headers over their numbers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { sitePageHtml } from '../src/web/report-pages.js';
import { launch, skipBrowser } from './helpers/app-browser.js';
import { actorOf, waitForDemo } from './helpers/aql-demo.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

const DASH = 'dashboard.print_me';

/** Every page of a PDF as 8-bit gray pixels at 40 dpi (pdftoppm's PGMs). */
function pages(file: string): { width: number; height: number; pixels: Buffer }[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pages-'));
  execFileSync('pdftoppm', ['-r', '40', '-gray', file, path.join(dir, 'p')]);
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => {
      const pgm = fs.readFileSync(path.join(dir, f));
      const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))!;
      return { width: Number(m[1]), height: Number(m[2]), pixels: pgm.subarray(m[0].length) };
    });
}

/** The rows of a page that hold ink (anything darker than the white paper). */
function inkRows(p: { width: number; height: number; pixels: Buffer }): number[] {
  const rows: number[] = [];
  for (let y = 0; y < p.height; y++) {
    let ink = 0;
    for (let x = 0; x < p.width; x++) if (p.pixels[y * p.width + x]! < 245) ink++;
    rows.push(ink);
  }
  return rows;
}

async function printed(s: TestServer, dashboard: string): Promise<string> {
  const pdf = await fetch(`${s.url}/api/v1/projects/${s.demo}/app/export/url`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await s.token(ADMIN)}`,
      'content-type': 'application/json',
      accept: 'application/pdf',
    },
    body: JSON.stringify({
      url: `/api/v1/projects/${s.demo}/app/dashboards/${dashboard}`,
      landscape: true,
    }),
  });
  expect(pdf.status).toBe(200);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pdf-')), 'print.pdf');
  fs.writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
  return file;
}

describe.skipIf(skipBrowser)('a dashboard printed to PDF', () => {
  let s: TestServer;
  let browser: Browser;
  let days: number;

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer({ URSA_DEMO_DATA: 'true' }), launch()]);
    await waitForDemo(s);
    await s.engine.model.upsert(
      s.demo,
      [
        {
          ident: 'report.print_days',
          type: 'report',
          name: 'Flights per day of 2024',
          def: {
            aql: 'SELECT [Flight Date], [Number of Flights] WHERE YEAR([Flight Date]) = 2024',
            visualization: { type: 'table' },
          },
        },
        {
          ident: DASH,
          type: 'dashboard',
          name: 'Print me',
          def: {
            items: [
              { id: 'kpi', report: 'report.demo_flights' },
              { id: 'month', report: 'report.demo_flights_by_month' },
              { id: 'carrier', report: 'report.demo_flights_by_carrier' },
              { id: 'region', report: 'report.demo_passengers_by_region' },
              { id: 'days', report: 'report.print_days' },
            ],
            layout: [
              { item: 'kpi', x: 0, y: 0, w: 3, h: 3 },
              { item: 'month', x: 3, y: 0, w: 9, h: 5 },
              { item: 'carrier', x: 0, y: 5, w: 6, h: 5 },
              { item: 'region', x: 6, y: 5, w: 6, h: 5 },
              { item: 'days', x: 0, y: 10, w: 12, h: 5 },
            ],
          },
        },
      ],
      ADMIN,
    );
    const r = await s.api('GET', `/projects/${s.demo}/app/reports/report.print_days`);
    days = r.json.rowCount;
    expect(days).toBe(366);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('prints items side by side as laid out, and the whole table across pages', async () => {
    const url = new URL(`${s.url}/api/v1/projects/${s.demo}/app/dashboards/${DASH}`);
    const printed = (await sitePageHtml(s.engine, await actorOf(s, ADMIN), url))!;
    const context = await browser.newContext({ viewport: { width: 1047, height: 720 } });
    try {
      const page = await context.newPage();
      await page.emulateMedia({ media: 'print' });
      await page.setContent(printed.html);
      const box = (n: number) => page.locator(`.i${n}`).boundingBox();
      const [kpi, month, carrier, region] = await Promise.all([0, 1, 2, 3].map(box));
      // As on screen: the KPI beside the monthly line, the two charts of the next row beside
      // each other and below both.
      expect(month!.x).toBeGreaterThan(kpi!.x + kpi!.width);
      expect(Math.abs(month!.y - kpi!.y)).toBeLessThan(2);
      expect(region!.x).toBeGreaterThan(carrier!.x + carrier!.width);
      expect(carrier!.y).toBeGreaterThanOrEqual(month!.y + month!.height);
      // Three bands (layout rows); only the table's may break across pages.
      expect(await page.locator('.band').count()).toBe(3);
      expect(await page.locator('.band.long').count()).toBe(1);
      // The table whole: every row in the page, and its card as tall as its table.
      const table = page.locator('.i4');
      expect(await table.locator('tbody tr').count()).toBe(days);
      const cut = await table.evaluate((e) => e.scrollHeight - e.clientHeight);
      expect(cut).toBeLessThanOrEqual(1);
    } finally {
      await context.close();
    }

    const pdf = await fetch(`${s.url}/api/v1/projects/${s.demo}/app/export/url`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/json',
        accept: 'application/pdf',
      },
      body: JSON.stringify({ url: url.pathname, landscape: true }),
    });
    expect(pdf.status).toBe(200);
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pdf-')), 'print.pdf');
    fs.writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
    const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
    // 366 rows of about 30 px do not fit on a landscape A4 page: the table runs over several.
    expect(Number(/^Pages:\s+(\d+)/m.exec(info)![1])).toBeGreaterThanOrEqual(5);
    // Its first and last day are printed (the table is not cut at its cell).
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('2024-01-01');
    expect(text).toContain('2024-12-31');
  }, 60_000);

  it('packs an 8-item dashboard onto full pages: 3 landscape pages, none but the last mostly empty', async () => {
    // The demo's seven items (a KPI, five charts two by two, a table) and a text under them.
    const d = await s.api('GET', `/projects/${s.demo}/pmd/obj/dashboard.demo_flights`);
    const o = d.json.object;
    const eight = {
      type: 'dashboard',
      name: 'Eight items',
      def: {
        ...o.def,
        items: [...o.def.items, { id: 'note', text: '## Notes\nWhat the flights say.' }],
        layout: [...o.def.layout, { item: 'note', x: 0, y: 20, w: 12, h: 2 }],
      },
    };
    const made = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: eight });
    expect(made.status, made.text).toBe(201);
    const file = await printed(s, made.json.objects[0].ident);
    fs.mkdirSync('test/artifacts/app', { recursive: true });
    execFileSync('pdftoppm', ['-r', '40', '-png', file, 'test/artifacts/app/pdf-eight']);
    const all = pages(file);
    // Bands of the layout two to a page (a 5-row band no longer pushes the next to a new page).
    expect(all.length).toBe(3);
    for (const [n, p] of all.slice(0, -1).entries()) {
      const rows = inkRows(p);
      const lowest = rows.findLastIndex((r) => r > 0);
      expect(lowest / p.height, `page ${n + 1} is filled to`).toBeGreaterThan(0.7);
    }
  }, 60_000);

  it("closes a table's card frame on every page the table runs over", async () => {
    const file = await printed(s, DASH);
    const all = pages(file);
    expect(all.length).toBeGreaterThanOrEqual(4);
    // The pages holding only the table's continuation: the card's frame is drawn again at
    // their top and bottom (a line across the card), not left open at the page's edge.
    for (const [n, p] of all.slice(1, -1).entries()) {
      const rows = inkRows(p);
      const first = rows.findIndex((r) => r > 0);
      const last = rows.findLastIndex((r) => r > 0);
      expect(rows[first]! / p.width, `top of page ${n + 2}`).toBeGreaterThan(0.8);
      expect(rows[last]! / p.width, `bottom of page ${n + 2}`).toBeGreaterThan(0.8);
    }
  }, 60_000);

  it('on its public page, a table grows to its rows (no inner scroll box), numbers under right-aligned headers', async () => {
    const on = await s.api('PUT', `/projects/${s.demo}`, { body: { dashboardEmbedding: true } });
    expect(on.status, on.text).toBe(200);
    const share = await s.api('POST', `/projects/${s.demo}/pmd/share`, {
      body: { type: 'public', object: DASH, users: [] },
    });
    expect(share.status, share.text).toBe(201);
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      try {
        const page = await context.newPage();
        expect((await page.goto(share.json.share.url))!.status()).toBe(200);
        const table = page.locator('.i4');
        await table.locator('tbody tr').first().waitFor();
        // The card holds its table: nothing scrolls inside it but sideways.
        const inner = await page.evaluate(
          `(() => { const c = document.querySelector('.i4'); return c.scrollHeight - c.clientHeight; })()`,
        );
        expect(inner).toBeLessThanOrEqual(1);
        // The count column: its header's text ends where its numbers end.
        const ends = (await page.evaluate(`(() => {
          const end = (el) => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect().right; };
          const c = document.querySelector('.i4');
          return [end(c.querySelector('th:nth-child(2)')), end(c.querySelector('tbody td:nth-child(2)'))];
        })()`)) as [number, number];
        expect(Math.abs(ends[0] - ends[1])).toBeLessThan(2);
        const sideways = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(sideways).toBe(0);
      } finally {
        await context.close();
      }
    }
  });
});
