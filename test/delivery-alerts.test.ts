// Data alerts (issue 35, first part): an `alert` object watches one measure and tells members
// by e-mail — each evaluated with their own row filter, a removed member told nothing — and a
// webhook (HMAC-signed, evaluated as the creator), once per firing until the condition clears.
// Real parts: an SMTP server on loopback receiving the mails, an HTTP receiver checking the
// webhook's signature.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { loadDataset, parseMail, startSmtpSink, type SmtpSink } from './helpers/fixtures.js';
import {
  ADMIN,
  invite,
  openOtherEngine,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const CA = 'alert-ca@example.com';
const SECRET = 'whsec-test-8f2b1c';

let s: TestServer;
let smtp: SmtpSink;
let hook: http.Server;
const hooks: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let caCount: number;
let allCount: number;

async function count(as: string): Promise<number> {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    as,
    body: { aql: 'SELECT COUNT([flights])' },
    headers: { prefer: 'wait=60' },
  });
  expect(r.status, r.text).toBe(200);
  return Number(r.json.data.values);
}

async function put(threshold: number, extra: Record<string, unknown> = {}) {
  const r = await s.api('PUT', `/projects/${s.demo}/pmd/obj/alert.flights`, {
    body: {
      type: 'alert',
      name: 'Flights count',
      def: {
        aql: 'SELECT COUNT([flights])',
        condition: { op: '>', value: threshold },
        email: [ADMIN, CA, 'not-a-member@example.com'],
        webhook: {
          url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`,
          secret: 'cred.hook',
        },
        ...extra,
      },
    },
  });
  expect(r.status, r.text).toBeLessThan(300);
}

/** Runs the alert now and answers each recipient's outcome. */
async function run(): Promise<Record<string, string>> {
  const r = await s.api('POST', `/projects/${s.demo}/app/delivery/alert.flights/run`);
  expect(r.status, r.text).toBe(202);
  const job = await s.engine.jobs.waitFor(r.json.link[0].id);
  expect(job.status, job.message).toBe('OK');
  return (job.result as { outcomes: Record<string, string> }).outcomes;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  hook = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  s = await startTestServer({
    URSA_DEMO_DATA: 'true',
    URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
  });
  await waitForDemo(s);
  await invite(s, s.demo, CA, { filter: '[Origin State] = "CA"' });
  const cred = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    body: {
      ident: 'cred.hook',
      type: 'credentials',
      name: 'Hook',
      def: { kind: 'http', secret: SECRET },
    },
  });
  expect(cred.status, cred.text).toBe(201);
  [caCount, allCount] = [await count(CA), await count(ADMIN)];
  expect(caCount).toBeLessThan(allCount);
  const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    body: {
      ident: 'alert.flights',
      type: 'alert',
      name: 'Flights count',
      def: {
        aql: 'SELECT COUNT([flights])',
        condition: { op: '>', value: caCount },
        email: [ADMIN],
      },
    },
  });
  expect(r.status, r.text).toBe(201);
}, 120_000);

afterAll(async () => {
  await s?.close();
  await smtp?.close();
  await new Promise<void>((r) => hook?.close(() => r()));
});

const mailsTo = (who: string) => smtp.messages.filter((m) => m.to.includes(who));

describe('an alert', () => {
  it('tells each member as they see the data, once; a webhook signed as the creator', async () => {
    await put(caCount);
    const out = await run();
    // The admin sees every flight (> threshold); the CA member only CA's (not above it).
    expect(out).toEqual({
      [ADMIN]: 'fired',
      [CA]: 'clear',
      'not-a-member@example.com': 'skipped',
      webhook: 'fired',
    });
    expect(mailsTo(ADMIN)).toHaveLength(1);
    expect(mailsTo(CA)).toHaveLength(0);
    const mail = parseMail(mailsTo(ADMIN)[0]!.raw);
    expect(mail.headers.get('subject')?.replace(/\s+/g, ' ')).toContain(
      `Alert "Flights count": ${allCount} is > ${caCount}`,
    );
    expect(mail.body).toContain(`/app/p/${s.demo}`);

    expect(hooks).toHaveLength(1);
    const h = hooks[0]!;
    const ts = String(h.headers['x-ursa-timestamp']);
    const expected = crypto.createHmac('sha256', SECRET).update(`${ts}.${h.body}`).digest('hex');
    expect(h.headers['x-ursa-signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(h.body)).toMatchObject({
      event: 'alert.fired',
      alert: 'alert.flights',
      value: allCount,
      condition: { op: '>', value: caCount },
    });

    // Still above: nobody is told again.
    expect(await run()).toMatchObject({ [ADMIN]: 'still', webhook: 'still' });
    expect(mailsTo(ADMIN)).toHaveLength(1);
    expect(hooks).toHaveLength(1);
  });

  it('fires again only after the condition cleared; the history says what happened', async () => {
    await put(allCount);
    expect(await run()).toMatchObject({ [ADMIN]: 'cleared', webhook: 'cleared' });
    await put(caCount);
    expect(await run()).toMatchObject({ [ADMIN]: 'fired', webhook: 'fired' });
    expect(mailsTo(ADMIN)).toHaveLength(2);
    expect(hooks).toHaveLength(2);
    const h = await s.api(
      'GET',
      `/projects/${s.demo}/app/delivery/alert.flights/history?limit=100`,
    );
    expect(h.status, h.text).toBe(200);
    const mine = (h.json.history as { recipient: string; outcome: string; value: number }[])
      .filter((e) => e.recipient === ADMIN)
      .map((e) => e.outcome);
    expect(mine).toEqual(['fired', 'cleared', 'still', 'fired']);
    const skipped = (h.json.history as { recipient: string; message: string }[]).find(
      (e) => e.recipient === 'not-a-member@example.com',
    );
    expect(skipped?.message).toMatch(/not a member of the project/);
  });

  it('a def must watch one thing and tell someone (400 naming the field)', async () => {
    for (const [def, field] of [
      [
        {
          aql: 'SELECT COUNT([flights])',
          metric: 'm',
          condition: { op: '>', value: 1 },
          email: [ADMIN],
        },
        'metric',
      ],
      [{ aql: 'SELECT COUNT([flights])', condition: { op: '>', value: 1 } }, 'email'],
      [
        { aql: 'SELECT COUNT([flights])', condition: { op: '!=', value: 1 }, email: [ADMIN] },
        'condition',
      ],
    ] as const) {
      const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
        body: { type: 'alert', name: 'Bad', def },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.text).toContain(field);
    }
    expect((await s.api('POST', `/projects/${s.demo}/app/delivery/nope/run`)).status).toBe(404);
  });
});

/** The delivery jobs of an alert so far. */
async function jobsOf(ident: string) {
  const a = await s.engine.actor({ email: ADMIN }, s.demo);
  const { items } = await s.engine.jobs.list(a, { type: 'delivery', limit: 100, offset: 0 });
  return items.filter((j) => j.params.id === ident);
}

async function create(ident: string, def: Record<string, unknown>) {
  const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
    body: { ident, type: 'alert', name: ident, def },
  });
  expect(r.status, r.text).toBe(201);
}

describe('when an alert is evaluated by itself', () => {
  it('on its schedule: a due slot once, across processes sharing the database', async () => {
    await create('alert.hourly', {
      aql: 'SELECT COUNT([flights])',
      condition: { op: '>', value: 0 },
      email: [ADMIN],
      schedule: { cron: '0 * * * *', timezone: 'UTC' },
    });
    // The next hour: its slot came after the alert was armed, so it is owed.
    const later = new Date(Date.now() + 3_600_000);
    const other = await openOtherEngine(s);
    try {
      await Promise.all([
        s.engine.delivery.schedule.tick(later),
        other.delivery.schedule.tick(later),
      ]);
      await Promise.all([s.engine.delivery.schedule.settled(), other.delivery.schedule.settled()]);
      const jobs = await jobsOf('alert.hourly');
      expect(jobs).toHaveLength(1);
      expect((await s.engine.jobs.waitFor(jobs[0]!.id)).status).toBe('OK');
      // The same slot again: nothing more.
      await s.engine.delivery.schedule.tick(later);
      await s.engine.delivery.schedule.settled();
      expect(await jobsOf('alert.hourly')).toHaveLength(1);
    } finally {
      await other.close();
    }
    // Before its first slot after creation: not owed.
    await create('alert.hourly2', {
      aql: 'SELECT COUNT([flights])',
      condition: { op: '>', value: 0 },
      email: [ADMIN],
      schedule: { cron: '0 * * * *' },
    });
    await s.engine.delivery.schedule.tick(new Date());
    await s.engine.delivery.schedule.settled();
    expect(await jobsOf('alert.hourly2')).toHaveLength(0);
  });

  it('after a load of its project, when afterLoads is set', async () => {
    await create('alert.loads', {
      aql: 'SELECT COUNT([flights])',
      condition: { op: '>', value: 0 },
      email: [ADMIN],
      afterLoads: true,
    });
    expect(await jobsOf('alert.loads')).toHaveLength(0);
    await loadDataset(s, s.demo, 'tiny', 'k,v\n1,2\n', 'k', [
      ['k', 'A', 'integer', 'K'],
      ['v', 'F', 'number', 'V'],
    ]);
    await expect.poll(async () => (await jobsOf('alert.loads')).length).toBe(1);
    const [job] = await jobsOf('alert.loads');
    expect((await s.engine.jobs.waitFor(job!.id)).status).toBe('OK');
  });
});

describe('a change against the previous period, no data, and a rename', () => {
  // The day in the project's time zone (UTC here), as TODAY() is.
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
  let n = 0;
  const alertOf = async (def: Record<string, unknown>) => {
    const ident = `alert.p${++n}`;
    await create(ident, { email: [ADMIN], ...def });
    return ident;
  };
  const runNow = async (ident: string) => {
    const r = await s.api('POST', `/projects/${s.demo}/app/delivery/${ident}/run`);
    expect(r.status, r.text).toBe(202);
    const job = await s.engine.jobs.waitFor(r.json.link[0].id);
    expect(job.status, job.message).toBe('OK');
    return (job.result as { outcomes: Record<string, string> }).outcomes[ADMIN];
  };

  beforeAll(async () => {
    // This week so far: 3 sales today. The same days of last week: 2 sales, a week ago.
    const rows = [
      [1, day(0), 'north', 10],
      [2, day(0), 'north', 20],
      [3, day(0), 'south', 30],
      [4, day(7), 'north', 40],
      [5, day(7), 'south', 50],
      // Outside both spans: before last week began.
      [6, day(15), 'south', 60],
    ];
    await loadDataset(
      s,
      s.demo,
      'sales',
      `id,day,region,amount\n${rows.map((r) => r.join(',')).join('\n')}\n`,
      'id',
      [
        ['id', 'A', 'integer', 'Sale'],
        ['day', 'A', 'date', 'Sale Day'],
        ['region', 'A', 'string', 'Region'],
        ['amount', 'F', 'number', 'Amount'],
      ],
    );
  }, 60_000);

  it('change% with a period compares this period so far with the same days of the last', async () => {
    const period = { date: 'Sale Day', grain: 'week' };
    // 3 against 2: up 50%.
    const up = await alertOf({
      aql: 'SELECT COUNT([sales])',
      condition: { op: 'change%', value: 40, period },
    });
    expect(await runNow(up)).toBe('fired');
    const mail = parseMail(smtp.messages.at(-1)!.raw);
    expect(mail.headers.get('subject')?.replace(/\s+/g, ' ')).toContain(
      `Alert "${up}": 3 changed by more than 40% against the same days of the previous week`,
    );
    expect(mail.body).toContain('(was 2)');
    const hist = await s.api('GET', `/projects/${s.demo}/app/delivery/${up}/history`);
    expect(hist.json.history[0]).toMatchObject({ outcome: 'fired', value: 3 });
    // Not by more than 60%; a measure with its own WHERE keeps it (north: 2 against 1).
    expect(
      await runNow(
        await alertOf({
          aql: 'SELECT COUNT([sales])',
          condition: { op: 'change%', value: 60, period },
        }),
      ),
    ).toBe('clear');
    expect(
      await runNow(
        await alertOf({
          aql: 'SELECT SUM([Amount]) WHERE [Region] = "north"',
          // 30 against 40: down 25%.
          condition: { op: 'change%', value: 20, period },
        }),
      ),
    ).toBe('fired');
    expect(smtp.messages.at(-1)!.raw).toContain('(was 40)');
  });

  it('nodata fires on an empty answer and clears when there is data', async () => {
    const empty = await alertOf({
      aql: 'SELECT SUM([Amount]) WHERE [Region] = "west"',
      condition: { op: 'nodata' },
    });
    expect(await runNow(empty)).toBe('fired');
    expect(
      parseMail(smtp.messages.at(-1)!.raw).headers.get('subject')?.replace(/\s+/g, ' '),
    ).toContain(`Alert "${empty}": no data`);
    expect(await runNow(empty)).toBe('still');
    const r = await s.api('PUT', `/projects/${s.demo}/pmd/obj/${empty}`, {
      body: {
        type: 'alert',
        name: empty,
        def: {
          aql: 'SELECT SUM([Amount]) WHERE [Region] = "south"',
          condition: { op: 'nodata' },
          email: [ADMIN],
        },
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(await runNow(empty)).toBe('cleared');
  });

  it('a condition must be whole, a period on a date the measure can be filtered by (400)', async () => {
    for (const [condition, field] of [
      [{ op: '>' }, 'def.condition.value'],
      [{ op: '>', value: 1, period: { date: 'Sale Day', grain: 'week' } }, 'def.condition.period'],
      [{ op: 'change%', value: 1, period: { date: 'Sale Day', grain: 'fortnight' } }, 'grain'],
      [{ op: 'change%', value: 1, period: { date: 'No Such Day', grain: 'week' } }, 'date'],
    ] as const) {
      const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, {
        body: {
          type: 'alert',
          name: 'Bad',
          def: { aql: 'SELECT COUNT([sales])', condition, email: [ADMIN] },
        },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.text).toContain(field);
    }
  });

  it('its AQL follows a renamed field, as a metric does', async () => {
    const ident = await alertOf({
      aql: 'SELECT SUM([Amount])',
      condition: { op: '>', value: 0 },
    });
    const fact = 'fact.sales.amount';
    const got = await s.api('GET', `/projects/${s.demo}/pmd/obj/${fact}`);
    expect(got.status, got.text).toBe(200);
    const renamed = await s.api('PUT', `/projects/${s.demo}/pmd/obj/${fact}`, {
      body: { ...got.json.object, name: 'Takings' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    const alert = await s.api('GET', `/projects/${s.demo}/pmd/obj/${ident}`);
    expect(alert.json.object.def.aql).toBe('SELECT SUM([Takings])');
    expect(await runNow(ident)).toBe('fired');
    expect(parseMail(smtp.messages.at(-1)!.raw).body).toContain('SELECT SUM([Takings])');
  });
});
