// How an invited member arrives, in Chromium against the real server and a real SMTP server:
// the invitation's link, the password page, and the sign-in link all lead into the app on the
// project's page; setting the password signs the browser in, and the sign-in form is prefilled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, screenshots, skipBrowser } from './helpers/app-browser.js';
import { parseMail, startSmtpSink, waitFor, type SmtpSink } from './helpers/fixtures.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const MEMBER = 'arriving@example.com';
const PASSWORD = 'arriving-password-1';
const SET_LINK = /http:\/\/localhost:\d+(\/auth\/password\/set\?\S+)/;
const LOGIN_LINK = /Later, sign in to Ursa at http:\/\/localhost:\d+(\/auth\/login\?\S+)/;

describe.skipIf(skipBrowser)('an invited member arrives in the app', () => {
  let smtp: SmtpSink;
  let s: TestServer;
  let browser: Browser;
  let mail: string;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    [s, browser] = await Promise.all([
      startTestServer({ URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}` }),
      launch(),
    ]);
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      body: { id: MEMBER, sendemail: true },
    });
    expect(r.json.users[0], r.text).toMatchObject({ id: MEMBER, emailSent: true });
    const msg = await waitFor(() => smtp.messages.find((m) => m.to.includes(MEMBER)));
    mail = parseMail(msg.raw).body;
  });
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await smtp?.close();
  });

  /** A fresh browser (own cookies), its console errors collected. */
  async function fresh(): Promise<{ page: Page; problems: string[]; close(): Promise<void> }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    return { page, problems, close: () => context.close() };
  }

  /** The project's page in the app, with the member signed in. */
  async function expectInProject(page: Page): Promise<void> {
    await page.waitForURL((u) => u.pathname === `/app/p/${s.demo}`);
    await page.locator('header .project', { hasText: 'Demo' }).waitFor();
    await page.locator('header .who', { hasText: MEMBER }).waitFor();
  }

  it('follows the link in the mail, sets a password and lands signed in on the project', async () => {
    const link = SET_LINK.exec(mail)?.[1];
    expect(link, mail).toBeTruthy();
    const { page, problems, close } = await fresh();
    try {
      await page.goto(`${s.url}${link}`);
      await page.getByRole('heading', { name: 'Welcome to Ursa: choose your password' }).waitFor();
      await page.getByText(MEMBER).waitFor();
      await screenshots(page, 'arrive-set-password');
      await page.fill('#password', PASSWORD);
      await page.fill('#confirm', PASSWORD);
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await expectInProject(page);
      await screenshots(page, 'arrive-project');
      expect(problems).toEqual([]);

      // The link worked once: opened again, it says so.
      await page.goto(`${s.url}${link}`);
      await page.getByText(/already used/).waitFor();
    } finally {
      await close();
    }
  });

  it("the mail's sign-in link opens the form with the e-mail filled in, then the project", async () => {
    const link = LOGIN_LINK.exec(mail)?.[1];
    expect(link, mail).toBeTruthy();
    const { page, problems, close } = await fresh();
    try {
      await page.goto(`${s.url}${link}`);
      expect(await page.locator('#email').inputValue()).toBe(MEMBER);
      // The password field has the focus: the member only types the password.
      expect(
        await page.locator('#password').evaluate((e) => e === e.ownerDocument.activeElement),
      ).toBe(true);
      await page.keyboard.type(PASSWORD);
      await page.keyboard.press('Enter');
      await expectInProject(page);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a sign-in without a destination opens the app, not the API', async () => {
    const { page, close } = await fresh();
    try {
      await page.goto(`${s.url}/auth/login`);
      await page.fill('#email', MEMBER);
      await page.fill('#password', PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      // A member of one project is taken to it by the app.
      await page.waitForURL((u) => u.pathname.startsWith('/app'));
      await page.locator('header .who', { hasText: MEMBER }).waitFor();
    } finally {
      await close();
    }
  });
});
