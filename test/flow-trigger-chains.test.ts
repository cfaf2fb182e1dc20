// Chains of runs (FLOWS.md "Triggers", docs/flows.md "Chains"): a cycle of flowSequence
// triggers is refused on save (400 naming it in run order); runs started by other runs carry
// their depth in their job, through flowSequence and through files a run writes; a chain
// deeper than URSA_TRIGGER_CHAIN_DEPTH, or more chained runs of a flow a minute than
// URSA_TRIGGER_CHAIN_PER_MINUTE, pauses the trigger that would extend it (enabled: false with
// `paused` on trigger/list, a flow_trigger event) until trigger/toggle enables it again.
// Small limits (3 deep, 4 a minute) keep it fast; everything over real HTTP.
import { and, eq } from 'drizzle-orm';
import { sqlOf, tablesOf } from '../src/engine/db/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firingsOf } from '../src/engine/flows/triggers/claims.js';
import type { TriggerView } from '../src/engine/flows/triggers/triggers.js';
import { createProject, waitFor } from './helpers/fixtures.js';
import { sleep } from './helpers/jobs.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

let s: TestServer;
let p: string;

beforeAll(async () => {
  s = await startTestServer({
    URSA_DEFAULT_PLAN: 'enterprise',
    URSA_TRIGGER_TICK_MS: '100',
    URSA_TRIGGER_CHAIN_DEPTH: '3',
    URSA_TRIGGER_CHAIN_PER_MINUTE: '4',
  });
  p = await createProject(s, 'chains', 'Chains');
  await rawStorage(s.engine).writeFile(p, '/in/a.csv', Buffer.from('id,amount\n1,10\n'), {
    createParents: true,
  });
});
afterAll(async () => {
  await s?.close();
});

const post = (body: unknown) => s.api('POST', `/projects/${p}/pmd/obj`, { body });
const created = async (body: unknown) => {
  const r = await post(body);
  expect(r.status, r.text).toBe(201);
};
/** A flow copying `input` to the storage file `out`. */
const flow = (ident: string, out: string, input = '/in/a.csv') =>
  created({
    ident,
    type: 'flow',
    name: ident,
    def: {
      boxes: [
        { id: 'src', type: 'input.storage', path: input },
        { id: 'out', type: 'output.storage', path: out, format: 'csv' },
      ],
      edges: [{ from: 'src', to: 'out' }],
    },
  });
const sequence = (flowId: string, after: string, enabled = true) => ({
  type: 'flowSequence',
  flow: flowId,
  after,
  enabled,
});
const trigger = (ident: string, def: Record<string, unknown>) =>
  created({ ident, type: 'trigger', name: ident, def });
const firings = (ident: string) => firingsOf(s.engine.db, p, ident);
const started = async (ident: string) =>
  (await firings(ident)).filter((f) => f.outcome === 'started');
const listed = async (id: string) => {
  const r = await s.api('GET', `/projects/${p}/inflow/trigger/list`);
  expect(r.status, r.text).toBe(200);
  return (r.json.triggers as TriggerView[]).find((t) => t.id === id)!;
};
const events = async (id: string) => {
  const r = await s.api('GET', `/projects/${p}/activity?types=flow_trigger&limit=1000`);
  expect(r.status, r.text).toBe(200);
  return (
    r.json.activity as Array<{ object: string; message: string; detail: Record<string, unknown> }>
  )
    .filter((e) => e.object === id)
    .reverse();
};
const toggle = (body: unknown) => s.api('PUT', `/projects/${p}/inflow/trigger/toggle`, { body });
const execute = async (id: string) => {
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'flow', id },
  });
  expect(r.status, r.text).toBe(201);
  return s.engine.jobs.waitFor(r.json.link[0].id, 30_000);
};
/** The depths of a flow's runs, in order. */
const depths = async (flowId: string) => {
  const { jobs } = tablesOf(s.engine.db);
  const { jsonNumber, jsonText } = sqlOf(s.engine.db);
  return (
    await s.engine.db
      .select({ d: jsonNumber(jobs.params, 'depth') })
      .from(jobs)
      .where(
        and(eq(jobs.projectId, p), eq(jobs.type, 'flow'), eq(jsonText(jobs.params, 'id'), flowId)),
      )
      .orderBy(jobs.created)
  ).map((r) => Number(r.d ?? 0));
};

describe('a cycle of flowSequence triggers is refused on save', () => {
  beforeAll(async () => {
    for (const f of ['flow.a', 'flow.b', 'flow.c']) await flow(f, `/out/${f}.csv`);
  });

  it('two flows after each other: 400 naming the cycle in run order; nothing saved', async () => {
    await trigger('trigger.a_after_b', sequence('flow.a', 'flow.b'));
    const r = await post({
      ident: 'trigger.b_after_a',
      type: 'trigger',
      name: 'x',
      def: sequence('flow.b', 'flow.a'),
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json).toMatchObject({
      statusCode: 400,
      context: { field: 'def.after', cycle: ['flow.a', 'flow.b', 'flow.a'] },
    });
    expect(r.json.message).toContain('flow.a → flow.b → flow.a');
    expect(await s.engine.model.get(p, 'trigger.b_after_a')).toBeUndefined();
  });

  it('through three flows, by a change (PUT); a disabled trigger counts too', async () => {
    await trigger('trigger.c_after_a', sequence('flow.c', 'flow.a', false));
    const timer = { type: 'flowTimer', flow: 'flow.b', cron: '0 3 * * *', enabled: false };
    await trigger('trigger.b_after_c', timer);
    const before = (await s.engine.model.get(p, 'trigger.b_after_c'))!;
    // flow.a after flow.b, flow.c after flow.a; flow.b after flow.c closes the cycle.
    const r = await s.api('PUT', `/projects/${p}/pmd/obj/trigger.b_after_c`, {
      body: { name: 'x', def: sequence('flow.b', 'flow.c') },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toContain('flow.c → flow.b → flow.a → flow.c');
    expect(await s.engine.model.get(p, 'trigger.b_after_c')).toMatchObject({
      revision: before.revision,
      def: timer,
    });
  });

  it('a flow after itself, and a batch closing a cycle: 400, nothing created', async () => {
    const self = await post({ type: 'trigger', name: 'Self', def: sequence('flow.a', 'flow.a') });
    expect(self.status, self.text).toBe(400);
    expect(self.json.message).toContain('flow.a → flow.a');
    await flow('flow.d', '/out/flow.d.csv');
    await flow('flow.e', '/out/flow.e.csv');
    const batch = await post([
      { ident: 'trigger.d_after_e', type: 'trigger', name: 'd', def: sequence('flow.d', 'flow.e') },
      { ident: 'trigger.e_after_d', type: 'trigger', name: 'e', def: sequence('flow.e', 'flow.d') },
    ]);
    expect(batch.status, batch.text).toBe(400);
    expect(batch.json.message).toMatch(/flow\.(d|e) → flow\.(e|d) → flow\.\1/);
    expect(await s.engine.model.get(p, 'trigger.d_after_e')).toBeUndefined();
    // A chain that does not come back is fine.
    await trigger('trigger.d_after_e', sequence('flow.d', 'flow.e'));
  });
});

describe('runs started by other runs are capped: the trigger is paused', () => {
  it('a flowSequence cycle saved before cycles were refused stops at the depth limit', async () => {
    await flow('flow.p', '/out/p.csv');
    await flow('flow.q', '/out/q.csv');
    // Written past the model API, as a cycle saved by an earlier version stays in a project.
    await s.engine.model.upsert(
      p,
      [
        {
          ident: 'trigger.p_after_q',
          type: 'trigger',
          name: 'P after Q',
          def: sequence('flow.p', 'flow.q'),
        },
        {
          ident: 'trigger.q_after_p',
          type: 'trigger',
          name: 'Q after P',
          def: sequence('flow.q', 'flow.p'),
        },
      ],
      ADMIN,
    );
    const first = await execute('flow.p');
    expect(first.status, first.message).toBe('OK');
    const paused = await waitFor(
      async () => (await firings('trigger.p_after_q')).find((f) => f.outcome === 'paused'),
      30_000,
    );
    await sleep(1000);
    // P (0) → Q (1) → P (2) → Q (3): three runs caused by others, then no fourth.
    expect(await depths('flow.p')).toEqual([0, 2]);
    expect(await depths('flow.q')).toEqual([1, 3]);
    const q1 = (await s.engine.jobs.peek((await started('trigger.q_after_p'))[0]!.jobId!))!;
    expect(q1.params).toMatchObject({
      id: 'flow.q',
      trigger: 'trigger.q_after_p',
      depth: 1,
      cause: first.id,
    });
    const q3 = (await started('trigger.q_after_p'))[1]!.jobId!;
    expect(paused.message).toMatch(/at most 3 in a row \(URSA_TRIGGER_CHAIN_DEPTH\)/);

    const t = await listed('trigger.p_after_q');
    expect(t).toMatchObject({
      enabled: false,
      paused: { message: paused.message, time: expect.any(String) },
      lastRun: { job: null, status: 'PAUSED', message: paused.message },
    });
    expect(await listed('trigger.q_after_p')).toMatchObject({ enabled: true, paused: null });
    const ev = (await events('trigger.p_after_q')).at(-1)!;
    expect(ev.detail).toMatchObject({ outcome: 'paused', flow: 'flow.p', depth: 4, cause: q3 });
    expect(ev.message).toMatch(/paused, flow "flow.p" not started/);

    // Enabling it again would close the cycle: 400 naming it, and it stays paused.
    const again = await toggle({ enabled: ['trigger.p_after_q'] });
    expect(again.status, again.text).toBe(400);
    expect(again.json.message).toContain('flow.q → flow.p → flow.q');
    expect((await listed('trigger.p_after_q')).paused).not.toBeNull();
  });

  it('two file-change triggers feeding each other stop at the depth limit; toggle lifts the pause', async () => {
    // flow.f1 writes into /loop2 (flow.f2's glob), flow.f2 into /loop1 (flow.f1's).
    await flow('flow.f1', '/loop2/from-f1.csv');
    await flow('flow.f2', '/loop1/from-f2.csv');
    await trigger('trigger.f1', {
      type: 'flowWebdavFilechange',
      flow: 'flow.f1',
      path: '/loop1/*.csv',
      enabled: true,
    });
    await trigger('trigger.f2', {
      type: 'flowWebdavFilechange',
      flow: 'flow.f2',
      path: '/loop2/*.csv',
      enabled: true,
    });
    for (const dir of ['/loop1', '/loop2'])
      expect((await s.api('MKCOL', `/projects/${p}/webdav${dir}`)).status).toBe(201);
    const put = await s.api('PUT', `/projects/${p}/webdav/loop1/start.csv`, {
      raw: { type: 'text/csv', data: 'id,amount\n1,1\n' },
    });
    expect(put.status, put.text).toBe(201);
    const paused = await waitFor(
      async () => (await firings('trigger.f1')).find((f) => f.outcome === 'paused'),
      40_000,
    );
    await sleep(2500);
    // The upload starts f1 (0); each output fires the other: f2 (1), f1 (2), f2 (3), then none.
    expect(await depths('flow.f1')).toEqual([0, 2]);
    expect(await depths('flow.f2')).toEqual([1, 3]);
    expect(paused.message).toMatch(/at most 3 in a row/);
    expect(await listed('trigger.f1')).toMatchObject({
      enabled: false,
      paused: { message: paused.message },
      lastRun: { status: 'PAUSED' },
    });
    const ev = (await events('trigger.f1')).at(-1)!;
    expect(ev.detail).toMatchObject({ outcome: 'paused', type: 'flowWebdavFilechange', depth: 4 });

    // Enabled again (f2 disabled, so no new loop): the pause is gone and it fires again.
    const r = await toggle({ enabled: ['trigger.f1'], disabled: ['trigger.f2'] });
    expect(r.status, r.text).toBe(200);
    const t1 = (r.json.triggers as TriggerView[]).find((t) => t.id === 'trigger.f1')!;
    expect(t1).toMatchObject({ enabled: true, paused: null });
    expect((await events('trigger.f1')).at(-1)).toMatchObject({
      detail: { outcome: 'resumed', reason: paused.message },
    });
    // Its def never changed: enabled all along, the pause was beside it.
    expect((await s.engine.model.get(p, 'trigger.f1'))!.revision).toBe(1);
    await s.api('PUT', `/projects/${p}/webdav/loop1/again.csv`, {
      raw: { type: 'text/csv', data: 'id,amount\n2,2\n' },
    });
    await waitFor(
      async () => ((await started('trigger.f1')).length === 3 ? true : undefined),
      15_000,
    );
    expect((await depths('flow.f1')).at(-1)).toBe(0);
  });

  it('more chained runs of one flow a minute than the rate: paused at the one too many', async () => {
    await flow('flow.src', '/out/src.csv');
    await flow('flow.next', '/out/next.csv');
    await trigger('trigger.next', sequence('flow.next', 'flow.src'));
    for (let i = 1; i <= 4; i++) {
      expect((await execute('flow.src')).status).toBe('OK');
      const f = await waitFor(async () => (await started('trigger.next'))[i - 1], 10_000);
      expect((await s.engine.jobs.waitFor(f.jobId!, 30_000)).status).toBe('OK');
    }
    expect(await depths('flow.next')).toEqual([1, 1, 1, 1]);
    expect((await execute('flow.src')).status).toBe('OK');
    const paused = await waitFor(
      async () => (await firings('trigger.next')).find((f) => f.outcome === 'paused'),
      10_000,
    );
    expect(paused.message).toMatch(
      /flow "flow.next" was started 4 times in the last minute by other runs; at most 4 \(URSA_TRIGGER_CHAIN_PER_MINUTE\)/,
    );
    await sleep(500);
    expect(await depths('flow.next')).toHaveLength(4);
    expect(await listed('trigger.next')).toMatchObject({
      enabled: false,
      paused: { message: paused.message },
    });
    // Paused, it does not fire at all, not even to be recorded.
    expect((await execute('flow.src')).status).toBe('OK');
    await sleep(500);
    expect(await firings('trigger.next')).toHaveLength(5);
    // A person may still run it by hand.
    const manual = await s.api('POST', `/projects/${p}/inflow/trigger/run`, {
      body: { id: 'trigger.next' },
    });
    expect(manual.status, manual.text).toBe(201);
    expect((await s.engine.jobs.waitFor(manual.json.link[0].id, 30_000)).status).toBe('OK');
  });

  it('two triggers of one flow firing at once at the rate: one run starts, the other pauses', async () => {
    // Counting the last minute's runs and starting one is one step across the cluster
    // (store.exclusive): the second firing counts the first's run instead of both starting.
    await flow('flow.a2', '/out/a2.csv');
    await flow('flow.b2', '/out/b2.csv');
    await trigger('trigger.b2x', sequence('flow.b2', 'flow.a2'));
    for (let i = 1; i <= 3; i++) {
      expect((await execute('flow.a2')).status).toBe('OK');
      const f = await waitFor(async () => (await started('trigger.b2x'))[i - 1], 10_000);
      expect((await s.engine.jobs.waitFor(f.jobId!, 30_000)).status).toBe('OK');
    }
    await trigger('trigger.b2y', sequence('flow.b2', 'flow.a2'));
    expect((await execute('flow.a2')).status).toBe('OK');
    const outcomes = await waitFor(async () => {
      const x = await firings('trigger.b2x');
      const y = await firings('trigger.b2y');
      const both = x.length === 4 && y.length === 1 ? [x[3]!, y[0]!] : [];
      return both.length && both.every((f) => f.outcome !== 'pending') ? both : undefined;
    }, 10_000);
    expect(outcomes.map((f) => f.outcome).sort()).toEqual(['paused', 'started']);
    expect(outcomes.find((f) => f.outcome === 'paused')!.message).toMatch(
      /flow "flow.b2" was started 4 times in the last minute by other runs/,
    );
    await sleep(500);
    expect(await depths('flow.b2')).toHaveLength(4);
  });
});
