// File-change triggers in a cluster: two engines on one data directory and one PostgreSQL are
// two processes. A file written through a process that runs no triggers (URSA_ROLE=api) must
// fire the trigger on the other, once; a burst of uploads spread over both processes is one
// burst, one firing. (SQLite serves one process only, so there is nothing to share there.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { firingsOf } from '../src/engine/flows/triggers/claims.js';
import { createProject } from './helpers/fixtures.js';
import { sleep } from './helpers/jobs.js';
import { ON_PG, startTestServer, type TestServer, openOtherEngine } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

describe.skipIf(!ON_PG)('file-change triggers across two engines', () => {
  let s: TestServer;
  let other: Engine;
  let p: string;

  const obj = async (body: unknown) => {
    const r = await s.api('POST', `/projects/${p}/pmd/obj`, { body });
    expect(r.status, r.text).toBe(201);
  };
  const watch = async (name: string) => {
    await obj({
      ident: `flow.${name}`,
      type: 'flow',
      name,
      def: {
        boxes: [
          { id: 'src', type: 'input.storage', path: '/in/a.csv' },
          { id: 'out', type: 'output.storage', path: `/out/${name}.csv`, format: 'csv' },
        ],
        edges: [{ from: 'src', to: 'out' }],
      },
    });
    await obj({
      ident: `trigger.${name}`,
      type: 'trigger',
      name,
      def: {
        type: 'flowWebdavFilechange',
        flow: `flow.${name}`,
        path: `/${name}/*.csv`,
        enabled: true,
      },
    });
  };
  const write = (e: Engine, file: string) =>
    rawStorage(e).writeFile(p, file, Buffer.from('id,amount\n1,1\n'), { createParents: true });
  const firings = (name: string) => firingsOf(s.engine.db, p, `trigger.${name}`);
  const firstRun = async (name: string) => {
    const end = Date.now() + 15_000;
    for (;;) {
      const f = (await firings(name)).find((x) => x.jobId);
      if (f) return f;
      if (Date.now() > end) throw new Error(`trigger.${name} never started its flow`);
      await sleep(100);
    }
  };

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEFAULT_PLAN: 'enterprise', URSA_TRIGGER_TICK_MS: '200' });
    p = await createProject(s, 'trigcl', 'Triggers in a cluster');
    await rawStorage(s.engine).writeFile(p, '/in/a.csv', Buffer.from('id,amount\n1,10\n'), {
      createParents: true,
    });
    // Its triggers are not started: an api process.
    other = await openOtherEngine(s);
  });
  afterAll(async () => {
    await other?.close();
    await s?.close();
  });

  it('a file written through a process without triggers fires the trigger once on the other', async () => {
    await watch('apidrop');
    await write(other, '/apidrop/one.csv');
    const f = await firstRun('apidrop');
    expect(f).toMatchObject({ outcome: 'started', slot: expect.stringMatching(/^file:\d{4}-/) });
    expect((await s.engine.jobs.waitFor(f.jobId!, 30_000)).status).toBe('OK');
    await sleep(3000);
    expect(await firings('apidrop')).toHaveLength(1);
  });

  it('a burst of writes spread over both processes is one firing', async () => {
    await other.triggers.start();
    await watch('split');
    for (let i = 0; i < 6; i++) {
      await write(i % 2 ? other : s.engine, `/split/f${i}.csv`);
      await sleep(300);
    }
    const f = await firstRun('split');
    expect(f.outcome).toBe('started');
    expect((await s.engine.jobs.waitFor(f.jobId!, 30_000)).status).toBe('OK');
    await sleep(3000);
    // One firing (no second one, not even a skipped one), for all six changes.
    expect(await firings('split')).toHaveLength(1);
    const r = await s.api('GET', `/projects/${p}/activity?types=flow_trigger&limit=100`);
    const ev = (r.json.activity as Array<{ object: string; detail: { note?: string } }>).filter(
      (e) => e.object === 'trigger.split',
    );
    expect(ev.map((e) => e.detail.note)).toEqual(['6 file change(s) matching "/split/*.csv"']);
  });
});
