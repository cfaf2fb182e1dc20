// Accessibility of the web application: every screen in real Chromium against the real server
// (demo data and the reports fixture), as an Admin and as a plain member, at desktop (1280 px)
// and phone (390 px) width, checked with axe-core in the page. Any violation of impact
// `serious` or `critical` fails, printed with its rule, help and the nodes it found. axe is
// evaluated through the DevTools protocol, which the app's CSP (script-src 'self') does not
// govern, so the CSP stays as strict as it is in production.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, signedIn, skipBrowser, type AppPage } from './helpers/app-browser.js';
import { describeViolations, seriousViolations } from './helpers/axe.js';
import { createProject } from './helpers/fixtures.js';
import { setUpReports, VIEWER } from './helpers/reports-fixture.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

const PASSWORD = 'a11y-member-password-1';
const DESKTOP = { width: 1280, height: 900 };
const WIDTHS = [DESKTOP, { width: 390, height: 844 }];
/** The screen has its content: a title, nothing loading or busy. */
async function settled(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor();
  // Polled from here: a string given to waitForFunction is eval'd in the page, which the
  // app's CSP (no 'unsafe-eval') refuses.
  const busy = `!!document.querySelector('[aria-busy="true"]') ||
    [...document.querySelectorAll('[role="status"]')].some((e) => /^Loading /.test(e.textContent))`;
  for (const end = Date.now() + 20_000; await page.evaluate<boolean>(busy);) {
    if (Date.now() > end) throw new Error(`${page.url()} is still loading`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Checks the page as it is at each width; fails with every serious or critical violation. */
async function check(page: Page, name: string): Promise<void> {
  const found: string[] = [];
  for (const size of WIDTHS) {
    await page.setViewportSize(size);
    await page.evaluate(
      'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))',
    );
    const vs = await seriousViolations(page);
    if (vs.length) found.push(`${name} at ${size.width} px:\n${describeViolations(vs)}`);
  }
  expect(found.join('\n\n'), found.join('\n\n')).toBe('');
}

interface Screen {
  name: string;
  /** Under /app/p/{project}/, or absolute when it starts with a slash. */
  path: string;
  /** What shows once the screen has its content, beyond the generic wait. */
  ready?: (page: Page) => Promise<unknown>;
  /** Brings the screen into the state checked (opens a dialog, runs a query). */
  open?: (page: Page) => Promise<unknown>;
  /** Only Admins see it (a plain member is told there is no such screen). */
  adminOnly?: boolean;
}

const SCREENS: Screen[] = [
  {
    name: 'projects',
    path: '/app',
    ready: (p) => p.getByRole('link', { name: /^Demo/ }).waitFor(),
  },
  { name: 'project home', path: '', ready: (p) => p.locator('.link-card').first().waitFor() },
  {
    name: 'chat',
    path: 'chat',
    ready: (p) => p.getByText(/AI messages in this project/).waitFor(),
  },
  {
    name: 'dashboards',
    path: 'dashboards',
    ready: (p) => p.getByRole('link', { name: /Operations/ }).waitFor(),
  },
  {
    name: 'dashboard',
    path: 'dashboards/dashboard.ops',
    ready: (p) => p.locator('.dash-kpi-value').first().waitFor(),
  },
  {
    name: 'share dialog',
    path: 'dashboards/dashboard.ops',
    ready: (p) => p.locator('.dash-kpi-value').first().waitFor(),
    open: async (p) => {
      await p.getByRole('button', { name: 'Share…' }).click();
      const dialog = p.getByRole('dialog', { name: 'Share “Operations”' });
      await dialog
        .getByText(/not shared|needs the share/)
        .first()
        .waitFor();
    },
  },
  {
    name: 'explore',
    path: 'explore',
    ready: (p) => p.getByRole('textbox', { name: 'Query' }).waitFor(),
  },
  {
    name: 'explore result',
    path: 'explore',
    ready: (p) => p.getByRole('textbox', { name: 'Query' }).waitFor(),
    open: async (p) => {
      await p
        .getByRole('textbox', { name: 'Query' })
        .fill('SELECT [Carrier Name], SUM([Distance]) AS "Miles" ORDER BY 2 DESC');
      await p.getByRole('button', { name: 'Run', exact: true }).click();
      await p.locator('.explore-result tbody tr').first().waitFor({ timeout: 20_000 });
    },
  },
  {
    name: 'model',
    path: 'model',
    ready: (p) => p.locator('main a[href*="/model/"]').first().waitFor(),
  },
  {
    name: 'model object',
    path: 'model/metric.rpt_miles',
    ready: (p) => p.getByRole('heading', { name: 'Total Miles', level: 1 }).waitFor(),
  },
  { name: 'admin', path: 'admin', adminOnly: true },
  { name: 'admin members', path: 'admin/members', adminOnly: true },
  { name: 'admin settings', path: 'admin/settings', adminOnly: true },
  { name: 'admin usage', path: 'admin/usage', adminOnly: true },
  {
    name: 'admin activity',
    path: 'admin/activity',
    adminOnly: true,
    ready: (p) => p.getByRole('table', { name: 'Activity' }).waitFor(),
  },
  { name: 'data files', path: 'data', adminOnly: true },
  { name: 'data datasets', path: 'data/datasets', adminOnly: true },
  { name: 'data flows', path: 'data/flows', adminOnly: true },
  {
    name: 'AQL reference',
    path: '/app/docs/aql.md',
    ready: (p) => p.getByRole('heading', { name: 'AQL reference', level: 1 }).waitFor(),
  },
];

describe.skipIf(skipBrowser)('the web application: accessibility (axe-core)', () => {
  let s: TestServer;
  let browser: Browser;
  const pages: Record<'admin' | 'member', AppPage | undefined> = {
    admin: undefined,
    member: undefined,
  };

  beforeAll(async () => {
    [s, browser] = await Promise.all([startTestServer({ URSA_DEMO_DATA: 'true' }), launch()]);
    await setUpReports(s);
    // Two projects, so /app shows the list (with one it opens the project).
    await createProject(s, 'second', 'Second project');
    await s.engine.accounts.setPassword(VIEWER, PASSWORD);
    [pages.admin, pages.member] = await Promise.all([
      signedIn(browser, s, ADMIN, ADMIN_PASSWORD),
      signedIn(browser, s, VIEWER, PASSWORD),
    ]);
  }, 60_000);
  afterAll(async () => {
    await pages.admin?.close();
    await pages.member?.close();
    await browser?.close();
    await s?.close();
  });

  it('finds a violation when there is one (the checker runs in the page)', async () => {
    const { page } = pages.admin!;
    await page.goto(`${s.url}/app`);
    await settled(page);
    // An unlabelled field and faint text (styled through the CSSOM, which the CSP allows).
    await page.evaluate(`(() => {
      const main = document.querySelector('main');
      main.insertAdjacentHTML('beforeend', '<input id="a11y-canary"><p id="a11y-faint">Faint</p>');
      Object.assign(document.getElementById('a11y-faint').style, { color: '#ccc', background: '#fff' });
    })()`);
    const vs = await seriousViolations(page);
    const targets = (id: string) => vs.find((v) => v.id === id)?.nodes.map((n) => n.target);
    expect(targets('label')).toEqual([['#a11y-canary']]);
    expect(targets('color-contrast')).toEqual([['#a11y-faint']]);
  });

  for (const who of ['admin', 'member'] as const) {
    for (const screen of SCREENS.filter((sc) => who === 'admin' || !sc.adminOnly)) {
      it(`${who}: ${screen.name}`, async () => {
        const { page, problems } = pages[who]!;
        await page.setViewportSize(DESKTOP);
        const path = screen.path.startsWith('/')
          ? screen.path
          : `/app/p/${s.demo}${screen.path ? `/${screen.path}` : ''}`;
        await page.goto(`${s.url}${path}`);
        await settled(page);
        await screen.ready?.(page);
        await screen.open?.(page);
        await settled(page);
        await check(page, `${who}: ${screen.name}`);
        // The app's CSP is intact: axe was not blocked, nothing else was either.
        expect(problems.filter((p) => /Content Security Policy/i.test(p))).toEqual([]);
      });
    }
  }
});
