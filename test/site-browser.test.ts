// The public site in headless Chromium: every page renders without console errors (the CSP
// would report any blocked resource there), every same-origin link on every page answers
// 200, and screenshots of each page (plus the homepage at phone width) are kept in
// test/artifacts/ for a person to look at.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPosts } from '../src/site/posts.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!haveChromium && !inCi)
  console.warn(
    `site-browser.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  );

const ARTIFACTS = fileURLToPath(new URL('artifacts/', import.meta.url));
const posts = loadPosts();

/** Pages to open, with the screenshot name of those we keep a picture of. */
const PAGES: { path: string; shot?: string }[] = [
  { path: '/', shot: 'home' },
  { path: '/pricing', shot: 'pricing' },
  { path: '/blog', shot: 'blog' },
  { path: '/blog?page=2', shot: 'blog-page-2' },
  ...posts.map((p, i) => ({ path: `/blog/${p.slug}`, shot: i === 0 ? 'post' : undefined })),
];

describe.skipIf(!haveChromium && !inCi)('public site in headless Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const checked = new Map<string, number>();

  beforeAll(async () => {
    if (!haveChromium)
      throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
    s = await startTestServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning')
        problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
    page.on('response', (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} for ${r.url()}`);
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Status of a same-origin GET, each URL fetched once for the whole suite. */
  async function statusOf(url: string): Promise<number> {
    let status = checked.get(url);
    if (status === undefined) {
      const r = await page.request.get(url, { maxRedirects: 0 });
      checked.set(url, (status = r.status()));
    }
    return status;
  }

  it('renders every page without console errors, and every link resolves', async () => {
    for (const { path: p, shot } of PAGES) {
      problems.length = 0;
      // networkidle: the icon request finishes here, not aborted by the next page's navigation.
      const r = await page.goto(`${s.url}${p}`, { waitUntil: 'networkidle' });
      expect(r?.status(), p).toBe(200);
      // The stylesheet applied: the header has its background, not the browser default.
      const bg = await page.evaluate(
        `getComputedStyle(document.querySelector('.site-header')).backgroundColor`,
      );
      expect(bg, p).not.toBe('rgba(0, 0, 0, 0)');
      expect(await page.locator('h1').count(), p).toBe(1);
      // Images loaded (naturalWidth 0 means broken).
      const broken = (await page.evaluate(
        `[...document.images].filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src)`,
      )) as string[];
      expect(broken, p).toEqual([]);
      const links = (await page.evaluate(
        `[...document.querySelectorAll('a[href]')].map((a) => a.href)`,
      )) as string[];
      expect(links.length, p).toBeGreaterThan(10);
      for (const href of links) {
        const url = new URL(href);
        if (url.origin !== s.url) continue;
        url.hash = '';
        expect(await statusOf(url.href), `${p} → ${href}`).toBe(200);
      }
      expect(problems, p).toEqual([]);
      if (shot) {
        const file = path.join(ARTIFACTS, `site-${shot}.png`);
        await page.screenshot({ path: file, fullPage: true });
        expect(fs.statSync(file).size, file).toBeGreaterThan(5000);
      }
    }
    // Links found across all pages include every kind of target the nav promises.
    for (const p of ['/api/v1', '/auth/login?next=/app', '/llms.txt', '/.well-known/mcp.json'])
      expect(checked.get(`${s.url}${p}`), p).toBe(200);
  }, 120_000);

  it('fits a 375 px phone screen without horizontal scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 375, height: 740 } });
    try {
      for (const p of ['/', '/pricing', '/blog', `/blog/${posts[0]!.slug}`]) {
        await phone.goto(`${s.url}${p}`);
        const overflow = (await phone.evaluate(
          `document.documentElement.scrollWidth - document.documentElement.clientWidth`,
        )) as number;
        expect(overflow, p).toBeLessThanOrEqual(0);
      }
      await phone.goto(`${s.url}/`);
      const file = path.join(ARTIFACTS, 'site-home-375.png');
      await phone.screenshot({ path: file, fullPage: true });
      expect(fs.statSync(file).size).toBeGreaterThan(5000);
    } finally {
      await phone.close();
    }
  }, 60_000);
});
