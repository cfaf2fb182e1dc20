// The browsable API in headless Chromium at 1280 px: a wide list of model objects with long
// AQL and long unbroken values stays inside the window (cells wrap, the page never scrolls
// sideways) and column headers stay on one line. A screenshot is kept in test/artifacts/.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
const ARTIFACTS = fileURLToPath(new URL('artifacts/', import.meta.url));

const STATES = ['CA', 'NY', 'TX', 'FL', 'WA', 'IL', 'GA', 'CO', 'AZ', 'MA', 'NV', 'OR', 'MN'];
const LONG_AQL =
  `SELECT SUM([Passengers]) * 1.0 / COUNT([Flight]) + AVG([Departure Delay]) - AVG([Arrival Delay]) ` +
  `WHERE [Origin State] IN (${STATES.map((s) => `"${s}"`).join(', ')}) AND [Distance] > 250`;
const UNBROKEN = `https://example.com/${'segment-without-spaces_'.repeat(12)}end`;

describe.skipIf(!haveChromium && !inCi)('browsable API tables at 1280 px', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!haveChromium)
      throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await waitForDemo(s);
    const objects = [1, 2, 3].map((n) => ({
      type: 'metric',
      name: `Seats per flight, corrected for delays, in busy states ${n}`,
      description: `Reference: ${UNBROKEN}. Counts every flight once, whatever its carrier.`,
      def: { aql: LONG_AQL, format: '#,##0.00' },
      tag: ['capacity', 'operations-dashboard', UNBROKEN.slice(0, 60)],
    }));
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: objects });
    expect(r.status, r.text).toBe(201);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('keeps a wide objects list inside the window, headers on one line', async () => {
    const page = await browser.newPage({
      viewport: { width: 1280, height: 900 },
      extraHTTPHeaders: { authorization: `Bearer ${await s.token('admin@example.com')}` },
    });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const r = await page.goto(`${s.url}/api/v1/projects/${s.demo}/pmd/obj?rel=object.metric`);
    expect(r?.status()).toBe(200);
    expect(await page.locator('table th').count()).toBeGreaterThan(8);
    // Kept before the checks, so a failure leaves the picture to look at.
    const file = path.join(ARTIFACTS, 'api-objects-1280.png');
    await page.screenshot({ path: file, fullPage: true });
    expect(fs.statSync(file).size).toBeGreaterThan(5000);
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - window.innerWidth',
    )) as number;
    expect(overflow).toBeLessThanOrEqual(0);
    // Each header's text lays out as one line box.
    const split = (await page.evaluate(`[...document.querySelectorAll('th')].filter((th) => {
      const range = document.createRange();
      range.selectNodeContents(th);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      return tops.size > 1;
    }).map((th) => th.textContent)`)) as string[];
    expect(split).toEqual([]);
    // Long code wraps in lines of text, not in slivers of a few characters: a table too wide
    // for the window scrolls inside its own box instead.
    // (The long AQL of this test's metrics; the demo's own metrics are one short line.)
    const aql = (await page.evaluate(`[...document.querySelectorAll('td dd')]
      .filter((dd) => dd.textContent.startsWith('SELECT SUM([Passengers]) * 1.0'))
      .map((dd) => {
        const range = document.createRange();
        range.selectNodeContents(dd);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        return dd.textContent.length / lines;
      })`)) as number[];
    expect(aql).toHaveLength(3);
    for (const charsPerLine of aql) expect(charsPerLine).toBeGreaterThan(25);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
