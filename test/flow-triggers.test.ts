// Triggers (FLOWS.md "Triggers"): timers on cron in a time zone (missed runs caught up once at
// start-up), flowSequence after a flow ends OK, storage changes debounced into one run, SFTP
// polling; every firing claimed once in trigger_firings (several processes on one database
// fire a slot once), recorded as started / skipped / failed and as a flow_trigger event; the
// REST list / toggle / run. Schedules run on an injected clock; the rest over real HTTP.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { openStore, tablesOf } from '../src/engine/db/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/engine.js';
import { forbidden } from '../src/engine/errors.js';
import { claim, firingsOf, hasClaim, readState } from '../src/engine/flows/triggers/claims.js';
import { addChange, dueAt, pathMatches } from '../src/engine/flows/triggers/file-watch.js';
import {
  armedSince,
  dueSlot,
  nextRun,
  previousRun,
} from '../src/engine/flows/triggers/schedule.js';
import { changeSlot, diffListing } from '../src/engine/flows/triggers/sftp-watch.js';
import {
  Triggers,
  type TriggerDeps,
  type TriggerOptions,
  type TriggerView,
} from '../src/engine/flows/triggers/triggers.js';
import type { Job } from '../src/engine/jobs/jobs.js';
import type { RunningServer } from '../src/server.js';
import { createProject, deadPort } from './helpers/fixtures.js';
import { sleep } from './helpers/jobs.js';
import {
  ADMIN,
  invite,
  startOnPort,
  testConfig,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from './helpers/server.js';
import { sftpMissing, startSftp, type TestSftp } from './helpers/sftp-server.js';
import { rawStorage } from './helpers/storage.js';

const MDADMIN = 'trig-md@example.com';
const MEMBER = 'trig-member@example.com';

/** Polls `check` until it returns a truthy value (or fails after `ms`). */
async function until<T>(
  check: () => T | Promise<T>,
  ms = 10_000,
  what = 'condition',
): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** A Triggers service on a running engine, as a second server process would have. */
function triggersOn(
  engine: Engine,
  opts: TriggerOptions & { flows?: TriggerDeps['flows'] } = {},
): Triggers {
  return new Triggers(
    {
      db: engine.db,
      model: engine.model,
      objects: engine.objects,
      jobs: engine.jobs,
      activity: engine.activity,
      storage: rawStorage(engine),
      flows: opts.flows ?? engine.flows,
      actorOf: (email, projectId) => engine.actor({ email }, projectId),
      credentials: async () => null,
      config: engine.config.flows,
      log: engine.log,
    },
    opts,
  );
}

/** Flows that only count their starts (each start records an OK job). */
function countingFlows(engine: Engine, running = new Set<string>()) {
  const starts: Array<{ flow: string; trigger: string; as: string }> = [];
  return {
    starts,
    running,
    flows: {
      start: async (
        a: Parameters<TriggerDeps['flows']['start']>[0],
        flow: string,
        origin: { trigger: string },
      ): Promise<Job> => {
        if (running.has(flow)) throw forbidden(`flow ${flow} is already running`);
        starts.push({ flow, trigger: origin.trigger, as: a.email });
        return engine.jobs.recordFinished(a, 'flow', { id: flow, trigger: origin.trigger }, null);
      },
      isRunning: async (_p: string, flow: string) => running.has(flow),
    },
  };
}

describe('schedules (croner, on a fixed clock)', () => {
  it('finds the previous and next time in the trigger’s time zone (UTC by default)', () => {
    const at = new Date('2026-03-10T12:34:56Z');
    expect(previousRun({ cron: '0 3 * * *' }, at)?.toISOString()).toBe('2026-03-10T03:00:00.000Z');
    expect(nextRun({ cron: '0 3 * * *' }, at)?.toISOString()).toBe('2026-03-11T03:00:00.000Z');
    // Prague is UTC+1 in winter.
    const prague = { cron: '0 3 * * *', timezone: 'Europe/Prague' };
    expect(previousRun(prague, at)?.toISOString()).toBe('2026-03-10T02:00:00.000Z');
    expect(nextRun(prague, at)?.toISOString()).toBe('2026-03-11T02:00:00.000Z');
    // A time exactly on the schedule is due now.
    expect(
      previousRun({ cron: '*/5 * * * *' }, new Date('2026-03-10T12:35:00Z'))?.toISOString(),
    ).toBe('2026-03-10T12:35:00.000Z');
    expect(nextRun({ cron: 'not a cron' }, at)).toBeNull();
  });

  it('owes only the latest slot after the timer was armed: one catch-up, not one per miss', () => {
    const spec = { cron: '0 * * * *' };
    const armed = Date.parse('2026-03-10T08:30:00Z');
    // Down from 08:30 to 12:10: four hourly slots were missed, one (12:00) is owed.
    expect(dueSlot(spec, new Date('2026-03-10T12:10:00Z'), armed)?.toISOString()).toBe(
      '2026-03-10T12:00:00.000Z',
    );
    // Nothing was scheduled since it was armed.
    expect(dueSlot(spec, new Date('2026-03-10T08:59:59Z'), armed)).toBeNull();
  });

  it('counts a timer armed since its schedule last changed or it was last enabled', () => {
    const def = { type: 'flowTimer', flow: 'f', cron: '0 3 * * *', enabled: true };
    const rev = (time: string, d: Record<string, unknown>) => ({ time, def: d });
    const created = '2026-01-01T00:00:00.000Z';
    // Renamed (same def) on the 5th: still armed since creation.
    expect(
      armedSince(def, created, '2026-01-05T00:00:00.000Z', [
        rev('2026-01-05T00:00:00.000Z', def),
        rev(created, def),
      ]),
    ).toBe(Date.parse(created));
    // Disabled on the 3rd, enabled again on the 5th: armed since the 5th.
    expect(
      armedSince(def, created, '2026-01-05T00:00:00.000Z', [
        rev('2026-01-05T00:00:00.000Z', def),
        rev('2026-01-03T00:00:00.000Z', { ...def, enabled: false }),
        rev(created, def),
      ]),
    ).toBe(Date.parse('2026-01-05T00:00:00.000Z'));
    // Rescheduled on the 4th.
    expect(
      armedSince(def, created, '2026-01-04T00:00:00.000Z', [
        rev('2026-01-04T00:00:00.000Z', def),
        rev(created, { ...def, cron: '0 4 * * *' }),
      ]),
    ).toBe(Date.parse('2026-01-04T00:00:00.000Z'));
  });
});

describe('storage changes: globs and the debounce', () => {
  it('matches storage paths against the trigger’s glob', () => {
    expect(pathMatches('/drop/*.csv', '/drop/sales.csv')).toBe(true);
    expect(pathMatches('/drop/*.csv', '/drop/sub/sales.csv')).toBe(false);
    expect(pathMatches('/drop/**/*.csv', '/drop/sub/sales.csv')).toBe(true);
    expect(pathMatches('/drop/*.csv', '/other/sales.csv')).toBe(false);
  });

  it('turns changes within the quiet period into one burst, timed by the first', () => {
    const t = { quietMs: 100, maxWaitMs: 1000 };
    let b = addChange(null, 1000, null);
    b = addChange(b, 1040, { depth: 2, cause: 'j2' });
    b = addChange(b, 1080, { depth: 1, cause: 'j1' });
    expect(b).toEqual({ first: 1000, last: 1080, changes: 3, chain: { depth: 2, cause: 'j2' } });
    expect(dueAt(b, t)).toBe(1180);
    // A steady stream still fires: at most maxWaitMs after the first change.
    for (let now = 1100; now < 3000; now += 50) b = addChange(b, now, null);
    expect(dueAt(b, t)).toBe(2000);
  });
});

describe('SFTP listings', () => {
  it('fires for new and changed files, not for deletions; the same change has one slot', () => {
    const before = {
      '/x/a.csv': [10, 1000] as [number, number],
      '/x/b.csv': [5, 1000] as [number, number],
    };
    const after = {
      '/x/a.csv': [10, 1000] as [number, number],
      '/x/c.csv': [1, 2000] as [number, number],
    };
    expect(diffListing(before, after)).toEqual([
      { path: '/x/c.csv', size: 1, mtime: 2000, was: null },
    ]);
    const touched = { ...after, '/x/a.csv': [10, 3000] as [number, number] };
    expect(diffListing(after, touched)).toEqual([
      { path: '/x/a.csv', size: 10, mtime: 3000, was: [10, 1000] },
    ]);
    expect(diffListing(before, { '/x/a.csv': [10, 1000] })).toEqual([]);
    expect(changeSlot(diffListing(after, touched))).toBe(changeSlot(diffListing(after, touched)));
    expect(changeSlot(diffListing(after, touched))).not.toBe(
      changeSlot(diffListing(before, after)),
    );
  });
});

describe('triggers on a running server', () => {
  let s: TestServer;
  let p: string;
  const extra: Triggers[] = [];

  const obj = async (body: unknown, as = ADMIN) => {
    const r = await s.api('POST', `/projects/${p}/pmd/obj`, { body, as });
    expect(r.status, r.text).toBe(201);
    return r.json.objects[0] as { ident: string; revision: number };
  };
  const flowDef = (out: string, input = '/in/a.csv') => ({
    boxes: [
      { id: 'src', type: 'input.storage', path: input },
      { id: 'out', type: 'output.storage', path: out, format: 'csv' },
    ],
    edges: [{ from: 'src', to: 'out' }],
  });
  const flow = (ident: string, out = `/out/${ident}.csv`, input?: string) =>
    obj({ ident, type: 'flow', name: ident, def: flowDef(out, input) });
  const trigger = (ident: string, def: Record<string, unknown>, extraFields = {}) =>
    obj({ ident, type: 'trigger', name: ident, def, ...extraFields });
  const firings = (ident: string) => firingsOf(s.engine.db, p, ident);
  const list = async (as = ADMIN) => {
    const r = await s.api('GET', `/projects/${p}/inflow/trigger/list`, { as });
    expect(r.status, r.text).toBe(200);
    return r.json.triggers as TriggerView[];
  };
  const activity = async () => {
    const r = await s.api('GET', `/projects/${p}/activity?types=flow_trigger&limit=1000`);
    expect(r.status, r.text).toBe(200);
    return r.json.activity as Array<{
      user: string;
      object: string;
      message: string;
      detail: Record<string, unknown>;
    }>;
  };

  beforeAll(async () => {
    s = await startTestServer({
      URSA_DEFAULT_PLAN: 'enterprise',
      URSA_TRIGGER_TICK_MS: '100',
      URSA_SFTP_POLL_SECONDS: '0.2',
      URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
    });
    p = await createProject(s, 'trig', 'Triggers');
    await invite(s, p, MDADMIN, { mdadmin: true });
    await invite(s, p, MEMBER);
    await rawStorage(s.engine).writeFile(p, '/in/a.csv', Buffer.from('id,amount\n1,10\n2,20\n'), {
      createParents: true,
    });
  });
  afterAll(async () => {
    for (const t of extra) await t.stop();
    await s?.close();
  });

  it('checks trigger defs: cron by croner, an IANA time zone, no flow after itself', async () => {
    await flow('flow.check');
    const bad = async (def: Record<string, unknown>, field: RegExp) => {
      const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
        body: { type: 'trigger', name: 'Bad', def },
      });
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toMatch(field);
    };
    const timer = { type: 'flowTimer', flow: 'flow.check', enabled: true };
    await bad({ ...timer, cron: '61 * * * *' }, /def\.cron: .*minute/);
    await bad({ ...timer, cron: '* * * * * *' }, /def\.cron: must be a five-field/);
    await bad({ ...timer, cron: '0 0 31 2 *' }, /def\.cron: never matches/);
    await bad({ ...timer, cron: '0 3 * * *', timezone: 'Mars/Base' }, /def\.timezone: .*IANA/);
    await bad(
      { type: 'flowSequence', flow: 'flow.check', after: 'flow.check', enabled: true },
      /def\.after/,
    );
    await bad(
      { type: 'flowWebdavFilechange', flow: 'flow.check', path: 'drop/*.csv', enabled: true },
      /def\.path/,
    );
    const ok = await trigger('trigger.check', {
      ...timer,
      cron: '0 3 * * MON-FRI',
      timezone: 'Europe/Prague',
    });
    expect(ok.ident).toBe('trigger.check');
  });

  it('claims a slot once: INSERT OR IGNORE', async () => {
    const t = '2026-01-01T00:00:00.000Z';
    expect(await claim(s.engine.db, p, 'trigger.check', 'unit:1', t)).toBe(true);
    expect(await claim(s.engine.db, p, 'trigger.check', 'unit:1', t)).toBe(false);
    expect(await hasClaim(s.engine.db, p, 'trigger.check', 'unit:1')).toBe(true);
    expect(await hasClaim(s.engine.db, p, 'trigger.check', 'unit:2')).toBe(false);
  });

  it('a timer fires its slot once across two processes on one database, as its last editor', async () => {
    await flow('flow.timed');
    // Due on 1 January at 03:00 UTC: not owed on the real clock while the test runs.
    await trigger(
      'trigger.newyear',
      { type: 'flowTimer', flow: 'flow.timed', cron: '0 3 1 1 *', enabled: true },
      {},
    );
    // Last edited by the MD Admin: the run starts as them.
    const edit = await s.api('PUT', `/projects/${p}/pmd/obj/trigger.newyear`, {
      as: MDADMIN,
      body: {
        name: 'New year',
        def: { type: 'flowTimer', flow: 'flow.timed', cron: '0 3 1 1 *', enabled: true },
      },
    });
    expect(edit.status, edit.text).toBe(200);
    const year = new Date().getUTCFullYear() + 1;
    const clock = () => new Date(`${year}-01-01T03:00:30Z`);
    const counted = countingFlows(s.engine);
    const a = triggersOn(s.engine, { now: clock, flows: counted.flows });
    const b = triggersOn(s.engine, { now: clock, flows: counted.flows });
    extra.push(a, b);
    await a.start();
    await b.start();
    await a.tick();
    await b.tick();
    await until(
      async () => (await firings('trigger.newyear'))[0]?.outcome === 'started',
      5000,
      'the firing',
    );
    await sleep(300);
    // (other timers of the project may be owed on that clock too)
    expect(counted.starts.filter((x) => x.flow === 'flow.timed')).toEqual([
      { flow: 'flow.timed', trigger: 'trigger.newyear', as: MDADMIN },
    ]);
    const f = await firings('trigger.newyear');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ slot: `${year}-01-01T03:00:00.000Z`, outcome: 'started' });
    await a.stop();
    await b.stop();

    const ev = (await activity()).filter((e) => e.object === 'trigger.newyear');
    expect(ev).toHaveLength(1);
    expect(ev[0]).toMatchObject({
      user: MDADMIN,
      detail: {
        trigger: 'trigger.newyear',
        type: 'flowTimer',
        flow: 'flow.timed',
        outcome: 'started',
        jobId: f[0]!.jobId,
        slot: `${year}-01-01T03:00:00.000Z`,
      },
    });
    expect(ev[0]!.message).toMatch(
      /trigger "New year" \(flowTimer\) started flow "flow.timed" \(job /,
    );

    // The list: the run's status, and the next time on the real clock.
    const t = (await list()).find((x) => x.id === 'trigger.newyear')!;
    expect(t).toMatchObject({
      name: 'New year',
      type: 'flowTimer',
      flow: 'flow.timed',
      enabled: true,
      lastRun: { job: f[0]!.jobId, status: 'OK' },
      nextRun: `${year}-01-01T03:00:00.000Z`,
    });
  });

  it('a timer whose flow is running is skipped and recorded; a disabled one never fires', async () => {
    await flow('flow.busy');
    await trigger('trigger.busy', {
      type: 'flowTimer',
      flow: 'flow.busy',
      cron: '0 4 1 1 *',
      enabled: true,
    });
    await trigger('trigger.off', {
      type: 'flowTimer',
      flow: 'flow.busy',
      cron: '0 4 1 1 *',
      enabled: false,
    });
    const year = new Date().getUTCFullYear() + 1;
    const counted = countingFlows(s.engine, new Set(['flow.busy']));
    const t = triggersOn(s.engine, {
      now: () => new Date(`${year}-01-01T04:00:10Z`),
      flows: counted.flows,
    });
    extra.push(t);
    await t.start();
    await until(
      async () => (await firings('trigger.busy'))[0]?.outcome === 'skipped',
      5000,
      'the skip',
    );
    await t.stop();
    expect(counted.starts).toEqual([]);
    expect((await firings('trigger.busy'))[0]).toMatchObject({
      jobId: null,
      message: 'flow "flow.busy" is already running',
    });
    expect(await firings('trigger.off')).toEqual([]);
    const l = await list();
    expect(l.find((x) => x.id === 'trigger.busy')!.lastRun).toMatchObject({
      job: null,
      status: 'SKIPPED',
    });
    expect(l.find((x) => x.id === 'trigger.off')).toMatchObject({
      enabled: false,
      lastRun: null,
      nextRun: null,
    });
    const ev = (await activity()).find((e) => e.object === 'trigger.busy')!;
    expect(ev.detail).toMatchObject({ outcome: 'skipped', flow: 'flow.busy' });
    expect(ev.message).toMatch(/skipped: flow "flow.busy" is already running/);
  });

  // ---- real flows ----

  const waitJob = async (id: string) => s.engine.jobs.waitFor(id, 30_000);
  const started = async (ident: string) =>
    (await firings(ident)).filter((f) => f.outcome === 'started');
  const upload = async (pathName: string, data: string) => {
    const r = await s.api('PUT', `/projects/${p}/webdav${pathName}`, {
      raw: { type: 'text/csv', data },
    });
    expect(r.status, r.text).toBeLessThan(300);
  };
  const mkcol = async (pathName: string) => {
    const r = await s.api('MKCOL', `/projects/${p}/webdav${pathName}`);
    expect(r.status, r.text).toBe(201);
  };
  const readOut = async (pathName: string) =>
    fs.promises.readFile(await rawStorage(s.engine).localFile(p, pathName), 'utf8');

  it('run: fires once now, enabled or not, as the caller: 201 with the run’s scache link', async () => {
    await flow('flow.manual', '/out/manual.csv');
    await trigger('trigger.manual', {
      type: 'flowTimer',
      flow: 'flow.manual',
      cron: '0 5 1 1 *',
      enabled: false,
    });
    const r = await s.api('POST', `/projects/${p}/inflow/trigger/run`, {
      as: MDADMIN,
      body: { id: 'trigger.manual' },
    });
    expect(r.status, r.text).toBe(201);
    const link = r.json.link[0];
    expect(link).toMatchObject({ rel: 'scache', id: expect.any(String) });
    expect(link.href).toContain(`/projects/${p}/kodiak/scache/obj/${link.id}`);
    const job = await waitJob(link.id);
    expect(job.status, job.message).toBe('OK');
    expect(job).toMatchObject({
      createdBy: MDADMIN,
      params: { id: 'flow.manual', trigger: 'trigger.manual' },
    });
    expect(await readOut('/out/manual.csv')).toMatch(/^id,amount/);
    const f = await firings('trigger.manual');
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      outcome: 'started',
      jobId: link.id,
      slot: expect.stringMatching(/^manual:/),
    });
    const t = (await list()).find((x) => x.id === 'trigger.manual')!;
    expect(t).toMatchObject({
      enabled: false,
      nextRun: null,
      lastRun: { job: link.id, status: 'OK' },
    });
    expect(t.lastRun!.time).toBe(f[0]!.time);
    const ev = (await activity()).find((e) => e.object === 'trigger.manual')!;
    expect(ev).toMatchObject({
      user: MDADMIN,
      detail: { outcome: 'started', manual: true, jobId: link.id, flow: 'flow.manual' },
    });

    // Who may, and what.
    const call = (body: unknown, as = MDADMIN) =>
      s.api('POST', `/projects/${p}/inflow/trigger/run`, { as, body });
    expect((await call({ id: 'trigger.manual' }, MEMBER)).status).toBe(403);
    const missing = await call({ id: 'trigger.nope' });
    expect(missing.status).toBe(404);
    expect(missing.json.message).toContain('trigger.nope');
    const notTrigger = await call({ id: 'flow.manual' });
    expect(notTrigger.status).toBe(400);
    expect(notTrigger.json.message).toMatch(/is a flow, not a trigger/);
    const bad = await call({ ident: 'trigger.manual' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/invalid trigger run/),
    });
    expect(await firings('trigger.manual')).toHaveLength(1);
  });

  it('run while the flow is running: 403, recorded as skipped', async () => {
    await flow('flow.held', '/out/held.csv');
    await trigger('trigger.held', {
      type: 'flowTimer',
      flow: 'flow.held',
      cron: '0 5 1 1 *',
      enabled: true,
    });
    // Another process runs it: its lock is in the shared database.
    const db = s.engine.db;
    const { flowLocks } = tablesOf(db);
    try {
      await db.insert(flowLocks).values({
        projectId: p,
        flow: 'flow.held',
        jobId: 'job-of-another-process',
        since: new Date().toISOString(),
      });
      const r = await s.api('POST', `/projects/${p}/inflow/trigger/run`, {
        body: { id: 'trigger.held' },
      });
      expect(r.status, r.text).toBe(403);
      expect(r.json.message).toMatch(/already running/);
      expect(await firings('trigger.held')).toMatchObject([{ outcome: 'skipped', jobId: null }]);
      const t = (await list()).find((x) => x.id === 'trigger.held')!;
      expect(t.lastRun).toMatchObject({ job: null, status: 'SKIPPED' });
      const ev = (await activity()).find((e) => e.object === 'trigger.held')!;
      expect(ev.detail).toMatchObject({ outcome: 'skipped', manual: true });
    } finally {
      await db
        .delete(flowLocks)
        .where(and(eq(flowLocks.projectId, p), eq(flowLocks.flow, 'flow.held')));
    }
  });

  it('toggle: MD Admin, all or nothing, a new revision per changed trigger', async () => {
    await flow('flow.tog');
    const def = { type: 'flowTimer', flow: 'flow.tog', cron: '30 6 * * *', enabled: true };
    const t1 = await trigger('trigger.tog1', def);
    await trigger('trigger.tog2', { ...def, enabled: false });
    const put = (body: unknown, as = MDADMIN) =>
      s.api('PUT', `/projects/${p}/inflow/trigger/toggle`, { as, body });
    const enabledOf = async () =>
      Object.fromEntries(
        (await list()).filter((x) => x.id.startsWith('trigger.tog')).map((x) => [x.id, x.enabled]),
      );

    expect((await put({ disabled: ['trigger.tog1'] }, MEMBER)).status).toBe(403);
    const unknown = await put({
      disabled: ['trigger.tog1', 'trigger.ghost'],
      enabled: ['trigger.ghost2'],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.message).toMatch(
      /trigger\.ghost.*trigger\.ghost2|trigger\.ghost2.*trigger\.ghost/,
    );
    expect(unknown.json.context.ids.sort()).toEqual(['trigger.ghost', 'trigger.ghost2']);
    const notTrigger = await put({ disabled: ['trigger.tog1', 'flow.tog'] });
    expect(notTrigger.status).toBe(400);
    expect(notTrigger.json.message).toMatch(/"flow.tog" is a flow/);
    expect((await put({ enabled: ['trigger.tog1'], disabled: ['trigger.tog1'] })).status).toBe(400);
    expect((await put({ enabled: 'trigger.tog1', extra: 1 })).status).toBe(400);
    expect(await enabledOf()).toEqual({ 'trigger.tog1': true, 'trigger.tog2': false });
    expect((await s.engine.model.get(p, 'trigger.tog1'))!.revision).toBe(t1.revision);

    const r = await put({ disabled: ['trigger.tog1'], enabled: ['trigger.tog2'] });
    expect(r.status, r.text).toBe(200);
    const byId = Object.fromEntries((r.json.triggers as TriggerView[]).map((x) => [x.id, x]));
    expect(byId['trigger.tog1']).toMatchObject({ enabled: false, nextRun: null });
    expect(byId['trigger.tog2']).toMatchObject({
      enabled: true,
      nextRun: expect.stringMatching(/T06:30:00\.000Z$/),
    });
    const row = (await s.engine.model.get(p, 'trigger.tog1'))!;
    expect(row).toMatchObject({ revision: t1.revision + 1, updatedBy: MDADMIN });
    expect(row.def).toEqual({ ...def, enabled: false });
    // Unchanged ones keep their revision.
    const again = await put({ disabled: ['trigger.tog1'] });
    expect(again.status).toBe(200);
    expect((await s.engine.model.get(p, 'trigger.tog1'))!.revision).toBe(t1.revision + 1);
    const hist = await s.api('GET', `/projects/${p}/pmd/obj/trigger.tog1?history=true`);
    expect(hist.status).toBe(200);
  });

  it('list: only the triggers the member may read', async () => {
    await flow('flow.secret');
    await trigger(
      'trigger.secret',
      { type: 'flowTimer', flow: 'flow.secret', cron: '0 1 * * *', enabled: true },
      { acl: [{ userrole: 'finance', acl: 'r----' }] },
    );
    const mine = (await list(MEMBER)).map((x) => x.id);
    expect(mine).toContain('trigger.manual');
    expect(mine).not.toContain('trigger.secret');
    expect((await list()).map((x) => x.id)).toContain('trigger.secret');
    const csv = await s.api('GET', `/projects/${p}/inflow/trigger/list`, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.text.split('\n')[0]).toContain('lastRunStatus');
  });

  it('flowSequence: after the flow ends OK, not after ERROR', async () => {
    await flow('flow.first', '/out/first.csv');
    await flow('flow.then', '/out/then.csv');
    await flow('flow.broken', '/out/broken.csv', '/in/missing.csv');
    await trigger('trigger.seq', {
      type: 'flowSequence',
      flow: 'flow.then',
      after: 'flow.first',
      enabled: true,
    });
    await trigger('trigger.seqbad', {
      type: 'flowSequence',
      flow: 'flow.then',
      after: 'flow.broken',
      enabled: true,
    });
    const exec = async (id: string) => {
      const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
        body: { type: 'flow', id },
      });
      expect(r.status, r.text).toBe(201);
      return waitJob(r.json.link[0].id);
    };
    const first = await exec('flow.first');
    expect(first.status, first.message).toBe('OK');
    const [f] = await until(
      async () => ((await started('trigger.seq')).length ? started('trigger.seq') : null),
      10_000,
      'the sequence',
    );
    expect(f).toMatchObject({ slot: `after:${first.id}` });
    const then = await waitJob(f!.jobId!);
    expect(then.status, then.message).toBe('OK');
    expect(then.params).toMatchObject({ id: 'flow.then', trigger: 'trigger.seq' });
    expect(await readOut('/out/then.csv')).toMatch(/^id,amount/);

    const broken = await exec('flow.broken');
    expect(broken.status).toBe('ERROR');
    await sleep(500);
    expect(await firings('trigger.seqbad')).toEqual([]);
    expect(await firings('trigger.seq')).toHaveLength(1);
  });

  it('flowWebdavFilechange: quick uploads into the glob start one run', async () => {
    await flow('flow.drop', '/out/drop.csv');
    await trigger('trigger.drop', {
      type: 'flowWebdavFilechange',
      flow: 'flow.drop',
      path: '/drop/*.csv',
      enabled: true,
    });
    await mkcol('/drop');
    await upload('/drop/readme.txt', 'not a match');
    await sleep(2500);
    expect(await firings('trigger.drop')).toEqual([]);
    const t0 = Date.now();
    await upload('/drop/one.csv', 'id,amount\n1,1\n');
    await sleep(500);
    await upload('/drop/two.csv', 'id,amount\n2,2\n');
    await sleep(500);
    await upload('/drop/one.csv', 'id,amount\n1,11\n');
    const [f] = await until(
      async () => ((await started('trigger.drop')).length ? started('trigger.drop') : null),
      10_000,
      'the run',
    );
    // Two seconds after the last change, not before.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2900);
    expect(f!.slot).toMatch(/^file:\d{4}-/);
    expect((await waitJob(f!.jobId!)).status).toBe('OK');
    await sleep(2500);
    expect(await firings('trigger.drop')).toHaveLength(1);
    const ev = (await activity()).filter((e) => e.object === 'trigger.drop');
    expect(ev).toHaveLength(1);
    expect(ev[0]!.detail).toMatchObject({
      type: 'flowWebdavFilechange',
      outcome: 'started',
      slot: f!.slot,
    });
  });

  it('a flow writing into its own trigger’s glob runs once per outside change, not forever', async () => {
    await flow('flow.loop', '/loop/result.csv');
    await trigger('trigger.loop', {
      type: 'flowWebdavFilechange',
      flow: 'flow.loop',
      path: '/loop/*.csv',
      enabled: true,
    });
    await mkcol('/loop');
    await upload('/loop/in.csv', 'id,amount\n1,1\n');
    const [f] = await until(
      async () => ((await started('trigger.loop')).length ? started('trigger.loop') : null),
      10_000,
      'the run',
    );
    expect((await waitJob(f!.jobId!)).status).toBe('OK');
    await sleep(3000);
    expect(await started('trigger.loop')).toHaveLength(1);
    // Its own output arrived while it ran: recorded once as skipped.
    expect((await firings('trigger.loop')).filter((x) => x.outcome === 'skipped')).toMatchObject([
      { slot: `file:during:${f!.jobId}` },
    ]);
  });
});

/** An API caller for a server started with startOnPort (restarts on one data directory). */
function apiOf(server: RunningServer) {
  return async (method: string, p: string, body?: unknown): Promise<ApiResponse> => {
    const token = await server.engine.issueToken(ADMIN);
    const res = await fetch(`${server.url}/api/v1${p}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

describe('a timer missed while the server was down', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-triggers-'));
  const env = { URSA_DEFAULT_PLAN: 'enterprise', URSA_TRIGGER_TICK_MS: '100' };
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('fires once at start-up, for the latest missed slot only, and never again', async () => {
    server = await startOnPort(dataDir, 0, env);
    const p = server.bootstrap.demoProjectId!;
    let api = apiOf(server);
    await rawStorage(server.engine).writeFile(p, '/in/a.csv', Buffer.from('id,amount\n1,10\n'), {
      createParents: true,
    });
    const create = async (body: unknown) => {
      const r = await api('POST', `/projects/${p}/pmd/obj`, body);
      expect(r.status, r.text).toBe(201);
    };
    await create({
      ident: 'flow.daily',
      type: 'flow',
      name: 'Daily',
      def: {
        boxes: [
          { id: 'src', type: 'input.storage', path: '/in/a.csv' },
          { id: 'out', type: 'output.storage', path: '/out/daily.csv', format: 'csv' },
        ],
        edges: [{ from: 'src', to: 'out' }],
      },
    });
    const daily = { type: 'flowTimer', flow: 'flow.daily', cron: '0 3 * * *', enabled: true };
    await create({ ident: 'trigger.daily', type: 'trigger', name: 'Daily', def: daily });
    await create({
      ident: 'trigger.dailyoff',
      type: 'trigger',
      name: 'Daily off',
      def: { ...daily, enabled: false },
    });
    await create({ ident: 'trigger.dailynew', type: 'trigger', name: 'Daily new', def: daily });
    await server.close();
    server = undefined;

    // Down for three days: the first two triggers existed all along, the third is new.
    const store = await openStore(testConfig(dataDir));
    const { objects, objectRevisions } = store.tables;
    const before = new Date(Date.now() - 3 * 86_400_000).toISOString();
    for (const ident of ['trigger.daily', 'trigger.dailyoff']) {
      await store.db
        .update(objects)
        .set({ created: before, updated: before })
        .where(eq(objects.ident, ident));
      await store.db
        .update(objectRevisions)
        .set({ time: before })
        .where(eq(objectRevisions.ident, ident));
    }
    await store.close();

    server = await startOnPort(dataDir, 0, env);
    api = apiOf(server);
    const e = server.engine;
    const now = new Date();
    const today3 = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 3);
    const slot = new Date(today3 <= now.getTime() ? today3 : today3 - 86_400_000).toISOString();
    const f = await until(
      async () => (await firingsOf(e.db, p, 'trigger.daily')).find((x) => x.outcome === 'started'),
      10_000,
      'the catch-up',
    );
    expect(f.slot).toBe(slot);
    expect((await e.jobs.waitFor(f.jobId!, 30_000)).status).toBe('OK');
    await sleep(500);
    expect(await firingsOf(e.db, p, 'trigger.daily')).toHaveLength(1);
    expect(await firingsOf(e.db, p, 'trigger.dailyoff')).toEqual([]);
    expect(await firingsOf(e.db, p, 'trigger.dailynew')).toEqual([]);
    const l = await api('GET', `/projects/${p}/inflow/trigger/list`);
    expect(l.json.triggers.find((t: { id: string }) => t.id === 'trigger.daily')).toMatchObject({
      lastRun: { job: f.jobId, status: 'OK', time: f.time },
      nextRun: new Date(Date.parse(slot) + 86_400_000).toISOString(),
    });
    await server.close();
    server = undefined;

    // Started again: the slot is claimed, nothing fires.
    server = await startOnPort(dataDir, 0, env);
    await sleep(500);
    expect(await firingsOf(server.engine.db, p, 'trigger.daily')).toHaveLength(1);
  });
});

const SFTP_MISSING = sftpMissing();
if (SFTP_MISSING && process.env.CI !== 'true')
  console.warn(`SFTP trigger tests skipped: ${SFTP_MISSING}`);

describe.skipIf(SFTP_MISSING !== null && process.env.CI !== 'true')(
  'flowSftpFilechange on a real OpenSSH server',
  () => {
    let srv: TestSftp;
    let s: TestServer;
    let p: string;
    const inbox = () => path.join(srv.root, 'inbox');
    /** Written under another name, then renamed: a poll never sees half a file. */
    const put = (name: string, data: string) => {
      const tmp = path.join(srv.root, `.${name}.tmp`);
      fs.writeFileSync(tmp, data);
      fs.renameSync(tmp, path.join(inbox(), name));
    };
    const firings = (ident: string) => firingsOf(s.engine.db, p, ident);
    const create = async (body: unknown) => {
      const r = await s.api('POST', `/projects/${p}/pmd/obj`, { body });
      expect(r.status, r.text).toBe(201);
    };

    beforeAll(async () => {
      srv = await startSftp();
      fs.mkdirSync(inbox(), { recursive: true });
      fs.writeFileSync(path.join(inbox(), 'old.csv'), 'id\n1\n');
      s = await startTestServer({
        URSA_DEFAULT_PLAN: 'enterprise',
        URSA_TRIGGER_TICK_MS: '100',
        URSA_SFTP_POLL_SECONDS: '0.2',
        URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1',
      });
      p = await createProject(s, 'sftptrig', 'SFTP triggers');
      await rawStorage(s.engine).writeFile(p, '/in/a.csv', Buffer.from('id,amount\n1,10\n'), {
        createParents: true,
      });
      await create({
        ident: 'flow.fetch',
        type: 'flow',
        name: 'Fetch',
        def: {
          boxes: [
            { id: 'src', type: 'input.storage', path: '/in/a.csv' },
            { id: 'out', type: 'output.storage', path: '/out/fetch.csv', format: 'csv' },
          ],
          edges: [{ from: 'src', to: 'out' }],
        },
      });
    });
    afterAll(async () => {
      await s?.close();
      await srv?.stop();
    });

    it('the first poll is the baseline; a new or changed file fires once', async () => {
      await create({
        ident: 'credentials.files',
        type: 'credentials',
        name: 'Files',
        def: { kind: 'sftp', host: srv.host, port: srv.port, user: srv.user, secret: srv.password },
      });
      await create({
        ident: 'trigger.inbox',
        type: 'trigger',
        name: 'Inbox',
        def: {
          type: 'flowSftpFilechange',
          flow: 'flow.fetch',
          path: `${inbox()}/*.csv`,
          credentials: 'credentials.files',
          enabled: true,
        },
      });
      const baseline = await until(
        () =>
          readState<{ key: string; files: Record<string, unknown> }>(
            s.engine.db,
            p,
            'trigger.inbox',
          ),
        10_000,
        'the baseline',
      );
      expect(Object.keys(baseline.files)).toEqual([`${inbox()}/old.csv`]);
      await sleep(600);
      expect(await firings('trigger.inbox')).toEqual([]);

      put('new.csv', 'id\n2\n');
      const first = await until(
        async () => (await firings('trigger.inbox')).find((f) => f.outcome === 'started'),
        10_000,
        'the first firing',
      );
      expect(first.slot).toMatch(/^sftp:/);
      expect((await s.engine.jobs.waitFor(first.jobId!, 30_000)).status).toBe('OK');
      await sleep(600);
      expect(await firings('trigger.inbox')).toHaveLength(1);

      // A changed size fires again; a deleted file does not.
      fs.appendFileSync(path.join(inbox(), 'old.csv'), '3\n');
      // Recorded 'pending' when claimed, then 'started' with its job.
      const second = await until(
        async () => {
          const f = (await firings('trigger.inbox'))[1];
          return f && f.outcome !== 'pending' ? f : undefined;
        },
        10_000,
        'the second firing',
      );
      expect(second.outcome).toBe('started');
      expect((await s.engine.jobs.waitFor(second.jobId!, 30_000)).status).toBe('OK');
      fs.rmSync(path.join(inbox(), 'new.csv'));
      await sleep(800);
      expect(await firings('trigger.inbox')).toHaveLength(2);
      const ev = await s.api('GET', `/projects/${p}/activity?types=flow_trigger`);
      expect(
        ev.json.activity.filter((a: { object: string }) => a.object === 'trigger.inbox'),
      ).toHaveLength(2);
    });

    it('a failing poll is recorded once per distinct error, not every poll', async () => {
      await create({
        ident: 'credentials.nowhere',
        type: 'credentials',
        name: 'Nowhere',
        def: {
          kind: 'sftp',
          host: '127.0.0.1',
          port: await deadPort(),
          user: srv.user,
          secret: srv.password,
        },
      });
      await create({
        ident: 'trigger.nowhere',
        type: 'trigger',
        name: 'Nowhere',
        def: {
          type: 'flowSftpFilechange',
          flow: 'flow.fetch',
          path: '/inbox/*.csv',
          credentials: 'credentials.nowhere',
          enabled: true,
        },
      });
      // The slot is claimed ('pending') and then settled: wait for the outcome.
      const f = await until(
        async () => (await firings('trigger.nowhere')).find((x) => x.outcome !== 'pending'),
        10_000,
        'the failure',
      );
      expect(f).toMatchObject({
        outcome: 'failed',
        jobId: null,
        slot: expect.stringMatching(/^error:/),
      });
      expect(f.message).toMatch(/SFTP poll failed/);
      await sleep(1200); // several polls
      expect(await firings('trigger.nowhere')).toHaveLength(1);
      const l = await s.api('GET', `/projects/${p}/inflow/trigger/list`);
      expect(l.json.triggers.find((t: { id: string }) => t.id === 'trigger.nowhere')).toMatchObject(
        {
          lastRun: {
            job: null,
            status: 'FAILED',
            message: expect.stringMatching(/SFTP poll failed/),
          },
          nextRun: null,
        },
      );
    });
  },
);
