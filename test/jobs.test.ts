// Jobs (scache) end to end: handlers are registered in-process, everything else is observed
// over HTTP at /api/v1/projects/{p}/kodiak/scache/obj[/{id}].
import { openStore } from '../src/engine/db/index.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobFailure, type JobType } from '../src/engine/jobs/jobs.js';
import { jobView } from '../src/rest/routes/jobs.js';
import { startOn, type DirServer } from './helpers/dir-server.js';
import {
  gateOrAbort,
  hasStatus,
  isFinal,
  jobPath,
  jobsPath,
  pollJob,
  Scripts,
  sleep,
  type JobJson,
  type Script,
} from './helpers/jobs.js';
import {
  ADMIN,
  invite,
  ON_PG,
  startTestServer,
  testConfig,
  type TestServer,
} from './helpers/server.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const MEMBER = 'member@example.com';
const OTHER = 'other@example.com';
const MDADMIN = 'md@example.com';

describe('jobs over HTTP (URSA_JOB_CONCURRENCY=1)', () => {
  let s: TestServer;
  const scripts = new Scripts();
  let submitted: string[] = [];

  const api = (...a: Parameters<TestServer['api']>) => s.api(...a);
  const submit = async (
    script: Script,
    opts: { as?: string; project?: string; type?: JobType } = {},
  ): Promise<{ id: string }> => {
    const job = await s.engine.jobs.submit(
      await s.engine.actor({ email: opts.as ?? ADMIN }, opts.project ?? s.demo),
      opts.type ?? 'transform',
      scripts.add(script),
    );
    submitted.push(job.id);
    return { id: job.id };
  };
  const get = async (id: string, as = ADMIN, project = s.demo) => {
    const r = await api('GET', jobPath(project, id), { as });
    expect(r.status, r.text).toBe(200);
    return r.json as JobJson;
  };
  const poll = (id: string, until: (j: JobJson) => boolean, project = s.demo) =>
    pollJob(api, project, id, until);
  /** A job that holds the only runner slot until its gate opens. */
  const blocker = async () => {
    const gate = scripts.gate();
    const job = await submit({ run: (ctx) => gateOrAbort(gate.promise, ctx) });
    await poll(job.id, hasStatus('RUNNING'));
    return { ...job, gate };
  };

  beforeAll(async () => {
    s = await startTestServer({ URSA_JOB_CONCURRENCY: '1' });
    scripts.install(s.engine);
    await invite(s, s.demo, MEMBER);
    await invite(s, s.demo, OTHER);
    await invite(s, s.demo, MDADMIN, { mdadmin: true });
  });
  afterEach(async () => {
    // No test leaves a job behind for the next one: open every gate, wait for the end.
    scripts.releaseAll();
    await Promise.all(submitted.map((id) => s.engine.jobs.waitFor(id, 10_000)));
    submitted = [];
  });
  afterAll(() => s?.close());

  describe('lifecycle', () => {
    it('walks PREPARED → EXPANDING → RUNNING → OK, each status visible over HTTP', async () => {
      const ahead = await blocker();
      const expandGate = scripts.gate();
      const runGate = scripts.gate();
      const job = await submit({
        expand: (ctx) => gateOrAbort(expandGate.promise, ctx),
        run: async (ctx) => {
          ctx.progress({ rows: 10 });
          await gateOrAbort(runGate.promise, ctx);
          return { rows: 10, table: 'sales' };
        },
      });

      const prepared = await get(job.id);
      expect(prepared).toMatchObject({ id: job.id, type: 'transform', status: 'PREPARED' });
      expect(prepared.created).toMatch(ISO);
      expect(prepared).not.toHaveProperty('projectId');
      for (const k of ['started', 'finished', 'progress', 'result', 'message'])
        expect(prepared).not.toHaveProperty(k);
      expect(prepared.link).toContainEqual({
        rel: 'self',
        id: job.id,
        href: `/api/v1${jobPath(s.demo, job.id)}`,
      });

      ahead.gate.resolve();
      const expanding = await poll(job.id, (j) => j.status !== 'PREPARED');
      expect(expanding.status).toBe('EXPANDING');
      expect(expanding.started).toMatch(ISO);
      expect(expanding).not.toHaveProperty('finished');

      expandGate.resolve();
      // The run reports progress just after the job turns RUNNING: wait for both.
      const running = await poll(
        job.id,
        (j) => j.status !== 'EXPANDING' && (j.status !== 'RUNNING' || !!j.progress),
      );
      expect(running.status).toBe('RUNNING');
      expect(running.progress).toEqual({ rows: 10 });
      expect(running).not.toHaveProperty('finished');
      expect(running).not.toHaveProperty('result');

      runGate.resolve();
      const ok = await poll(job.id, isFinal);
      expect(ok).toMatchObject({
        id: job.id,
        status: 'OK',
        progress: { rows: 10 },
        result: { rows: 10, table: 'sales' },
      });
      expect(ok).not.toHaveProperty('message');
      expect(ok).not.toHaveProperty('projectId');
      expect(ok.finished).toMatch(ISO);
      expect(ok.created <= ok.started! && ok.started! <= ok.finished!).toBe(true);
    });

    it('answers a final job the same way every time it is polled', async () => {
      const job = await submit({ run: async () => ({ answer: 42 }) });
      await poll(job.id, isFinal);
      const texts: string[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await api('GET', jobPath(s.demo, job.id));
        expect(r.status).toBe(200);
        texts.push(r.text);
      }
      expect(new Set(texts).size).toBe(1);
      expect(JSON.parse(texts[0]!)).toMatchObject({ status: 'OK', result: { answer: 42 } });
      const yaml = await api('GET', jobPath(s.demo, job.id), { accept: 'text/yaml' });
      expect(yaml.status).toBe(200);
      expect(yaml.text).toContain('status: OK');
      const html = await api('GET', jobPath(s.demo, job.id), { accept: 'text/html' });
      expect(html.status).toBe(200);
    });

    it('ends ERROR with the message of a JobFailure thrown by run', async () => {
      const job = await submit({
        run: async () => {
          throw new JobFailure('bad row 3');
        },
      });
      const done = await poll(job.id, isFinal);
      expect(done).toMatchObject({ status: 'ERROR', message: 'bad row 3' });
      expect(done.finished).toMatch(ISO);
      expect(done).not.toHaveProperty('result');
    });

    it('ends ERROR when expand fails, without running the job', async () => {
      let ran = false;
      const job = await submit({
        expand: async () => {
          throw new JobFailure('no such dataset "x"');
        },
        run: async () => {
          ran = true;
        },
      });
      const done = await poll(job.id, isFinal);
      expect(done).toMatchObject({ status: 'ERROR', message: 'no such dataset "x"' });
      expect(ran).toBe(false);
    });

    it('ends ERROR with a message on an unexpected throw, and nothing answers 500', async () => {
      const job = await submit({
        run: async () => {
          throw new TypeError('boom');
        },
      });
      const done = await poll(job.id, isFinal);
      expect(done.status).toBe('ERROR');
      expect(done.message).toMatch(/boom/);
      for (const accept of ['application/json', 'text/yaml', 'text/html']) {
        const one = await api('GET', jobPath(s.demo, job.id), { accept });
        expect(one.status, accept).toBe(200);
      }
      for (const accept of ['application/json', 'text/csv', 'text/yaml', 'text/html']) {
        const list = await api('GET', `${jobsPath(s.demo)}?status=error`, { accept });
        expect(list.status, accept).toBe(200);
      }
    });

    it('ends ERROR with a message when a handler throws something that is not an Error', async () => {
      const str = await submit({
        run: async () => {
          throw 'disk full';
        },
      });
      const nothing = await submit({ run: () => Promise.reject(undefined) });
      const a = await poll(str.id, isFinal);
      expect(a.status).toBe('ERROR');
      expect(a.message).toMatch(/disk full/);
      const b = await poll(nothing.id, isFinal);
      expect(b.status).toBe('ERROR');
      expect(b.message).toEqual(expect.any(String));
      expect(b.message).not.toBe('');
    });

    it('answers 404 for an unknown job and 401 outside the project', async () => {
      const r = await api('GET', jobPath(s.demo, 'no-such-job'));
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ statusCode: 404, message: expect.any(String) });
      const job = await submit({ run: async () => null });
      await poll(job.id, isFinal);
      expect(
        (await api('GET', jobPath(s.demo, job.id), { as: 'stranger@example.com' })).status,
      ).toBe(401);
      expect((await api('GET', jobPath(s.demo, job.id), { as: null })).status).toBe(401);
    });
  });

  describe('list', () => {
    let p: string;
    const ids = (r: { json: { jobs: JobJson[] } }) => r.json.jobs.map((j) => j.id);
    let j1: string, j2: string, j3: string, j4: string, j5: string;

    beforeAll(async () => {
      const created = await s.api('POST', '/projects', {
        body: { id: 'joblist', label: 'Job list', entity: 'default' },
      });
      expect(created.status, created.text).toBe(201);
      p = created.json.project.id;
      // One job per type; the newest (j5) holds the runner until the first test ends.
      const gate = scripts.gate();
      j1 = (await submit({ run: async () => ({ n: 1 }) }, { project: p, type: 'transform' })).id;
      j2 = (await submit({ run: async () => ({ n: 2 }) }, { project: p, type: 'flow' })).id;
      j3 = (
        await submit(
          {
            run: async () => {
              throw new JobFailure('bad');
            },
          },
          { project: p, type: 'report' },
        )
      ).id;
      j4 = (await submit({ run: async () => ({ n: 4 }) }, { project: p, type: 'ai' })).id;
      j5 = (
        await submit(
          {
            run: async (ctx) => {
              await gateOrAbort(gate.promise, ctx);
              return { n: 5 };
            },
          },
          { project: p, type: 'transform' },
        )
      ).id;
      for (const id of [j1, j2, j3, j4]) await poll(id, isFinal, p);
      await poll(j5, hasStatus('RUNNING'), p);
    });

    it('lists newest first, filters by type and status, and omits results', async () => {
      const all = await api('GET', jobsPath(p));
      expect(all.status).toBe(200);
      expect(ids(all)).toEqual([j5, j4, j3, j2, j1]);
      expect(all.json.paging).toMatchObject({ total: 5, offset: 0 });
      for (const j of all.json.jobs as JobJson[]) {
        expect(j).not.toHaveProperty('result');
        expect(j).not.toHaveProperty('projectId');
        expect(j.link).toContainEqual(
          expect.objectContaining({ rel: 'self', href: `/api/v1${jobPath(p, j.id)}` }),
        );
      }
      expect((await get(j1, ADMIN, p)).result).toEqual({ n: 1 });

      const q = async (query: string) => {
        const r = await api('GET', `${jobsPath(p)}?${query}`);
        expect(r.status, `${query}: ${r.text}`).toBe(200);
        return ids(r);
      };
      expect(await q('type=transform')).toEqual([j5, j1]);
      expect(await q('type=transform,flow')).toEqual([j5, j2, j1]);
      expect(await q('type=')).toEqual([j5, j4, j3, j2, j1]);
      expect(await q('status=OK')).toEqual([j4, j2, j1]);
      expect(await q('status=ok')).toEqual([j4, j2, j1]);
      expect(await q('status=ok,Error')).toEqual([j4, j3, j2, j1]);
      expect(await q('status=running')).toEqual([j5]);
      expect(await q('status=cancelled')).toEqual([]);
      expect(await q('type=transform&status=ok')).toEqual([j1]);
    });

    it('rejects an unknown type or status with 400 listing the allowed values', async () => {
      const t = await api('GET', `${jobsPath(p)}?type=transform,bogus`);
      expect(t.status).toBe(400);
      expect(t.json.message).toContain('bogus');
      expect(t.json.context.allowed).toEqual(['transform', 'flow', 'report', 'ai', 'delivery']);
      const st = await api('GET', `${jobsPath(p)}?status=done`);
      expect(st.status).toBe(400);
      expect(st.json.message).toContain('done');
      expect(st.json.context.allowed).toEqual([
        'PREPARED',
        'EXPANDING',
        'RUNNING',
        'OK',
        'ERROR',
        'CANCELLED',
      ]);
      expect((await api('GET', `${jobsPath(p)}?limit=0`)).status).toBe(400);
    });

    it('pages with limit and offset, and the next link keeps the filters', async () => {
      const page1 = await api('GET', `${jobsPath(p)}?limit=2`);
      expect(ids(page1)).toEqual([j5, j4]);
      expect(page1.json.paging).toMatchObject({ total: 5, limit: 2, offset: 0 });
      expect(page1.json.paging.next).toEqual(expect.any(String));
      const page2 = await api('GET', page1.json.paging.next.replace(/^\/api\/v1/, ''));
      expect(ids(page2)).toEqual([j3, j2]);
      const last = await api('GET', `${jobsPath(p)}?limit=2&offset=4`);
      expect(ids(last)).toEqual([j1]);
      expect(last.json.paging).not.toHaveProperty('next');

      const f1 = await api('GET', `${jobsPath(p)}?type=transform&limit=1`);
      expect(ids(f1)).toEqual([j5]);
      expect(f1.json.paging.total).toBe(2);
      const f2 = await api('GET', f1.json.paging.next.replace(/^\/api\/v1/, ''));
      expect(f2.status).toBe(200);
      expect(ids(f2)).toEqual([j1]);
      expect(f2.json.paging).not.toHaveProperty('next');
    });
  });

  it('shows an ai job that ended without an answer as it is (no 500 between its end and the scrub)', () => {
    const job = {
      id: 'j',
      projectId: 'p',
      type: 'ai' as const,
      status: 'OK' as const,
      params: {},
      result: { n: 4 },
      createdBy: ADMIN,
      created: '2026-11-30T00:00:00.000Z',
    };
    expect(jobView(job)).toMatchObject({ id: 'j', result: { n: 4 } });
  });

  describe('cancellation', () => {
    it('cancels a PREPARED job at once; it never runs and the queue moves on', async () => {
      const ahead = await blocker();
      let ran = false;
      const job = await submit({
        run: async () => {
          ran = true;
        },
      });
      const next = await submit({ run: async () => 'next' });
      expect((await get(job.id)).status).toBe('PREPARED');

      const r = await api('POST', `${jobPath(s.demo, job.id)}/cancel`);
      expect(r.status, r.text).toBe(202);
      expect(r.json).toMatchObject({ id: job.id, status: 'CANCELLED' });
      const now = await get(job.id);
      expect(now.status).toBe('CANCELLED');
      expect(now.message).toEqual(expect.any(String));
      expect(now.finished).toMatch(ISO);
      expect(now).not.toHaveProperty('started');

      ahead.gate.resolve();
      expect((await poll(next.id, isFinal)).status).toBe('OK');
      expect(ran).toBe(false);
      expect((await get(job.id)).status).toBe('CANCELLED');
    });

    it('cancels a RUNNING job whose handler honours ctx.signal', async () => {
      let after = false;
      const job = await submit({
        run: async (ctx) => {
          await gateOrAbort(new Promise(() => {}), ctx);
          after = true;
        },
      });
      await poll(job.id, hasStatus('RUNNING'));
      const r = await api('POST', `${jobPath(s.demo, job.id)}/cancel`);
      expect(r.status, r.text).toBe(202);
      expect(r.json.id).toBe(job.id);
      const done = await poll(job.id, isFinal);
      expect(done.status).toBe('CANCELLED');
      expect(done.message).toEqual(expect.any(String));
      expect(done.finished).toMatch(ISO);
      expect(after).toBe(false);
    });

    it('a handler that finishes its work after the cancel signal ends OK (its work is done)', async () => {
      const gate = scripts.gate();
      const job = await submit({
        // Like a load committing as the cancel comes: the signal is not checked any more.
        run: async () => {
          await gate.promise;
          return { committed: true };
        },
      });
      await poll(job.id, hasStatus('RUNNING'));
      expect((await api('POST', `${jobPath(s.demo, job.id)}/cancel`)).status).toBe(202);
      gate.resolve();
      const done = await poll(job.id, isFinal);
      expect(done.status).toBe('OK');
      expect((await get(job.id)).result).toEqual({ committed: true });
    });

    it('cancels an EXPANDING job without running it', async () => {
      let ran = false;
      const job = await submit({
        expand: (ctx) => gateOrAbort(new Promise(() => {}), ctx),
        run: async () => {
          ran = true;
        },
      });
      await poll(job.id, hasStatus('EXPANDING'));
      expect((await api('POST', `${jobPath(s.demo, job.id)}/cancel`)).status).toBe(202);
      expect((await poll(job.id, isFinal)).status).toBe('CANCELLED');
      expect(ran).toBe(false);
    });

    it('answers 409 for a job that has already finished, whatever its status', async () => {
      const ok = await submit({ run: async () => 1 });
      const failed = await submit({
        run: async () => {
          throw new JobFailure('nope');
        },
      });
      await poll(ok.id, isFinal);
      await poll(failed.id, isFinal);
      const cancelled = await blocker();
      await api('POST', `${jobPath(s.demo, cancelled.id)}/cancel`);
      await poll(cancelled.id, hasStatus('CANCELLED'));
      for (const [id, status] of [
        [ok.id, 'OK'],
        [failed.id, 'ERROR'],
        [cancelled.id, 'CANCELLED'],
      ] as const) {
        const r = await api('POST', `${jobPath(s.demo, id)}/cancel`);
        expect(r.status, r.text).toBe(409);
        expect(r.json).toMatchObject({ statusCode: 409 });
        expect(r.json.message).toContain(status);
        expect((await get(id)).status).toBe(status);
      }
    });

    it("hides someone else's job from a plain member; an MD Admin may see and cancel it", async () => {
      const ahead = await blocker();
      const theirs = await submit({ run: async () => 'x' }, { as: OTHER });
      const mine = await submit({ run: async () => 'y' }, { as: MEMBER });

      // The owner sees it; another plain member does not, not even in lists.
      expect((await get(theirs.id, OTHER)).status).toBe('PREPARED');
      const peek = await api('GET', jobPath(s.demo, theirs.id), { as: MEMBER });
      expect(peek.status).toBe(404);
      const steal = await api('POST', `${jobPath(s.demo, theirs.id)}/cancel`, { as: MEMBER });
      expect(steal.status).toBe(404);
      const memberList = await api('GET', jobsPath(s.demo), { as: MEMBER });
      expect(memberList.status).toBe(200);
      const memberIds = (memberList.json.jobs as JobJson[]).map((j) => j.id);
      expect(memberIds).toContain(mine.id);
      expect(memberIds).not.toContain(theirs.id);
      expect(memberIds).not.toContain(ahead.id);
      expect(memberList.json.paging.total).toBe(memberIds.length);
      expect((await get(theirs.id, OTHER)).status).toBe('PREPARED');

      // A plain member cancels their own job.
      const own = await api('POST', `${jobPath(s.demo, mine.id)}/cancel`, { as: MEMBER });
      expect(own.status).toBe(202);
      expect(own.json.status).toBe('CANCELLED');

      // An MD Admin sees every job and may cancel it.
      expect((await get(theirs.id, MDADMIN)).status).toBe('PREPARED');
      const mdList = await api('GET', jobsPath(s.demo), { as: MDADMIN });
      expect((mdList.json.jobs as JobJson[]).map((j) => j.id)).toContain(theirs.id);
      const r = await api('POST', `${jobPath(s.demo, theirs.id)}/cancel`, { as: MDADMIN });
      expect(r.status, r.text).toBe(202);
      expect((await get(theirs.id, OTHER)).status).toBe('CANCELLED');
      ahead.gate.resolve();
    });
  });

  describe('concurrency', () => {
    it('runs queued jobs in the order they were submitted, even within one millisecond', async () => {
      const b = await blocker();
      const order: number[] = [];
      const a = await s.engine.actor({ email: ADMIN }, s.demo);
      // Submitted back to back, not awaiting each other: most share a millisecond.
      const queued = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          s.engine.jobs.submit(
            a,
            'transform',
            scripts.add({ run: async () => void order.push(i) }),
          ),
        ),
      );
      submitted.push(...queued.map((q) => q.id));
      b.gate.resolve();
      for (const q of queued) await poll(q.id, isFinal);
      expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    });

    it('a job submitted as the slot frees does not run ahead of one queued before it', async () => {
      const b = await blocker();
      const queued = await submit({ run: async () => 'queued' });
      b.gate.resolve();
      // The blocker's end frees the slot; the claim of the queued job is a store round trip
      // after it. A job submitted in between used to take the slot (and this one holds it).
      const a = await s.engine.actor({ email: ADMIN }, s.demo);
      const gate = scripts.gate();
      const script = scripts.add({ run: (ctx) => gateOrAbort(gate.promise, ctx) });
      await s.engine.jobs.waitFor(b.id, 10_000);
      // Submitted in the same turn: the blocker's slot is free, the claim not yet started.
      const late = await s.engine.jobs.submit(a, 'transform', script);
      submitted.push(late.id);
      expect(await poll(queued.id, isFinal)).toMatchObject({ status: 'OK', result: 'queued' });
      await poll(late.id, hasStatus('RUNNING'));
      gate.resolve();
    });

    it('keeps a second job PREPARED until the first finishes', async () => {
      const gate = scripts.gate();
      const first = await submit({
        run: async (ctx) => {
          await gateOrAbort(gate.promise, ctx);
          return 'first';
        },
      });
      const second = await submit({ run: async () => 'second' });
      await poll(first.id, hasStatus('RUNNING'));
      for (let i = 0; i < 5; i++) {
        expect((await get(second.id)).status).toBe('PREPARED');
        await sleep(40);
      }
      gate.resolve();
      const a = await poll(first.id, isFinal);
      const b = await poll(second.id, isFinal);
      expect(a.status).toBe('OK');
      expect(b).toMatchObject({ status: 'OK', result: 'second' });
      expect(b.started! >= a.finished!).toBe(true);
    });
  });
});

describe('jobs across restarts', () => {
  const dirs: string[] = [];
  const servers: DirServer[] = [];
  const freshDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-jobs-restart-'));
    dirs.push(d);
    return d;
  };
  const start = async (dir: string, env: Record<string, string> = {}) => {
    const r = await startOn(dir, env);
    servers.push(r);
    return r;
  };
  const getJob = async (r: DirServer, project: string, id: string) => {
    const res = await r.api('GET', jobPath(project, id));
    expect(res.status, res.text).toBe(200);
    return res.json as JobJson;
  };

  afterAll(async () => {
    for (const r of servers) {
      try {
        await r.close();
      } catch {
        // already stopped (or its DB closed by the test)
      }
    }
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('ends jobs left unfinished by a previous process as ERROR "interrupted by restart"', async () => {
    const dir = freshDir();
    const first = await start(dir);
    const demo = first.bootstrap.demoProjectId!;
    await first.close();

    // What a crashed process leaves behind: unfinished rows in the metadata DB.
    const store = await openStore(testConfig(dir));
    const { jobs } = store.tables;
    const t = '2024-01-01T00:00:00.000Z';
    const row = (
      id: string,
      status: string,
      result: unknown,
      started: string | null,
      finished: string | null,
    ) => ({
      id,
      projectId: demo,
      type: 'transform',
      status,
      params: {},
      result,
      createdBy: ADMIN,
      created: t,
      started,
      finished,
    });
    await store.db
      .insert(jobs)
      .values([
        row('j-running', 'RUNNING', null, t, null),
        row('j-expanding', 'EXPANDING', null, t, null),
        row('j-prepared', 'PREPARED', null, null, null),
        row('j-ok', 'OK', { n: 1 }, t, t),
      ]);
    await store.close();

    const second = await start(dir);
    expect(second.bootstrap.created).toBe(false);
    // A started job died with its process. A job never started is the last process's on
    // SQLite (ended too); on PostgreSQL it is queued work any process of the cluster takes.
    const ended = ON_PG ? ['j-running', 'j-expanding'] : ['j-running', 'j-expanding', 'j-prepared'];
    for (const id of ended) {
      const j = await getJob(second, demo, id);
      expect(j).toMatchObject({ id, status: 'ERROR', message: 'interrupted by restart' });
      expect(j.finished).toMatch(ISO);
    }
    if (ON_PG) {
      const j = await pollJob(second.api, demo, 'j-prepared', isFinal);
      expect(j.message).not.toBe('interrupted by restart');
      expect(j.started).toMatch(ISO);
    }
    expect(await getJob(second, demo, 'j-ok')).toMatchObject({
      status: 'OK',
      result: { n: 1 },
      finished: t,
    });
    expect(
      (await second.api('GET', `${jobsPath(demo)}?status=running,prepared,expanding`)).json.jobs,
    ).toEqual([]);
  });

  it('recovers a job that was RUNNING when the process died', async () => {
    const dir = freshDir();
    const first = await start(dir);
    const demo = first.bootstrap.demoProjectId!;
    first.engine.jobs.register('transform', { run: () => new Promise(() => {}) });
    const job = await first.engine.jobs.submit(
      await first.engine.actor({ email: ADMIN }, demo),
      'transform',
      {},
    );
    await pollJob(first.api, demo, job.id, hasStatus('RUNNING'));

    // A crash: no orderly stop of the runner, the DB connection just goes away.
    first.server.closeAllConnections();
    await new Promise((r) => first.server.close(r));
    await first.engine.store.close();

    const second = await start(dir);
    expect(await getJob(second, demo, job.id)).toMatchObject({
      status: 'ERROR',
      message: 'interrupted by restart',
    });
  });

  it('engine.close() while a job runs ends that job CANCELLED', async () => {
    const dir = freshDir();
    const first = await start(dir, { URSA_JOB_CONCURRENCY: '1' });
    const demo = first.bootstrap.demoProjectId!;
    const scripts = new Scripts();
    scripts.install(first.engine);
    let after = false;
    const actor = await first.engine.actor({ email: ADMIN }, demo);
    const running = await first.engine.jobs.submit(
      actor,
      'transform',
      scripts.add({
        run: async (ctx) => {
          await gateOrAbort(new Promise(() => {}), ctx);
          after = true;
        },
      }),
    );
    const queued = await first.engine.jobs.submit(
      actor,
      'flow',
      scripts.add({ run: async () => 1 }),
    );
    await pollJob(first.api, demo, running.id, hasStatus('RUNNING'));
    expect((await getJob(first, demo, queued.id)).status).toBe('PREPARED');

    const t0 = Date.now();
    await first.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(after).toBe(false);

    const second = await start(dir);
    const j = await getJob(second, demo, running.id);
    expect(j.status).toBe('CANCELLED');
    expect(j.message).toEqual(expect.any(String));
    expect(j.finished).toMatch(ISO);
    if (ON_PG) {
      // On PostgreSQL the queued job outlives the process: the next one runs it.
      const q = await pollJob(second.api, demo, queued.id, isFinal);
      expect(q.started).toMatch(ISO);
      return;
    }
    // The queued job never started: stopping the server cancelled it, saying why.
    const q = await getJob(second, demo, queued.id);
    expect(q).toMatchObject({
      status: 'CANCELLED',
      message: 'server stopping before the job started',
    });
    expect(q).not.toHaveProperty('started');
  });
});
