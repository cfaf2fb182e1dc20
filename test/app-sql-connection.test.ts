// The SQL API's connection details in the app (issue 33): an Admin allows SQL passwords in the
// project's settings; a member sees on the project's page how to connect a PostgreSQL client,
// creates their SQL password there (shown once), and a real client connects with it.
import pg from 'pg';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'app-sql-member@example.com';
const MEMBER_PASSWORD = 'app-sql-member-password';

describe.skipIf(skipBrowser)("the project's SQL connection in the app", () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [s, browser] = await Promise.all([
      startTestServer({ URSA_SQL_PORT: '0', URSA_DEMO_DATA: 'true' }),
      launch(),
    ]);
    await invite(s, s.demo, MEMBER);
    await s.engine.accounts.setPassword(MEMBER, MEMBER_PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('an Admin allows SQL passwords; a member creates one and psql-style clients connect', async () => {
    const admin = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}/admin/settings`,
    );
    try {
      const box = admin.page.getByLabel('Members may create SQL passwords');
      await box.check();
      await admin.page.getByText('Members may create SQL passwords.').waitFor();
      expect((await s.api('GET', `/projects/${s.demo}`)).json.project.sqlPasswords).toBe(true);
    } finally {
      await admin.close();
    }

    const m = await signedIn(browser, s, MEMBER, MEMBER_PASSWORD, `/app/p/${s.demo}`);
    try {
      const card = m.page.locator('section.sql-connection');
      await card.getByRole('heading', { name: 'Connect a SQL client' }).waitFor();
      await expect(card.locator('dd').allTextContents()).resolves.toEqual(
        expect.arrayContaining([String(s.sqlPort), s.demo, MEMBER]),
      );
      await card.getByRole('button', { name: 'Create a SQL password' }).click();
      const shown = card.locator('[role=status] code');
      await shown.waitFor();
      const password = (await shown.textContent())!;
      await card.getByRole('button', { name: 'Replace my SQL password' }).waitFor();
      await screenshots(m.page, 'project-sql-connection');

      const c = new pg.Client({
        host: '127.0.0.1',
        port: s.sqlPort,
        user: MEMBER,
        password,
        database: s.demo,
      });
      c.on('error', () => undefined);
      await c.connect();
      try {
        expect((await c.query('SELECT count(*) AS n FROM carriers')).rows[0].n).toMatch(/^\d+$/);
      } finally {
        await c.end();
      }
      expect(m.problems).toEqual([]);
    } finally {
      await m.close();
    }
  });
});
