// Checks that must hold across processes: two engines on one data directory and one
// PostgreSQL are two processes' worth of connections. Each race sends the same kind of
// write through both at once; what one process refuses, two must refuse too. (SQLite runs
// one transaction at a time in one process, so these races cannot happen there.)
import { eq, sql } from 'drizzle-orm';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tablesOf } from '../src/engine/db/index.js';
import { WriteLocks } from '../src/engine/data/write-lock.js';
import { Engine } from '../src/engine/engine.js';
import { createProject, loadPeople, writePlansFile } from './helpers/fixtures.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { deferred } from './helpers/jobs.js';
import {
  ADMIN,
  invite,
  ON_PG,
  startTestServer,
  type TestServer,
  openOtherEngine,
} from './helpers/server.js';

const ROUNDS = 6;

/** The engine for attempt i: the server's and the other one, taking turns. */
const pick = (engines: Engine[], i: number) => engines[i % engines.length]!;

/** Outcomes of attempts made all at once: how many succeeded, and the kinds of the refusals. */
async function race(attempts: (() => Promise<unknown>)[]) {
  const out = await Promise.allSettled(attempts.map((f) => f()));
  return {
    ok: out.filter((o) => o.status === 'fulfilled').length,
    refused: out
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => (o.reason as { kind?: string }).kind ?? String(o.reason)),
  };
}

describe.skipIf(!ON_PG)('races between two engines on one PostgreSQL', () => {
  let s: TestServer;
  let other: Engine;
  let engines: Engine[];
  const plans = writePlansFile({ projects: 4, users: 1_000, flows: 1_000 });

  beforeAll(async () => {
    s = await startTestServer({ URSA_PLANS_FILE: plans.file });
    other = await openOtherEngine(s, { URSA_PLANS_FILE: plans.file });
    engines = [s.engine, other];
  });
  afterAll(async () => {
    await other?.close();
    await s?.close();
    plans.remove();
  });

  it('the projects plan limit: of six creates at once for the last free place, one lands', async () => {
    const used = await s.engine.projects.countInOrg('default');
    for (let i = used; i < 3; i++) await createProject(s, `fill${i}`, `Fill ${i}`);
    const r = await race(
      Array.from(
        { length: 6 },
        (_, i) => () =>
          pick(engines, i).projects.create(
            { email: ADMIN },
            { id: `race${i}`, label: `Race ${i}`, entity: 'default' },
          ),
      ),
    );
    expect(r).toEqual({ ok: 1, refused: ['limit', 'limit', 'limit', 'limit', 'limit'] });
    expect(await s.engine.projects.countInOrg('default')).toBe(4);
  });

  it('unique titles and idents: of same-titled creates at once, one lands', async () => {
    const p = (await s.engine.projects.list({ email: ADMIN }))[0]!.id;
    await loadPeople(s, p);
    for (let round = 0; round < ROUNDS; round++) {
      const actors = await Promise.all(engines.map((e) => e.actor({ email: ADMIN }, p)));
      const byTitle = await race(
        Array.from(
          { length: 4 },
          (_, i) => () =>
            pick(engines, i).objects.create(actors[i % 2]!, {
              type: 'metric',
              ident: `metric.race_${round}_${i}`,
              name: `Race Count ${round}`,
              def: { aql: 'SELECT COUNT([Person])' },
            }),
        ),
      );
      expect(byTitle, `round ${round}`).toEqual({
        ok: 1,
        refused: ['conflict', 'conflict', 'conflict'],
      });
      const byIdent = await race(
        Array.from(
          { length: 2 },
          (_, i) => () =>
            pick(engines, i).objects.create(actors[i % 2]!, {
              type: 'metric',
              ident: `metric.same_${round}`,
              name: `Same ${round} ${i}`,
              def: { aql: 'SELECT COUNT([Person])' },
            }),
        ),
      );
      expect(byIdent, `round ${round}`).toEqual({ ok: 1, refused: ['conflict'] });
    }
  });

  it('a one-time password link: of two uses at once, one sets the password', async () => {
    const p = (await s.engine.projects.list({ email: ADMIN }))[0]!.id;
    for (let round = 0; round < ROUNDS; round++) {
      const email = `link-${round}@example.com`;
      await invite(s, p, email);
      const link = await s.engine.passwordLinks.invitationSignIn(email);
      if (link.kind !== 'set-password') throw new Error(`no password link: ${link.kind}`);
      const token = new URL(link.url).searchParams.get('token')!;
      const r = await race(
        engines.map((e, i) => () => e.passwordLinks.setPassword(token, `password-${i}-${round}!`)),
      );
      expect(r, `round ${round}`).toEqual({ ok: 1, refused: ['gone'] });
    }
  });

  it('a process that starts leaves alone a flow lock another process is just taking', async () => {
    const p = (await s.engine.projects.list({ email: ADMIN }))[0]!.id;
    const lock = (flow: string, ageMs: number) => ({
      projectId: p,
      flow,
      jobId: '', // start() claims the lock, then submits the job and records its id
      since: new Date(Date.now() - ageMs).toISOString(),
    });
    const { flowLocks } = tablesOf(s.engine.db);
    await s.engine.db
      .insert(flowLocks)
      .values([lock('flow.starting', 0), lock('flow.dead', 120_000)]);
    await other.flows.recover([]);
    const left = await s.engine.db
      .select({ flow: flowLocks.flow })
      .from(flowLocks)
      .where(eq(flowLocks.projectId, p));
    expect(left.map((l) => l.flow)).toEqual(['flow.starting']);
    await s.engine.db.delete(flowLocks).where(eq(flowLocks.projectId, p));
  });

  it("a project's writers take turns in the order they asked, whatever process they run in", async () => {
    const p = (await s.engine.projects.list({ email: ADMIN }))[0]!.id;
    const here = new WriteLocks(s.engine.dbs.store);
    const there = new WriteLocks(other.dbs.store);
    // Writers waiting for the project's turn lock (PostgreSQL queues them).
    const waiting = async () =>
      (
        await s.engine.store.rows<{ n: number }>(
          sql`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        )
      )[0]!.n;
    const order: string[] = [];
    const gate = deferred();
    const writer = (locks: WriteLocks, name: string, signal?: AbortSignal) =>
      locks.with(p, signal, async () => {
        order.push(name);
        if (name === 'A') await gate.promise;
      });
    const a = writer(here, 'A');
    await vi.waitFor(() => expect(order).toEqual(['A']));
    const b = writer(there, 'B');
    await vi.waitFor(async () => expect(await waiting()).toBe(1));
    // One that gives up waiting leaves the queue at once and never writes.
    const giveUp = new AbortController();
    const d = writer(there, 'D', giveUp.signal);
    await vi.waitFor(async () => expect(await waiting()).toBe(2));
    giveUp.abort(new Error('cancelled while waiting'));
    await expect(d).rejects.toThrow('cancelled while waiting');
    await vi.waitFor(async () => expect(await waiting()).toBe(1));
    // C asks after B, in the process that holds the lock now: it still comes after B.
    const c = writer(here, 'C');
    await vi.waitFor(async () => expect(await waiting()).toBe(2));
    gate.resolve();
    await Promise.all([a, b, c]);
    expect(order).toEqual(['A', 'B', 'C']);
  });

  it('the last Admin: two Admins removing each other at once leave one', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const p = (await s.engine.projects.list({ email: ADMIN }))[0]!.id;
      const [a, b] = [`admin-a${round}@example.com`, `admin-b${round}@example.com`];
      await invite(s, p, a, { admin: true });
      await invite(s, p, b, { admin: true });
      // a demotes the bootstrap admin, so a and b are the only Admins.
      const boot = await s.engine.actor({ email: ADMIN }, p);
      const [actA, actB] = [
        await s.engine.actor({ email: a }, p),
        await other.actor({ email: b }, p),
      ];
      await s.engine.members.update(actA, ADMIN, { admin: false });
      const r = await race([
        () => s.engine.members.update(actA, b, { admin: false }),
        () => other.members.update(actB, a, { admin: false }),
      ]);
      expect(r, `round ${round}`).toEqual({ ok: 1, refused: ['conflict'] });
      const admins = (await s.engine.members.list(actA, { limit: 100, offset: 0 })).items
        .filter((m) => m.admin)
        .map((m) => m.id);
      expect(admins.length, `round ${round}`).toBe(1);
      // Back to the start: the remaining Admin restores the bootstrap admin.
      const left = await s.engine.actor({ email: admins[0]! }, p);
      await s.engine.members.update(left, ADMIN, { admin: true });
      await s.engine.members.update(boot, admins[0]!, { admin: false });
    }
  });

  it('a project deleted through one process is closed by the others: no file stays open', async () => {
    const p = (await s.engine.projects.list({ email: ADMIN })).at(-1)!.id;
    await loadPeople(s, p);
    const dir = fs.realpathSync(path.join(s.dataDir, 'projects', p));
    // Files of the project this process (both engines) has open.
    const open = () =>
      fs
        .readdirSync('/proc/self/fd')
        .map((fd) => {
          try {
            return fs.readlinkSync(path.join('/proc/self/fd', fd));
          } catch {
            return ''; // closed meanwhile
          }
        })
        .filter((f) => f.startsWith(dir));
    const theirs = await other.actor({ email: ADMIN }, p);
    expect(await other.aql.run(theirs, 'SELECT COUNT([Person])')).toEqual([['2']]);
    expect(open().length).toBeGreaterThan(0);
    await s.engine.projects.remove(await s.engine.actor({ email: ADMIN }, p));
    await vi.waitFor(() => expect(open()).toEqual([]));
    expect(fs.existsSync(dir)).toBe(false);
  });
});

describe.skipIf(!ON_PG)('chat questions through two engines on one PostgreSQL', () => {
  let s: TestServer;
  let other: Engine;
  let llm: FakeLlm;
  const ai = (url: string) => ({
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${url}/v1`,
    URSA_AI_API_KEY: 'k-test',
    URSA_AI_MODEL: 'gpt-test',
  });

  beforeAll(async () => {
    llm = await startFakeLlm();
    s = await startTestServer(ai(llm.url));
    other = await openOtherEngine(s, ai(llm.url));
  });
  afterAll(async () => {
    await other?.close();
    await s?.close();
    await llm?.close();
  });

  it('a conversation answers one question at a time: of two asked at once, one is refused', async () => {
    const p = await createProject(s, 'chatrace', 'Chat race');
    const engines = [s.engine, other];
    const actors = await Promise.all(engines.map((e) => e.actor({ email: ADMIN }, p)));
    llm.script({ text: 'Hello.' });
    const first = await s.engine.ai.ask(actors[0]!, { question: 'Hi?' });
    await s.engine.jobs.waitFor(first.job.id, 20_000);
    for (let round = 0; round < ROUNDS; round++) {
      llm.script({ text: 'One.', delayMs: 300 }, { text: 'Two.', delayMs: 300 });
      const asked: string[] = [];
      const r = await race(
        engines.map((e, i) => async () => {
          const a = await e.ai.ask(actors[i]!, {
            question: `Question ${round}.${i}`,
            conversation: first.conversation,
          });
          asked.push(a.job.id);
        }),
      );
      expect(r, `round ${round}`).toEqual({ ok: 1, refused: ['conflict'] });
      await s.engine.jobs.waitFor(asked[0]!, 20_000);
    }
    const view = await s.engine.ai.get(actors[0]!, first.conversation);
    expect(view.messages.map((m) => m.status)).toEqual(Array(ROUNDS + 1).fill('OK'));
  });
});
