// The web application's frame in Chromium against the real server: /app sends a signed-out
// visitor to sign in and back, lists the member's projects, opens one with its announcement
// and the sections the member may use, and signs out. Served with a strict CSP and nothing
// loaded from elsewhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { createProject } from './helpers/fixtures.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'app-member@example.com';
const MEMBER_PASSWORD = 'member-password-1';
const DESCRIPTION = 'Flights and carriers, loaded every night.';

describe.skipIf(skipBrowser)('the web application (frame)', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    s = await startTestServer();
    // The Admin has two projects (the list); the member one (the app opens it directly).
    await createProject(s, 'second', 'Second project');
    await invite(s, s.demo, MEMBER);
    await s.engine.accounts.setPassword(MEMBER, MEMBER_PASSWORD);
    const r = await s.api('PUT', `/projects/${s.demo}/announce`, {
      body: { title: 'Maintenance', message: 'Loads pause on Sunday.' },
    });
    expect(r.status, r.text).toBe(200);
    const d = await s.api('PUT', `/projects/${s.demo}`, { body: { desc: DESCRIPTION } });
    expect(d.status, d.text).toBe(200);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('is one shell for every address under /app, with a strict CSP and its bundle', async () => {
    for (const path of ['/app', '/app/p/demo/dashboards/x']) {
      const r = await fetch(`${s.url}${path}`);
      expect(r.status).toBe(200);
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe');
      const html = await r.text();
      expect(html).toMatch(
        /<script type="module" src="\/app\/assets\/app\.js\?v=[\w-]+"><\/script>/,
      );
    }
    const js = await fetch(`${s.url}/app/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${s.url}/app/assets/nope.js`)).status).toBe(404);
  });

  it('sends a visitor to sign in, then to the projects; a project shows its description and announcement', async () => {
    const { page, problems, close } = await signedIn(browser, s, ADMIN, ADMIN_PASSWORD);
    try {
      await page.getByRole('heading', { name: 'Your projects' }).waitFor();
      await page.getByText(ADMIN).waitFor();
      await screenshots(page, 'projects');
      await page.getByRole('link', { name: /Demo/ }).first().click();
      await page.getByRole('note').getByText('Loads pause on Sunday.').waitFor();
      // The API names it `desc` (GET /projects/{id}); the page once read a `description`.
      await page.getByText(DESCRIPTION).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/p/${s.demo}`);
      const nav = page.getByRole('navigation', { name: 'Project' });
      expect(await nav.getByRole('link').allTextContents()).toEqual(
        expect.arrayContaining(['Chat', 'Dashboards']),
      );
      await screenshots(page, 'project-home');
      // Back and forward move between screens without reloading.
      await page.goBack();
      await page.getByRole('heading', { name: 'Your projects' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('goes straight into the only project; the list is one click away', async () => {
    const { page, problems, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD);
    try {
      await page.getByRole('note').getByText('Loads pause on Sunday.').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/p/${s.demo}`);
      await page.getByRole('link', { name: 'Ursa' }).click();
      await page.getByRole('heading', { name: 'Your projects' }).waitFor();
      await page.waitForTimeout(300);
      expect(new URL(page.url()).pathname).toBe('/app');
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  for (const [who, email, password, sections] of [
    [
      'an Admin',
      ADMIN,
      ADMIN_PASSWORD,
      ['Chat', 'Dashboards', 'Explore', 'Data', 'Model', 'Admin'],
    ],
    ['a member', MEMBER, MEMBER_PASSWORD, ['Chat', 'Dashboards', 'Explore', 'Model']],
  ] as const)
    it(`keeps the phone header small for ${who}: every section shown at 390 px, no sideways page`, async () => {
      const { page, problems, close } = await signedIn(
        browser,
        s,
        email,
        password,
        `/app/p/${s.demo}`,
        { width: 390, height: 844 },
      );
      try {
        const nav = page.getByRole('navigation', { name: 'Project' });
        await nav.getByRole('link', { name: 'Dashboards' }).waitFor();
        expect(await nav.getByRole('link').allTextContents()).toEqual(sections);
        const header = (await page.locator('header.top').boundingBox())!;
        expect(header.height).toBeLessThanOrEqual(112);
        const sideways = await page.evaluate(
          'document.documentElement.scrollWidth - document.documentElement.clientWidth',
        );
        expect(sideways).toBe(0);
        // Every section on screen as it is: none scrolled out of the header or clipped.
        expect(await nav.evaluate((n) => n.scrollWidth - n.clientWidth)).toBe(0);
        for (const title of sections) {
          const link = nav.getByRole('link', { name: title, exact: true });
          const box = (await link.boundingBox())!;
          expect(box.x, title).toBeGreaterThanOrEqual(0);
          expect(box.x + box.width, title).toBeLessThanOrEqual(390);
          expect(box.y + box.height, title).toBeLessThanOrEqual(header.y + header.height);
          expect(box.height, title).toBeGreaterThanOrEqual(24);
        }
        await screenshots(page, `phone-header-${email === ADMIN ? 'admin' : 'member'}`);
        // The last one opens at a tap.
        const last = nav.getByRole('link', { name: sections.at(-1)!, exact: true });
        await last.click();
        await expect.poll(() => last.getAttribute('aria-current')).toBe('page');
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    });

  it('opens a deep link after signing in, and signs out', async () => {
    const { page, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, `/app/p/${s.demo}`);
    try {
      expect(new URL(page.url()).pathname).toBe(`/app/p/${s.demo}`);
      await page.getByRole('note').waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL((u) => !u.pathname.startsWith('/app'));
      await page.goto(`${s.url}/app`);
      await page.waitForURL((u) => u.pathname === '/auth/login');
    } finally {
      await close();
    }
  });

  it('says so when the project does not exist or the member has no access', async () => {
    const { page, close } = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, '/app/p/nope');
    try {
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toMatch(/nope/);
    } finally {
      await close();
    }
  });
});
