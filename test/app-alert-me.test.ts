// "Alert me…" in the app (issue 35): a member with a row filter opens a metric in Model, sees
// the API's preview of the alert (telling only them), creates it, and when it is evaluated the
// loopback SMTP server receives their e-mail with the number as they see it; the dialog then
// lists it, to pause and delete; in Explore a one-number answer offers the same on its query.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import {
  expectOnlyRefused,
  launch,
  screenshots,
  signedIn,
  skipBrowser,
} from './helpers/app-browser.js';
import { parseMail, startSmtpSink, type SmtpSink } from './helpers/fixtures.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';

const CA = 'app-alert-ca@example.com';
const PASSWORD = 'member-password-1';

describe.skipIf(skipBrowser)('the web application: Alert me…', () => {
  let s: TestServer;
  let smtp: SmtpSink;
  let browser: Browser;
  let caCount: number;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    s = await startTestServer({
      URSA_DEMO_DATA: 'true',
      URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    });
    await waitForDemo(s);
    await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
    await s.engine.accounts.setPassword(CA, PASSWORD);
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
      as: CA,
      body: { aql: 'SELECT [Number of Flights]' },
      headers: { prefer: 'wait=60' },
    });
    caCount = Number(r.json.data.values);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await smtp?.close();
  });

  it('on a metric: previewed, created for the member alone, told with their own number', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      CA,
      PASSWORD,
      `/app/p/${s.demo}/model/metric.number_of_flights`,
    );
    try {
      await page.getByRole('heading', { name: 'Number of Flights', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Alert me…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Alert me: Number of Flights' });
      await dialog.waitFor();
      await dialog.getByLabel('Condition').selectOption('>');
      await dialog.getByLabel('Value').fill('1');
      const summary = dialog.locator('.dash-subscribe-summary');
      await expect
        .poll(() => summary.textContent(), { timeout: 20_000 })
        .toMatch(new RegExp(`^Tells ${CA} once when the metric "Number of Flights" is > 1`));
      await screenshots(page, 'alert-me');
      await dialog.getByRole('button', { name: 'Create alert' }).click();
      await dialog.getByText(/Alert created/).waitFor();
      const list = await s.api('GET', `/projects/${s.demo}/app/delivery`, { as: CA });
      const [mine] = list.json.deliveries;
      expect(mine).toMatchObject({ type: 'alert', createdBy: CA, recipients: [CA] });
      // Evaluated now (as a schedule or a load would): CA is told their own count.
      const run = await s.api('POST', `/projects/${s.demo}/app/delivery/${mine.ident}/run`, {
        as: CA,
      });
      expect(run.status, run.text).toBe(202);
      const job = await s.engine.jobs.waitFor(run.json.link[0].id);
      expect(job.result).toMatchObject({ outcomes: { [CA]: 'fired' } });
      const mail = smtp.messages.find((m) => m.to.includes(CA))!;
      expect(parseMail(mail.raw).body).toContain(`is ${caCount}`);

      // Below the form, the member's alerts: paused, then deleted, from the dialog.
      const item = dialog.getByRole('listitem').filter({ hasText: mine.name });
      await item.waitFor();
      await item.getByRole('button', { name: 'Pause' }).click();
      await dialog.getByText('Paused.', { exact: true }).waitFor();
      const obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${mine.ident}`, { as: CA });
      expect(obj.json.object.def.paused).toBe(true);
      await item.getByRole('button', { name: 'Delete' }).click();
      await dialog.getByText('Deleted.', { exact: true }).waitFor();
      const after = await s.api('GET', `/projects/${s.demo}/app/delivery`, { as: CA });
      expect(after.json.deliveries).toEqual([]);
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  }, 180_000);

  it('in Explore: a one-number answer offers it on its query', async () => {
    const q = encodeURIComponent('SELECT [Number of Flights]');
    const { page, problems, close } = await signedIn(
      browser,
      s,
      CA,
      PASSWORD,
      `/app/p/${s.demo}/explore?aql=${q}`,
    );
    try {
      const button = page.getByRole('button', { name: 'Alert me…' });
      await button.waitFor({ timeout: 30_000 });
      await button.click();
      const dialog = page.getByRole('dialog', { name: 'Alert me: Number of Flights' });
      await dialog.getByLabel('Value').fill('5');
      await expect
        .poll(() => dialog.locator('.dash-subscribe-summary').textContent(), { timeout: 20_000 })
        .toContain('SELECT [Number of Flights] is > 5');
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  }, 120_000);
});
