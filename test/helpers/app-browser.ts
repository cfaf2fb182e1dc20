// The web application in headless Chromium (playwright-core, the system's Chromium): a
// browser per test file, pages signed in through the real sign-in form, console errors and
// failed requests collected (the app's CSP reports what it blocks there), and screenshots at
// desktop and phone width kept under test/artifacts/app/ for a person to look at.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM_ARGS } from '../../src/engine/export/browser.js';
import { describeViolations, seriousViolations } from './axe.js';
import type { TestServer } from './server.js';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
/** Skip where Chromium is missing, except under CI=true (there the test must fail loudly). */
export const skipBrowser = !haveChromium && !inCi;
if (skipBrowser)
  console.warn(
    `web application browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  );

const ARTIFACTS = fileURLToPath(new URL('../artifacts/app/', import.meta.url));

export async function launch(): Promise<Browser> {
  if (!haveChromium)
    throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
  // Our export flags minus the host resolver rule: these pages talk to the test server.
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS.filter((a) => !a.startsWith('--host-resolver-rules')),
  });
}

export interface AppPage {
  page: Page;
  /** Console errors and failed requests seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** A new page (own cookies) signed in as `email` through /auth/login, opened at `path`. */
export async function signedIn(
  browser: Browser,
  s: TestServer,
  email: string,
  password: string,
  path = '/app',
  viewport = { width: 1280, height: 900 },
): Promise<AppPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${s.url}/auth/login?next=${encodeURIComponent(path)}`);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await Promise.all([
    page.waitForURL((u) => u.pathname.startsWith('/app')),
    page.click('button[type=submit]'),
  ]);
  return { page, problems, close: () => context.close() };
}

/** Screenshots of the page at 1280 and 390 px wide, as test/artifacts/app/<name>-<width>.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const before = page.viewportSize() ?? { width: 1280, height: 900 };
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: `${ARTIFACTS}${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize(before);
}

const REFUSED = /^console: Failed to load resource: the server responded with a status of (\d{3}) /;

/**
 * The problems other than Chromium's console notes of API answers with these statuses
 * (it logs every 4xx/5xx answer to a fetch; a test that provokes one expects that note).
 */
export const otherThan = (problems: string[], ...statuses: number[]): string[] =>
  problems.filter((p) => !statuses.includes(Number(REFUSED.exec(p)?.[1])));

/** Expects no problems but the notes of refused requests, exactly `refused` of each status. */
export function expectOnlyRefused(problems: string[], refused: Record<number, number> = {}) {
  const seen: Record<number, number> = {};
  const other = problems.filter((p) => {
    const m = REFUSED.exec(p);
    if (m) seen[Number(m[1])] = (seen[Number(m[1])] ?? 0) + 1;
    return !m;
  });
  expect(other).toEqual([]);
  expect(seen).toEqual(refused);
}

/** Fits at 390 and 1280 px (no sideways scrolling), no serious axe violation; screenshots. */
export async function checkScreen(page: Page, name: string): Promise<void> {
  const before = page.viewportSize()!;
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // Charts are redrawn for the width they have once the resize is seen: polled.
    await expect
      .poll(
        () =>
          page.evaluate(
            'document.documentElement.scrollWidth - document.documentElement.clientWidth',
          ),
        { message: `${name} at ${width} px scrolls sideways` },
      )
      .toBe(0);
    const violations = await seriousViolations(page);
    expect(violations, `${name} at ${width} px:\n${describeViolations(violations)}`).toEqual([]);
  }
  await page.setViewportSize(before);
  await screenshots(page, name);
}

/** Explore's result table: its column titles and rows as shown. */
export async function resultTable(page: Page) {
  const table = page.getByRole('region', { name: 'Result table' }).locator('table');
  await table.locator('tbody tr').first().waitFor({ timeout: 20_000 });
  const head = await table.locator('thead th').allTextContents();
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll(':scope > td')].map((td) => td.textContent ?? '')),
    );
  return { head, rows };
}
