// Members manage their own subscriptions and alerts (issue 35): over REST (app/delivery) and
// MCP (create_subscription, create_alert, list_deliveries, change_delivery, remove_delivery),
// a preview says what would be sent to whom before anything is saved; below MD Admin only what
// is addressed to oneself, changed (PUT app/delivery/{id}, change_delivery) and removed by its
// creator; plan limits answer 402 (`deliveries`, and `emailsPerDay` for sending now). Real
// parts: the MCP SDK client over HTTP, a loopback SMTP server.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { startSmtpSink, writePlansFile, type SmtpSink } from './helpers/fixtures.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const MEMBER = 'own-member@example.com';
const OTHER = 'own-other@example.com';
const DASH = 'dashboard.demo_flights';

let s: TestServer;
let smtp: SmtpSink;
let plans: ReturnType<typeof writePlansFile>;
let mcp: Client;

const delivery = (path = '') => `/projects/${s.demo}/app/delivery${path}`;
const subscription = (recipients: string[], extra: Record<string, unknown> = {}) => ({
  type: 'subscription',
  name: `Mine ${Math.random().toString(36).slice(2, 8)}`,
  def: { dashboard: DASH, recipients, schedule: { cron: '0 8 * * 1' }, ...extra },
});

async function call(name: string, args: Record<string, unknown>) {
  const r = await mcp.callTool({ name, arguments: { project: s.demo, ...args } });
  return r as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content: { text?: string }[];
  };
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  plans = writePlansFile({ deliveries: 4, emailsPerDay: 2 });
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    URSA_PLANS_FILE: plans.file,
    URSA_MAIL_RETRY_MS: '10,10',
  });
  await waitForDemo(s);
  await invite(s, s.demo, MEMBER);
  await invite(s, s.demo, OTHER);
  mcp = await connectMcp(s, MEMBER);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await s?.close();
  await smtp?.close();
  plans?.remove();
});

describe('a member manages their own', () => {
  it('previews, then subscribes themself; someone else needs an MD Admin', async () => {
    const body = subscription([MEMBER]);
    const preview = await s.api('POST', delivery(), { as: MEMBER, body });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.created).toBe(false);
    expect(preview.json.summary).toContain('"Flights overview"');
    expect(preview.json.summary).toContain(MEMBER);
    expect(preview.json.summary).toMatch(/next Mon/);
    const none = await s.api('GET', delivery(), { as: MEMBER });
    expect(none.json.deliveries).toEqual([]);
    const made = await s.api('POST', delivery(), { as: MEMBER, body: { ...body, confirm: true } });
    expect(made.status, made.text).toBe(201);
    const ident = made.json.object.ident as string;
    const others = await s.api('POST', delivery(), {
      as: MEMBER,
      body: { ...subscription([MEMBER, OTHER]), confirm: true },
    });
    expect(others.status, others.text).toBe(403);
    expect(others.json.message).toMatch(/subscribes only themself/);
    // Not through pmd/obj either (MD Admin there), nor any other kind of object.
    const obj = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { as: MEMBER, body });
    expect(obj.status).toBe(403);
    // The other member neither changes nor removes it; its creator does.
    const put = await s.api('PUT', `/projects/${s.demo}/pmd/obj/${ident}`, {
      as: OTHER,
      body: { ...body, def: { ...body.def, recipients: [OTHER] } },
    });
    expect(put.status).toBe(403);
    expect((await s.api('DELETE', delivery(`/${ident}`), { as: OTHER })).status).toBe(403);
    const mine = await s.api('GET', delivery(), { as: MEMBER });
    expect(mine.json.deliveries.map((d: { ident: string }) => d.ident)).toEqual([ident]);
    expect((await s.api('GET', delivery(), { as: OTHER })).json.deliveries).toEqual([]);
    expect((await s.api('DELETE', delivery(`/${ident}`), { as: MEMBER })).status).toBe(204);
  });

  it('changes their own with PUT: a preview first; only to themself; not another member’s', async () => {
    const body = subscription([MEMBER]);
    const made = await s.api('POST', delivery(), { as: MEMBER, body: { ...body, confirm: true } });
    expect(made.status, made.text).toBe(201);
    const ident = made.json.object.ident as string;
    const def = { ...body.def, schedule: { cron: '30 7 * * 5' }, format: 'xlsx' };
    const preview = await s.api('PUT', delivery(`/${ident}`), { as: MEMBER, body: { def } });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json).toMatchObject({ changed: false });
    expect(preview.json.summary).toMatch(/next Fri/);
    const unchanged = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`, { as: MEMBER });
    expect(unchanged.json.object.def.schedule.cron).toBe('0 8 * * 1');

    const changed = await s.api('PUT', delivery(`/${ident}`), {
      as: MEMBER,
      body: { def, confirm: true },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.object).toMatchObject({
      ident,
      name: body.name,
      def: { recipients: [MEMBER], format: 'xlsx', schedule: { cron: '30 7 * * 5' } },
    });
    const widened = await s.api('PUT', delivery(`/${ident}`), {
      as: MEMBER,
      body: { def: { ...def, recipients: [MEMBER, OTHER] }, confirm: true },
    });
    expect(widened.status, widened.text).toBe(403);
    expect(widened.json.message).toMatch(/subscribes only themself/);
    const theirs = await s.api('PUT', delivery(`/${ident}`), {
      as: OTHER,
      body: { def: { ...def, recipients: [OTHER] }, confirm: true },
    });
    expect(theirs.status).toBe(403);
    const bad = await s.api('PUT', delivery(`/${ident}`), {
      as: MEMBER,
      body: { def: { ...def, format: 'docx' }, confirm: true },
    });
    expect(bad.status, bad.text).toBe(400);
    const none = await s.api('PUT', delivery('/subscription.nope'), { as: MEMBER, body: { def } });
    expect(none.status).toBe(404);
    const after = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`, { as: MEMBER });
    expect(after.json.object.def.format).toBe('xlsx');
    expect((await s.api('DELETE', delivery(`/${ident}`), { as: MEMBER })).status).toBe(204);
  });

  it('over MCP: a preview, then created with confirm; listed and removed', async () => {
    const args = {
      title: 'Cancellations',
      aql: 'SELECT COUNT([flights])',
      op: '>',
      value: 1,
      schedule: { cron: '0 7 * * *', timezone: 'Europe/Prague' },
    };
    const preview = await call('create_alert', args);
    expect(preview.isError, preview.content[0]?.text).toBeFalsy();
    expect(preview.structuredContent).toMatchObject({ created: false, id: null });
    expect(String(preview.structuredContent!.summary)).toContain(`Tells ${MEMBER} once`);
    const made = await call('create_alert', { ...args, confirm: true });
    expect(made.structuredContent).toMatchObject({ created: true });
    const id = String(made.structuredContent!.id);
    const sub = await call('create_subscription', {
      dashboard: DASH,
      title: 'Mondays',
      schedule: { cron: '0 8 * * 1' },
      confirm: true,
    });
    expect(sub.structuredContent, sub.content[0]?.text).toMatchObject({ created: true });
    const list = await call('list_deliveries', {});
    const ids = (list.structuredContent!.deliveries as { id: string }[]).map((d) => d.id);
    expect(ids).toEqual(expect.arrayContaining([id, String(sub.structuredContent!.id)]));
    const bad = await call('create_alert', { ...args, email: [OTHER], confirm: true });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/alerts only themself/);
    // Changed over MCP: a preview says what it would send, then confirm; the rest stays.
    const subId = String(sub.structuredContent!.id);
    const later = await call('change_delivery', {
      id: subId,
      schedule: { cron: '30 7 * * 5', timezone: 'Europe/Prague' },
      format: 'xlsx',
    });
    expect(later.isError, later.content[0]?.text).toBeFalsy();
    expect(later.structuredContent).toMatchObject({ changed: false, id: subId });
    expect(String(later.structuredContent!.summary)).toMatch(/next Fri/);
    const saved = await call('change_delivery', {
      id: subId,
      schedule: { cron: '30 7 * * 5', timezone: 'Europe/Prague' },
      format: 'xlsx',
      confirm: true,
    });
    expect(saved.structuredContent).toMatchObject({ changed: true });
    const obj = await s.api('GET', `/projects/${s.demo}/pmd/obj/${subId}`, { as: MEMBER });
    expect(obj.json.object).toMatchObject({
      name: 'Mondays',
      def: { dashboard: DASH, recipients: [MEMBER], format: 'xlsx' },
    });
    expect(obj.json.object.def.schedule.cron).toBe('30 7 * * 5');
    const higher = await call('change_delivery', { id, value: 5, paused: true, confirm: true });
    expect(higher.structuredContent, higher.content[0]?.text).toMatchObject({ changed: true });
    const alert = await s.api('GET', `/projects/${s.demo}/pmd/obj/${id}`, { as: MEMBER });
    expect(alert.json.object.def).toMatchObject({
      condition: { op: '>', value: 5 },
      paused: true,
      email: [MEMBER],
    });
    const widen = await call('change_delivery', { id, email: [MEMBER, OTHER], confirm: true });
    expect(widen.isError).toBe(true);
    expect(widen.content[0]?.text).toMatch(/alerts only themself/);
    const removed = await call('remove_delivery', { id });
    expect(removed.structuredContent).toEqual({ removed: id });
    await call('remove_delivery', { id: String(sub.structuredContent!.id) });
  });
});

describe('plan limits', () => {
  it('a project holds at most `deliveries` subscriptions and alerts: 402, nothing saved', async () => {
    const made: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await s.api('POST', delivery(), {
        body: { ...subscription([ADMIN]), confirm: true },
      });
      expect(r.status, r.text).toBe(201);
      made.push(r.json.object.ident);
    }
    const over = await s.api('POST', delivery(), {
      body: { ...subscription([ADMIN]), confirm: true },
    });
    expect(over.status, over.text).toBe(402);
    expect(over.json.message).toMatch(/deliveries/);
    const usage = await s.api('GET', `/projects/${s.demo}/limitadherence`);
    expect(usage.json.deliveries).toEqual({ limit: 4, value: 4 });
    for (const id of made.slice(1)) await s.api('DELETE', delivery(`/${id}`));
  });

  it('`emailsPerDay`: sending now over it answers 402; a scheduled mail over it fails, unsent', async () => {
    const list = await s.api('GET', delivery());
    const id = list.json.deliveries[0].ident as string;
    await s.api('PUT', `/projects/${s.demo}/pmd/obj/${id}`, {
      body: { ...subscription([ADMIN, MEMBER, OTHER]), name: 'Three' },
    });
    const over = await s.api('POST', delivery(`/${id}/run`));
    expect(over.status, over.text).toBe(402);
    expect(over.json.message).toMatch(/emailsPerDay/);
    await s.api('PUT', `/projects/${s.demo}/pmd/obj/${id}`, {
      body: { ...subscription([ADMIN, MEMBER]), name: 'Two' },
    });
    const ok = await s.api('POST', delivery(`/${id}/run`));
    expect(ok.status, ok.text).toBe(202);
    const job = await s.engine.jobs.waitFor(ok.json.link[0].id, 120_000);
    expect(job.result).toMatchObject({ outcomes: { [ADMIN]: 'sent', [MEMBER]: 'sent' } });
    const usage = await s.api('GET', `/projects/${s.demo}/limitadherence`);
    expect(usage.json.emailsPerDay).toEqual({ limit: 2, value: 2 });
    // The day's two are spent: the next firing records the plan's refusal and sends nothing.
    const sent = smtp.messages.length;
    const job2 = await s.engine.jobs.submit(
      await s.engine.actor({ email: ADMIN }, s.demo),
      'delivery',
      { id },
    );
    const done = await s.engine.jobs.waitFor(job2.id, 120_000);
    expect(done.result).toMatchObject({ outcomes: { [ADMIN]: 'failed', [MEMBER]: 'failed' } });
    expect(smtp.messages.length).toBe(sent);
    const hist = await s.api('GET', delivery(`/${id}/history`));
    expect(hist.json.history[0].message).toMatch(/emailsPerDay/);
  }, 180_000);
});
