// Dashboard subscriptions (issue 35): a `subscription` mails a dashboard to members, each
// computed as that member (a row filter narrows their PDF), with the dashboard as an inline
// image, a PDF (or XLSX/CSV of items) attached, a link into the app and a signed unsubscribe
// link that works signed out (List-Unsubscribe, RFC 8058 one-click too). A firing a dead
// process left half-sent sends the rest and never sends twice. Real parts: an SMTP server on
// loopback, mailparser reading the mails back, pdftotext reading the PDFs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tablesOf } from '../src/engine/db/index.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { startSmtpSink, type SmtpSink } from './helpers/fixtures.js';
import { unzip } from './helpers/xlsx.js';
import { runCli } from './helpers/cli.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const CA = 'sub-ca@example.com';
const TX = 'sub-tx@example.com';
const SUB = 'subscription.weekly';
const DASH = 'dashboard.demo_flights';

let s: TestServer;
let smtp: SmtpSink;
let counts: Record<string, number>;

async function count(as: string): Promise<number> {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    as,
    body: { aql: 'SELECT [Number of Flights]' },
    headers: { prefer: 'wait=60' },
  });
  expect(r.status, r.text).toBe(200);
  return Number(r.json.data.values);
}

/** Sends the subscription now (as `as`) and answers each recipient's outcome. */
async function sendNow(ident = SUB, as = ADMIN): Promise<Record<string, string>> {
  const r = await s.api('POST', `/projects/${s.demo}/app/delivery/${ident}/run`, { as });
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id, 120_000);
  expect(job.status, job.message).toBe('OK');
  return (job.result as { outcomes: Record<string, string> }).outcomes;
}

async function mailsTo(who: string): Promise<ParsedMail[]> {
  return Promise.all(
    smtp.messages.filter((m) => m.to.includes(who)).map((m) => simpleParser(m.raw)),
  );
}

function pdfText(pdf: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sub-pdf-'));
  try {
    const file = path.join(dir, 'd.pdf');
    fs.writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const grouped = (n: number) => n.toLocaleString('en-US');

/** The unsubscribe URL of a mail, on the test server's own address. */
function unsubscribeUrl(m: ParsedMail): string {
  const header = m.headerLines.find((h) => h.key === 'list-unsubscribe')?.line ?? '';
  const url = new URL(/<([^>]+)>/.exec(header)![1]!);
  return `${new URL(s.url).origin}${url.pathname}`;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    URSA_MAIL_RETRY_MS: '20,20',
  });
  await waitForDemo(s);
  await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
  await invite(s, s.demo, TX, { filter: '[Origin State] = "TX"' });
  counts = { [ADMIN]: await count(ADMIN), [CA]: await count(CA), [TX]: await count(TX) };
  expect(counts[CA]).toBeLessThan(counts[ADMIN]!);
  const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    body: {
      ident: SUB,
      type: 'subscription',
      name: 'Weekly flights',
      def: {
        dashboard: DASH,
        recipients: [ADMIN, CA, TX, 'not-a-member@example.com'],
        schedule: { cron: '0 8 * * 1', timezone: 'Europe/Prague' },
        format: 'pdf',
      },
    },
  });
  expect(r.status, r.text).toBe(201);
}, 180_000);

afterAll(async () => {
  await s?.close();
  await smtp?.close();
});

describe('a dashboard subscription', () => {
  it('mails each member the dashboard computed with their own rows', async () => {
    const out = await sendNow();
    expect(out).toEqual({
      [ADMIN]: 'sent',
      [CA]: 'sent',
      [TX]: 'sent',
      'not-a-member@example.com': 'skipped',
    });
    expect(await mailsTo('not-a-member@example.com')).toHaveLength(0);
    for (const who of [ADMIN, CA, TX]) {
      const [m, more] = await mailsTo(who);
      expect(more).toBeUndefined();
      expect(m!.subject).toMatch(/^Flights overview — \d+ \w+ \d{4}$/);
      const pdf = m!.attachments.find((a) => a.contentType === 'application/pdf')!;
      expect(pdf.filename).toBe('Flights overview.pdf');
      const image = m!.attachments.find((a) => a.contentType === 'image/png')!;
      expect(image.contentDisposition).toBe('inline');
      expect(image.cid).toBe('dashboard@ursa');
      // mailparser puts an inline part the HTML names by cid: into the HTML.
      expect(m!.html).toContain('<img src="data:image/png;base64,');
      expect(image.content.subarray(1, 4).toString()).toBe('PNG');
      // Their number of flights, nobody else's.
      const text = pdfText(pdf.content);
      expect(text).toContain('Flights overview');
      expect(text).toContain(grouped(counts[who]!));
      for (const other of [ADMIN, CA, TX].filter((o) => o !== who))
        expect(text).not.toContain(grouped(counts[other]!));
      expect(m!.text).toContain(`/app/p/${s.demo}/dashboards/${DASH}`);
      expect(m!.headerLines.find((h) => h.key === 'list-unsubscribe-post')?.line).toBe(
        'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      );
    }
  }, 180_000);

  it('records each send in the activity log', async () => {
    const r = await s.api('GET', `/projects/${s.demo}/activity?types=delivery`);
    expect(r.status, r.text).toBe(200);
    const e = r.json.activity[0];
    expect(e).toMatchObject({ type: 'delivery', object: SUB, user: ADMIN });
    expect(e.message).toBe('Subscription "Weekly flights" sent: 3 sent, 1 skipped');
    expect(e.detail.outcomes).toEqual({ sent: 3, skipped: 1 });
  });

  it('keeps a history of sends with their outcome', async () => {
    const r = await s.api('GET', `/projects/${s.demo}/app/delivery/${SUB}/history`);
    expect(r.status, r.text).toBe(200);
    const latest = new Map<string, string>();
    for (const h of r.json.history as { recipient: string; outcome: string }[])
      if (!latest.has(h.recipient)) latest.set(h.recipient, h.outcome);
    expect(Object.fromEntries(latest)).toEqual({
      [ADMIN]: 'sent',
      [CA]: 'sent',
      [TX]: 'sent',
      'not-a-member@example.com': 'skipped',
    });
  });

  it('unsubscribes by its link signed out: a GET only asks, a one-click POST does it', async () => {
    const [m] = await mailsTo(TX);
    const url = unsubscribeUrl(m!);
    expect(m!.text).toContain(new URL(url).pathname);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Weekly flights');
    const still = await s.api('GET', `/projects/${s.demo}/pmd/obj/${SUB}`);
    expect(still.json.object.def.recipients).toContain(TX);
    // A mail client's RFC 8058 one-click POST: no cookie, no token, no Origin.
    const done = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(done.status).toBe(200);
    const after = await s.api('GET', `/projects/${s.demo}/pmd/obj/${SUB}`);
    expect(after.json.object.def.recipients).toEqual([ADMIN, CA, 'not-a-member@example.com']);
    const hist = await s.api('GET', `/projects/${s.demo}/pmd/obj/${SUB}/history`);
    expect(JSON.stringify(hist.json)).toContain(TX);
    // Twice is harmless; an altered link is refused.
    const again = await fetch(url, { method: 'POST', headers: { accept: 'application/json' } });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { removed: boolean }).removed).toBe(false);
    const forged = await fetch(`${url.slice(0, -4)}AAAA`, {
      headers: { accept: 'application/json' },
    });
    expect(forged.status).toBe(400);
    const before = (await mailsTo(TX)).length;
    const out = await sendNow();
    expect(out[TX]).toBeUndefined();
    expect(await mailsTo(TX)).toHaveLength(before);
  }, 180_000);

  it('a firing whose process died sends the rest and nothing twice', async () => {
    const sentBefore = { a: (await mailsTo(ADMIN)).length, ca: (await mailsTo(CA)).length };
    // A firing as a dead process leaves it: the admin's mail was going out, CA's not yet.
    const r = await s.api('POST', `/projects/${s.demo}/app/delivery/${SUB}/run`);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id, 120_000);
    const { deliveryHistory: h, jobs } = tablesOf(s.engine.db);
    const where = (who: string) => and(eq(h.jobId, job.id), eq(h.recipient, who));
    await s.engine.db.update(h).set({ outcome: 'sending' }).where(where(ADMIN));
    await s.engine.db.update(h).set({ outcome: 'pending' }).where(where(CA));
    await s.engine.db
      .update(jobs)
      .set({ status: 'ERROR', message: 'interrupted by restart' })
      .where(eq(jobs.id, job.id));
    const mid = { a: (await mailsTo(ADMIN)).length, ca: (await mailsTo(CA)).length };
    await s.engine.delivery.resumeHalfSent();
    // The resumed firing is a job of its own; wait for CA's row to settle.
    for (let i = 0; i < 600; i++) {
      const rows = await s.engine.db.select().from(h).where(eq(h.recipient, CA));
      if (!rows.some((x) => x.outcome === 'pending' || x.outcome === 'sending')) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    await s.engine.delivery.resumeHalfSent(); // a second scan finds nothing left to resume
    const hist = await s.api('GET', `/projects/${s.demo}/app/delivery/${SUB}/history`);
    const ofFiring = (hist.json.history as { recipient: string; outcome: string; job: string }[])
      .filter((x) => x.recipient === ADMIN || x.recipient === CA)
      .slice(0, 2);
    expect(Object.fromEntries(ofFiring.map((x) => [x.recipient, x.outcome]))).toEqual({
      [ADMIN]: 'unknown',
      [CA]: 'sent',
    });
    expect((await mailsTo(ADMIN)).length).toBe(mid.a);
    expect((await mailsTo(CA)).length).toBe(mid.ca + 1);
    expect(mid).toEqual({ a: sentBefore.a + 1, ca: sentBefore.ca + 1 });
  }, 180_000);

  it('sends XLSX or CSV files of chosen items', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
      body: {
        ident: 'subscription.carriers_csv',
        type: 'subscription',
        name: 'Carriers as CSV',
        def: {
          dashboard: DASH,
          recipients: [CA],
          schedule: { cron: '0 8 1 * *' },
          format: 'csv',
          items: ['by_carrier'],
          filters: ['attr.airports.region:West'],
        },
      },
    });
    expect(r.status, r.text).toBe(201);
    const out = await sendNow('subscription.carriers_csv');
    expect(out).toEqual({ [CA]: 'sent' });
    const m = (await mailsTo(CA)).at(-1)!;
    const csv = m.attachments.filter((a) => a.contentType.startsWith('text/csv'));
    expect(csv.map((a) => a.filename)).toHaveLength(1);
    expect(csv[0]!.filename).toMatch(/^Flights overview - .+\.csv$/);
    expect(m.attachments.some((a) => a.contentType === 'application/pdf')).toBe(false);
    expect(m.text).toContain('Filtered by Origin Region: West.');
    const rows = csv[0]!.content.toString('utf8').trim().split('\n');
    expect(rows.length).toBeGreaterThan(1);
  }, 180_000);

  it("an XLSX keeps a table's conditional colours, as the item's download does", async () => {
    const post = async (body: Record<string, unknown>) => {
      const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body });
      expect(r.status, r.text).toBe(201);
    };
    await post({
      ident: 'report.cf_mail',
      type: 'report',
      name: 'Carriers coloured',
      def: {
        aql: 'SELECT [Carrier Name], COUNT([flights]) AS "Flights"',
        visualization: {
          type: 'table',
          conditional: [{ column: 2, type: 'threshold', op: '>', value: 0, background: '#fde2e1' }],
        },
      },
    });
    await post({
      ident: 'dashboard.cf_mail',
      type: 'dashboard',
      name: 'Coloured',
      def: {
        items: [{ id: 'cf', report: 'report.cf_mail' }],
        layout: [{ item: 'cf', x: 0, y: 0, w: 12, h: 4 }],
        filters: [],
      },
    });
    await post({
      ident: 'subscription.cf_mail',
      type: 'subscription',
      name: 'Coloured as XLSX',
      def: {
        dashboard: 'dashboard.cf_mail',
        recipients: [CA],
        schedule: { cron: '0 8 1 * *' },
        format: 'xlsx',
      },
    });
    expect(await sendNow('subscription.cf_mail')).toEqual({ [CA]: 'sent' });
    const xlsx = (await mailsTo(CA))
      .at(-1)!
      .attachments.find((a) => a.filename === 'Coloured - Carriers coloured.xlsx');
    expect(xlsx).toBeDefined();
    const files = unzip(xlsx!.content);
    // Every count is above 0: each count cell is filled with the rule's colour.
    const styles = files.get('xl/styles.xml')!;
    const fills = [...styles.matchAll(/<fill>(.*?)<\/fill>/g)].map((m) => m[1]!);
    const xfs = [
      .../<cellXfs[^>]*>(.*?)<\/cellXfs>/.exec(styles)![1]!.matchAll(/<xf [^>]*\/>/g),
    ].map((m) => m[0]);
    const cell = /<c r="B2" s="(\d+)"/.exec(files.get('xl/worksheets/sheet1.xml')!);
    expect(cell, 'the first count cell has a style').not.toBeNull();
    const fill = fills[Number(/fillId="(\d+)"/.exec(xfs[Number(cell![1])]!)![1])]!;
    expect(fill).toContain('<fgColor rgb="FFFDE2E1"/>');
  }, 180_000);

  it('a late bounce, piped to `ursa delivery bounce`, is recorded on the mail it returns', async () => {
    // The XLSX mail of the test before (subscription.cf_mail), returned.
    const mail = (await mailsTo(CA)).at(-1)!;
    const id = mail.messageId!;
    expect(id).toMatch(/^<ursa-delivery\.[\w-]+@/);
    // As Postfix returns an undeliverable mail (RFC 3464), its headers quoted.
    const dsn = (action: string, to = CA) =>
      [
        'From: MAILER-DAEMON@mx.example.net (Mail Delivery System)',
        'Subject: Undelivered Mail Returned to Sender',
        'MIME-Version: 1.0',
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
        '',
        '--b1',
        'Content-Type: text/plain',
        '',
        'I am sorry to have to inform you that your message could not be delivered.',
        '--b1',
        'Content-Type: message/delivery-status',
        '',
        'Reporting-MTA: dns; mx.example.net',
        '',
        `Final-Recipient: rfc822; ${to}`,
        `Action: ${action}`,
        'Status: 5.1.1',
        `Diagnostic-Code: smtp; 550 5.1.1 <${to}>: Recipient address`,
        // A NUL in a notice (which the metadata database cannot store) is dropped.
        '    rejected: User unknown\u0000 in virtual mailbox table',
        '',
        '--b1',
        'Content-Type: text/rfc822-headers',
        '',
        `Message-ID: ${id}`,
        `Subject: ${mail.subject}`,
        '--b1--',
        '',
      ].join('\r\n');
    const pipe = (input: string) =>
      runCli(['delivery', 'bounce'], { URSA_DATA_DIR: s.dataDir }, { input, timeoutMs: 60_000 });
    const history = async () => {
      const h = await s.api('GET', `/projects/${s.demo}/app/delivery/subscription.cf_mail/history`);
      return (h.json.history as { recipient: string; outcome: string; message: string }[]).find(
        (e) => e.recipient === CA,
      )!;
    };
    expect((await history()).outcome).toBe('sent');

    // A delay is not a failure; a notice naming someone else, or no Ursa mail, is refused.
    let r = await pipe(dsn('delayed'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: 'ignored' });
    r = await pipe(dsn('failed', 'someone-else@example.com'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/names someone-else@example.com/);
    r = await pipe('Subject: hello\r\n\r\nnot a bounce\r\n');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not a bounce of an Ursa delivery mail/);
    expect((await history()).outcome).toBe('sent');

    r = await pipe(dsn('failed'));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      project: s.demo,
      object: 'subscription.cf_mail',
      recipient: CA,
      outcome: 'bounced',
    });
    const e = await history();
    expect(e.outcome).toBe('bounced');
    expect(e.message).toContain('5.1.1');
    expect(e.message).toContain('Recipient address rejected: User unknown');
  }, 180_000);

  it('pauses and resumes: its creator or an MD Admin only', async () => {
    const refused = await s.api('POST', `/projects/${s.demo}/app/delivery/${SUB}/pause`, {
      as: CA,
    });
    expect(refused.status, refused.text).toBe(403);
    const p = await s.api('POST', `/projects/${s.demo}/app/delivery/${SUB}/pause`);
    expect(p.status, p.text).toBe(200);
    expect(p.json).toEqual({ paused: true });
    const o = await s.api('GET', `/projects/${s.demo}/pmd/obj/${SUB}`);
    expect(o.json.object.def.paused).toBe(true);
    const q = await s.api('POST', `/projects/${s.demo}/app/delivery/${SUB}/resume`);
    expect(q.json).toEqual({ paused: false });
    const o2 = await s.api('GET', `/projects/${s.demo}/pmd/obj/${SUB}`);
    expect(o2.json.object.def.paused).toBeUndefined();
    // Sending now mails everyone on it: not for a member who is neither.
    const send = await s.api('POST', `/projects/${s.demo}/app/delivery/${SUB}/run`, { as: CA });
    expect(send.status, send.text).toBe(403);
  });

  it('refuses a bad definition with the field named', async () => {
    const bad = async (def: Record<string, unknown>, field: RegExp) => {
      const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
        body: { type: 'subscription', name: 'Bad', def },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(field);
    };
    const ok = { dashboard: DASH, recipients: [CA], schedule: { cron: '0 8 * * 1' } };
    await bad({ ...ok, schedule: { cron: '0 8 * *' } }, /five-field/);
    await bad({ ...ok, recipients: ['not an address'] }, /recipients/);
    await bad({ ...ok, dashboard: 'dashboard.nope' }, /dashboard\.nope/);
    await bad({ ...ok, format: 'docx' }, /format/);
    await bad({ ...ok, items: ['by_carrier'] }, /items/);
    await bad({ ...ok, recipients: [CA, CA] }, /twice/);
    await bad({ ...ok, format: 'csv', items: ['nope'] }, /has no item/);
    await bad({ ...ok, filters: ['Carrier:AA'] }, /not <attribute>:<value> of a filter/);
  });
});
