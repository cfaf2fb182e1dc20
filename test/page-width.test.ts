// No server-rendered page scrolls sideways on a phone: at 320 and 390 px wide, in headless
// Chromium, every page of ours fits its width (document scrollWidth ≤ innerWidth): the sign-in,
// password and OAuth pages, the public site, the browsable API (crawled from its index), the
// report, dashboard and share pages, the WebDAV listing and error pages. Wide content (tables,
// code) may scroll inside its own box; the page itself must not. (The /app screens are the
// web application's own tests'.)
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPosts } from '../src/site/posts.js';
import { launch, skipBrowser } from './helpers/app-browser.js';
import { oauthClient } from './helpers/oauth.js';
import { setUpReports } from './helpers/reports-fixture.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const WIDTHS = [320, 390];
/** Pages of the browsable API opened by following links from its index. */
const API_PAGES = 60;
/** A long name without a break opportunity, as users do name things. */
const LONG_NAME = 'quarterly_revenue_by_region_and_carrier_final_version_2024_reviewed';

describe.skipIf(skipBrowser)('every server-rendered page fits a phone screen', () => {
  let s: TestServer;
  let browser: Browser;
  let admin: Page;
  let anon: BrowserContext;
  let shareUrl: string;
  const overflows: string[] = [];
  let checked = 0;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await setUpReports(s);
    const put = await s.api('PUT', `/projects/${s.demo}`, { body: { dashboardEmbedding: true } });
    expect(put.status, put.text).toBe(200);
    const share = await s.api('POST', `/projects/${s.demo}/pmd/share`, {
      body: { type: 'public', object: 'dashboard.ops' },
    });
    expect(share.status, share.text).toBe(201);
    shareUrl = share.json.share.url;
    await rawStorage(s.engine).writeFile(s.demo, `/${LONG_NAME}.csv`, Buffer.from('a,b\n1,2\n'));
    browser = await launch();
    admin = await (await browser.newContext()).newPage();
    await admin.goto(`${s.url}/auth/login?next=/api/v1`);
    await admin.fill('#email', ADMIN);
    await admin.fill('#password', ADMIN_PASSWORD);
    await Promise.all([admin.waitForURL(`${s.url}/api/v1`), admin.click('button[type=submit]')]);
    anon = await browser.newContext();
  }, 180_000);

  beforeEach(() => {
    overflows.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  /** Measures the page as it is now at each width; records what sticks out. */
  async function measure(page: Page, label: string): Promise<void> {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      // A string: this file is compiled without the DOM's types.
      const r = (await page.evaluate(`(() => {
        const vw = window.innerWidth;
        const out = (e) => e.getBoundingClientRect().right > vw + 0.5;
        // The culprits: what sticks out while nothing inside it does.
        const wide = [...document.querySelectorAll('body *')]
          .filter((e) => out(e) && ![...e.children].some(out))
          .slice(0, 3)
          .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''));
        return { scroll: document.documentElement.scrollWidth, vw, wide };
      })()`)) as { scroll: number; vw: number; wide: string[] };
      checked += 1;
      if (r.scroll > r.vw)
        overflows.push(`${label} at ${width}px: ${r.scroll}px wide (${r.wide.join(', ')})`);
    }
  }

  async function open(page: Page, path: string, label = path): Promise<void> {
    await page.goto(path.startsWith('http') ? path : `${s.url}${path}`);
    await measure(page, label);
  }

  it('the sign-in and password pages', async () => {
    const page = await anon.newPage();
    await open(page, '/auth/login');
    await page.fill('#email', ADMIN);
    await page.fill('#password', 'not-the-password');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await measure(page, 'a failed sign-in');
    await open(page, '/auth/password/forgot');
    await page.fill('#email', `${LONG_NAME}@example.com`);
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await measure(page, 'the "check your e-mail" page');
    await open(page, '/auth/password/set?token=no-such-token', 'a dead password link');

    const member = `${LONG_NAME}@example.com`;
    await invite(s, s.demo, member);
    const link = await s.engine.passwordLinks.invitationSignIn(member);
    if (link.kind !== 'set-password') throw new Error(`no password link: ${link.kind}`);
    await open(page, link.url.replace(/^http:\/\/localhost:\d+/, s.url), 'set a password');
    await page.fill('#password', 'a-long-enough-password');
    await page.fill('#confirm', 'a-long-enough-password');
    await Promise.all([page.waitForLoadState(), page.click('button[type=submit]')]);
    await measure(page, 'password set');
    await page.close();
    expect(overflows).toEqual([]);
  }, 120_000);

  it('the OAuth sign-in, consent, error and sign-out pages', async () => {
    const oauth = oauthClient(() => s.url);
    const reg = await oauth.register({ client_name: `Client ${LONG_NAME}` });
    const { url } = await oauth.authorizationUrl(reg.body.client_id as string);
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await open(page, url, 'the OAuth sign-in');
    await page.fill('#email', ADMIN);
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForSelector('button[value=allow]'), page.click('button')]);
    await measure(page, 'the OAuth consent');
    await open(page, '/auth/authorize?client_id=no-such-client&response_type=code', 'OAuth error');
    await open(page, '/auth/session/end', 'the OAuth sign-out question');
    await Promise.all([page.waitForURL(/\/success/), page.click('button[value=yes]')]);
    await measure(page, 'signed out');
    await ctx.close();
    expect(overflows).toEqual([]);
  }, 120_000);

  it('the public site and its error pages', async () => {
    const page = await anon.newPage();
    const paths = ['/', '/pricing', '/blog', '/blog?page=2', '/blog?page=abc', '/no/such/page'];
    for (const p of [...paths, ...loadPosts().map((post) => `/blog/${post.slug}`)])
      await open(page, p);
    await page.close();
    expect(overflows).toEqual([]);
  }, 180_000);

  it('reports, dashboards and a public share', async () => {
    const project = `/api/v1/projects/${s.demo}`;
    for (const p of [
      `${project}/app/dashboards/dashboard.ops`,
      `${project}/app/reports/report.finance_table`,
      `${project}/app/reports/report.by_region`,
      `${project}/app/reports/report.kpi_miles`,
    ])
      await open(admin, p);
    const page = await anon.newPage();
    await open(page, shareUrl, 'the public share');
    await open(page, `${shareUrl}x`, 'a stopped share');
    await page.close();
    expect(overflows).toEqual([]);
  }, 180_000);

  it('the browsable API (crawled from its index), its errors and the WebDAV listing', async () => {
    const seen = new Set<string>();
    const queue = ['/api/v1'];
    while (queue.length && seen.size < API_PAGES) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      seen.add(path);
      await open(admin, path);
      const links = (await admin.evaluate(
        `[...document.querySelectorAll('a[href]')].map((a) => a.href)`,
      )) as string[];
      for (const href of links) {
        const u = new URL(href);
        // Pages, not downloads or other representations; WebDAV is opened below.
        if (u.origin !== new URL(s.url).origin || !u.pathname.startsWith('/api/v1')) continue;
        if (u.search.includes('format=') || /\/(download|webdav)\b/.test(u.pathname)) continue;
        queue.push(u.pathname + u.search);
      }
    }
    await open(admin, '/api/v1/projects/no-such-project', 'API 401');
    await open(admin, `/api/v1/projects/${s.demo}/pmd/obj/no.such`, 'API 404');
    await open(admin, `/api/v1/projects/${s.demo}/webdav/`, 'WebDAV listing');
    const page = await anon.newPage();
    await open(page, '/api/v1/projects', 'API 401 signed out');
    await page.close();
    expect(seen.size).toBeGreaterThan(20);
    expect(overflows).toEqual([]);
  }, 300_000);

  it('measured every page at both widths', () => {
    expect(checked).toBeGreaterThan(100);
  });
});
