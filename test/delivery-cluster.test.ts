// Delivery in a cluster (issue 35 "fires once"): three Ursa processes on one PostgreSQL behind
// HAProxy (scripts/cluster-lib.ts), each ticking its schedules every second. A subscription
// and an alert due at the same minute are each claimed by one process: one delivery job each,
// and each recipient — an Admin and a member with a row filter — receives one mail of each,
// through a real SMTP server on loopback.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterMissing, startCluster, type Cluster } from '../scripts/cluster-lib.js';
import { postgresMissing } from '../scripts/throwaway-postgres.js';
import { parseMail, startSmtpSink, type SmtpSink } from './helpers/fixtures.js';
import { ADMIN_PASSWORD } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

const missing = clusterMissing() ?? postgresMissing();
if (missing && process.env.CI) throw new Error(`the delivery cluster test needs: ${missing}`);

const MEMBER = 'ca-member@example.com';
const DASH = 'dashboard.demo_flights';

// Always on PostgreSQL (its own): the SQLite pass runs it, the PostgreSQL pass need not.
describe.skipIf(!!missing || process.env.URSA_TEST_DATABASE === 'postgres')(
  'subscriptions and alerts on three processes',
  () => {
    let c: Cluster;
    let smtp: SmtpSink;
    let token: string;
    let db: pg.Client;
    let project: string;

    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${c.url}/api/v1${p}`, {
        method,
        headers: {
          accept: 'application/json',
          // A query answers inline.
          prefer: 'wait=30',
          authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, text, json: (text ? JSON.parse(text) : undefined) as Json };
    };
    const mailsTo = (who: string, subject: RegExp) =>
      smtp.messages.filter(
        (m) =>
          m.to.includes(who) &&
          subject.test(parseMail(m.raw).headers.get('subject')?.replace(/\s+/g, ' ') ?? ''),
      );

    beforeAll(async () => {
      smtp = await startSmtpSink();
      c = await startCluster({
        env: {
          URSA_ADMIN_PASSWORD: ADMIN_PASSWORD,
          URSA_DEMO_DATA: 'true',
          URSA_DEFAULT_PLAN: 'enterprise',
          URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
        },
      });
      c.adminPassword = ADMIN_PASSWORD;
      token = await c.token(c.adminEmail);
      db = new pg.Client({ connectionString: c.databaseUrl });
      db.on('error', () => undefined);
      await db.connect();
      const list = await call('GET', '/projects');
      project = Object.entries(list.json.projects as Record<string, Json>).find(
        ([, p]) => p.label === 'Demo',
      )![0];
      // The demo's data loaded (by whichever process bootstrapped it).
      const deadline = Date.now() + 120_000;
      for (;;) {
        const r = await call('POST', `/projects/${project}/app/aql/execute`, {
          aql: 'SELECT COUNT([flights])',
        });
        if (r.status === 200 && Number(r.json.data?.values) > 0) break;
        if (Date.now() > deadline) throw new Error(`the demo never loaded: ${r.text}`);
        await new Promise((res) => setTimeout(res, 500));
      }
      const invited = await call('POST', `/projects/${project}/users`, {
        id: MEMBER,
        filter: '[Origin State] = "CA"',
      });
      expect(invited.status, invited.text).toBe(200);
    }, 240_000);

    afterAll(async () => {
      await db?.end().catch(() => undefined);
      await c?.stop();
      await smtp?.close();
    }, 60_000);

    it('a subscription and an alert due at one minute fire once each, every recipient mailed once', async () => {
      // The next whole minute at least 15 s away (the objects exist before it), in UTC.
      const slot = new Date(Math.ceil((Date.now() + 15_000) / 60_000) * 60_000);
      const cron = `${slot.getUTCMinutes()} ${slot.getUTCHours()} * * *`;
      const schedule = { cron, timezone: 'UTC' };
      const recipients = [c.adminEmail, MEMBER];
      for (const body of [
        {
          ident: 'subscription.cluster',
          type: 'subscription',
          name: 'Cluster digest',
          def: { dashboard: DASH, recipients, schedule, format: 'pdf' },
        },
        {
          ident: 'alert.cluster',
          type: 'alert',
          name: 'Cluster flights',
          def: {
            aql: 'SELECT COUNT([flights])',
            condition: { op: '>', value: 0 },
            email: recipients,
            schedule,
          },
        },
      ]) {
        const r = await call('POST', `/projects/${project}/pmd/obj`, body);
        expect(r.status, r.text).toBe(201);
      }
      expect(Date.now()).toBeLessThan(slot.getTime());

      // A subscription's mail is titled by its dashboard and day.
      const subject = { sub: /^Flights overview — /, alert: /^Alert "Cluster flights"/ };
      const deadline = slot.getTime() + 150_000;
      for (;;) {
        const n = recipients.flatMap((r) => [mailsTo(r, subject.sub), mailsTo(r, subject.alert)]);
        if (n.every((m) => m.length >= 1)) break;
        if (Date.now() > deadline) {
          const why = await db.query(
            `SELECT type, status, message, params FROM jobs WHERE project_id = $1 AND type = 'delivery'`,
            [project],
          );
          const ledger = await db.query(
            `SELECT object, recipient, outcome, message FROM delivery_history WHERE project_id = $1`,
            [project],
          );
          throw new Error(
            `not every mail came: ${n.map((m) => m.length).join(', ')}; jobs ${JSON.stringify(why.rows)}; ledger ${JSON.stringify(ledger.rows)}`,
          );
        }
        await new Promise((res) => setTimeout(res, 250));
      }
      // Every process has ticked several times since: still one of each.
      await new Promise((res) => setTimeout(res, 4_000));
      for (const r of recipients) {
        expect(mailsTo(r, subject.sub), `${r}: subscription mails`).toHaveLength(1);
        expect(mailsTo(r, subject.alert), `${r}: alert mails`).toHaveLength(1);
      }
      // The member's PDF is their rows: the subscription mail says who it was computed for.
      expect(parseMail(mailsTo(MEMBER, subject.sub)[0]!.raw).body).toContain(MEMBER);

      const firings = await db.query<{ trigger: string; slot: string; outcome: string }>(
        `SELECT "trigger", slot, outcome FROM trigger_firings WHERE project_id = $1 AND "trigger" IN ('subscription.cluster', 'alert.cluster') ORDER BY "trigger"`,
        [project],
      );
      expect(firings.rows).toEqual([
        { trigger: 'alert.cluster', slot: slot.toISOString(), outcome: 'started' },
        { trigger: 'subscription.cluster', slot: slot.toISOString(), outcome: 'started' },
      ]);
      const jobs = await db.query<{ params: unknown; status: string }>(
        `SELECT params, status FROM jobs WHERE project_id = $1 AND type = 'delivery'`,
        [project],
      );
      const of = (ident: string) =>
        jobs.rows.filter((j) => {
          const p = typeof j.params === 'string' ? JSON.parse(j.params) : j.params;
          return (p as { id?: string }).id === ident;
        });
      expect(of('subscription.cluster').map((j) => j.status)).toEqual(['OK']);
      expect(of('alert.cluster').map((j) => j.status)).toEqual(['OK']);
    }, 300_000);
  },
);
