// "Subscribe…" on a dashboard in the app (issue 35): an MD Admin subscribes two members with
// different row filters, sends it now, and the SMTP server on loopback receives each their
// own PDF (read back with mailparser and pdftotext); a member subscribes only themself, then
// changes the schedule and attachment of that subscription in the same form.
// Screenshots of the dialog at 1280 and 390 px under test/artifacts/app/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
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
import { startSmtpSink, type SmtpSink } from './helpers/fixtures.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const CA = 'app-sub-ca@example.com';
const TX = 'app-sub-tx@example.com';
const PASSWORD = 'member-password-1';
const DASH = 'dashboard.demo_flights';

function pdfText(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-sub-'));
  try {
    fs.writeFileSync(path.join(dir, 'd.pdf'), pdf);
    return execFileSync('pdftotext', ['-layout', path.join(dir, 'd.pdf'), '-'], {
      encoding: 'utf8',
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(skipBrowser)('the web application: Subscribe…', () => {
  let s: TestServer;
  let smtp: SmtpSink;
  let browser: Browser;
  const counts: Record<string, number> = {};

  beforeAll(async () => {
    smtp = await startSmtpSink();
    s = await startTestServer({
      URSA_DEMO_DATA: 'true',
      URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    });
    await waitForDemo(s);
    await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
    await invite(s, s.demo, TX, { filter: '[Origin State] = "TX"' });
    await s.engine.accounts.setPassword(CA, PASSWORD);
    for (const who of [CA, TX]) {
      const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
        as: who,
        body: { aql: 'SELECT [Number of Flights]' },
        headers: { prefer: 'wait=60' },
      });
      counts[who] = Number(r.json.data.values);
    }
    expect(counts[CA]).not.toBe(counts[TX]);
    browser = await launch();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await smtp?.close();
  });

  it('an MD Admin subscribes two members; each receives their own PDF', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${s.demo}/dashboards/${DASH}`,
    );
    try {
      await page.getByRole('heading', { name: 'Flights overview', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Subscribe…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Subscribe to “Flights overview”' });
      await dialog.waitFor();
      await dialog.getByLabel('Every').selectOption('weekly');
      await dialog.getByLabel('Day of the week').selectOption({ label: 'Monday' });
      await dialog.getByLabel('Also send to').fill(`${CA}, ${TX}`);
      const summary = dialog.locator('.dash-subscribe-summary');
      await expect
        .poll(() => summary.textContent(), { timeout: 20_000 })
        .toMatch(new RegExp(`to ${ADMIN}, ${CA}, ${TX}, each computed`));
      await screenshots(page, 'dashboard-subscribe');
      await dialog.getByRole('button', { name: 'Subscribe', exact: true }).click();
      await dialog.getByText('Subscribed.').waitFor();
      const item = dialog.getByRole('listitem').filter({ hasText: 'Flights overview (weekly)' });
      await item.waitFor();
      await item.getByRole('button', { name: 'Send now' }).click();
      await dialog.getByText(/Sending “Flights overview \(weekly\)” now\./).waitFor();
      await expect
        .poll(() => smtp.messages.filter((m) => m.to.includes(CA) || m.to.includes(TX)).length, {
          timeout: 120_000,
          interval: 500,
        })
        .toBe(2);
      for (const who of [CA, TX]) {
        const raw = smtp.messages.find((m) => m.to.includes(who))!.raw;
        const mail = await simpleParser(raw);
        const pdf = mail.attachments.find((a) => a.contentType === 'application/pdf')!;
        const text = pdfText(pdf.content);
        const other = who === CA ? TX : CA;
        expect(text).toContain(counts[who]!.toLocaleString('en-US'));
        expect(text).not.toContain(counts[other]!.toLocaleString('en-US'));
      }
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  }, 240_000);

  it('a member subscribes only themself', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      CA,
      PASSWORD,
      `/app/p/${s.demo}/dashboards/${DASH}`,
    );
    try {
      await page.getByRole('button', { name: 'Subscribe…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Subscribe to “Flights overview”' });
      await dialog.waitFor();
      expect(await dialog.getByLabel('Also send to').count()).toBe(0);
      await dialog.getByLabel('Every').selectOption('daily');
      await expect
        .poll(() => dialog.locator('.dash-subscribe-summary').textContent(), { timeout: 20_000 })
        .toMatch(new RegExp(`to ${CA}, each computed`));
      await dialog.getByRole('button', { name: 'Subscribe', exact: true }).click();
      await dialog.getByText('Subscribed.').waitFor();
      const list = await s.api('GET', `/projects/${s.demo}/app/delivery`, { as: CA });
      const mine = list.json.deliveries.filter((d: { createdBy: string }) => d.createdBy === CA);
      expect(mine).toHaveLength(1);
      expect(mine[0].recipients).toEqual([CA]);

      // Changed in the same form: weekly on Friday at 07:30, as XLSX; still to CA alone.
      const item = dialog.getByRole('listitem').filter({ hasText: mine[0].name });
      await item.getByRole('button', { name: 'Change…' }).click();
      await dialog.getByText(`Changing “${mine[0].name}”`).waitFor();
      expect(await dialog.getByLabel('Every').inputValue()).toBe('daily');
      await dialog.getByLabel('Every').selectOption('weekly');
      await dialog.getByLabel('Day of the week').selectOption({ label: 'Friday' });
      await dialog.getByLabel('At', { exact: true }).fill('07:30');
      await dialog.getByLabel('Attach').selectOption('xlsx');
      await expect
        .poll(() => dialog.locator('.dash-subscribe-summary').textContent(), { timeout: 20_000 })
        .toMatch(new RegExp(`to ${CA}, each computed`));
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await dialog.getByText('Changed.').waitFor();
      const got = await s.api('GET', `/projects/${s.demo}/pmd/obj/${mine[0].ident}`, { as: CA });
      expect(got.json.object).toMatchObject({
        name: mine[0].name,
        def: { recipients: [CA], format: 'xlsx', schedule: { cron: '30 7 * * 5' } },
      });
      expect(got.json.object.revision).toBeGreaterThan(1);
      const after = await s.api('GET', `/projects/${s.demo}/app/delivery`, { as: CA });
      expect(
        after.json.deliveries.filter((d: { createdBy: string }) => d.createdBy === CA),
      ).toHaveLength(1);
      expect(await dialog.getByRole('button', { name: 'Subscribe', exact: true }).count()).toBe(1);
      expectOnlyRefused(problems);
    } finally {
      await close();
    }
  }, 120_000);
});
