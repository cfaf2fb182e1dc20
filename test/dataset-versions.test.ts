// Immutable dataset versions (SCALE.md, "Data"): a query answered while a load is held
// mid-way sees the previous whole version, the next one after publication; a failed
// multi-dataset load publishes none and leaves no file; superseded versions are collected
// after the grace period unless a read still uses them; an old-layout data directory
// (`projects/<id>/data.duckdb`) is converted at start-up; a second engine on the same data
// directory answers while the first loads.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openStore } from '../src/engine/db/index.js';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import type { ClusterLoad } from '../src/engine/data/loads.js';
import { WriteLocks } from '../src/engine/data/write-lock.js';
import { createProject, waitFor } from './helpers/fixtures.js';
import { deferred, gateOrAbort, isFinal, pollJob, sleep, type Deferred } from './helpers/jobs.js';
import {
  ADMIN,
  startOnPort,
  startTestServer,
  testConfig,
  type TestServer,
  openOtherEngine,
} from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

/** Dataset `name`'s prescription: columns titled "Id", "Amount" (`sales`) or "Id a", "Amount a" (`a`). */
const prescriptionOf = (name: string) => {
  const suffix = name === 'sales' ? '' : ` ${name}`;
  return {
    clustername: name,
    primarykey: 'id',
    columns: [
      {
        id: 'id',
        originalheader: 'id',
        objectType: 'A',
        dataType: 'integer',
        label: `Id${suffix}`,
      },
      {
        id: 'amount',
        originalheader: 'amount',
        objectType: 'F',
        dataType: 'number',
        label: `Amount${suffix}`,
      },
    ],
  };
};

let s: TestServer;

beforeAll(async () => {
  // A grace period of one second: the collector runs every second.
  s = await startTestServer({ URSA_VERSION_GRACE_SECONDS: '1', URSA_DEFAULT_PLAN: 'enterprise' });
});
/** Gates of held loads, opened after the tests so that a failing one leaves no job held. */
const gates: Deferred[] = [];
afterAll(async () => {
  for (const g of gates) g.resolve();
  await s?.close();
});

async function loadCsv(project: string, files: Record<string, string>) {
  const clusters: Record<string, unknown> = {};
  for (const [name, csv] of Object.entries(files)) {
    await rawStorage(s.engine).writeFile(project, `/${name}.csv`, Buffer.from(csv), {
      createParents: true,
    });
    clusters[name] = {
      source_type: 'webdav',
      source: `/${name}.csv`,
      prescription: prescriptionOf(name),
    };
  }
  const r = await s.api('POST', `/projects/${project}/kodiak/transform/execute`, {
    body: { type: 'cluster', clusters },
  });
  expect(r.status, r.text).toBe(202);
  return pollJob(s.api, project, r.json.link[0].id, isFinal, { timeoutMs: 60_000 });
}

/** The value of a one-cell AQL query over REST (execute, poll the job, GET its data). */
async function aql(project: string, text: string): Promise<string> {
  const r = await s.api('POST', `/projects/${project}/app/aql/execute`, { body: { aql: text } });
  expect(r.status, r.text).toBe(201);
  const data = (r.json.link as { rel: string; href: string; id: string }[]).find(
    (l) => l.rel === 'data.created',
  )!;
  const job = await pollJob(s.api, project, data.id, isFinal);
  expect(job.status, job.message).toBe('OK');
  const d = await s.api('GET', data.href);
  expect(d.status, d.text).toBe(200);
  return d.json.data.values as string;
}

/** The project's version rows in the metadata (the test reads the SQLite file itself). */
async function versionRows(dataDir: string, project: string) {
  const store = await openStore(testConfig(dataDir));
  try {
    return await store.rows<{ id: string; cluster: string; file: string; state: string }>(
      sql`SELECT id, cluster, file, state FROM dataset_versions WHERE project_id = ${project}`,
    );
  } finally {
    await store.close();
  }
}

/** Files under the project's `datasets/` (relative to the project's directory). */
function filesOf(dataDir: string, project: string): string[] {
  const root = path.join(dataDir, 'projects', project, 'datasets');
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => path.relative(path.join(root, '..'), path.join(f.parentPath, f.name)))
    .sort();
}

const current = async (dataDir: string, project: string) =>
  (await versionRows(dataDir, project))
    .filter((v) => v.state === 'current')
    .map((v) => v.file)
    .sort();

/**
 * Starts a load of `sales` (rows `csvRows` as SQL) as a job whose staging stops half-way:
 * its new version file holds part of the rows until `gate` opens.
 */
async function heldLoad(engine: Engine, project: string, rowsSql: string, gate: Deferred) {
  const staged = deferred();
  const prescription = (await engine.datasets.prescriptionOf(project, 'sales'))!;
  const cluster: ClusterLoad = {
    name: 'sales',
    source: '/held.csv',
    mode: 'full',
    prescription,
    remember: false,
    stage: async (c: DuckDBConnection) => {
      await c.run(`CREATE TABLE "ds_sales__staging" AS ${rowsSql} LIMIT 1`);
      staged.resolve();
      await gate.promise;
      await c.run(`INSERT INTO "ds_sales__staging" ${rowsSql} OFFSET 1`);
    },
  };
  // Held as an `ai` job, a type no test here uses otherwise. Its end is awaited on the engine:
  // the AI service scrubs an `ai` job's result that no chat message owns just after it ends,
  // and a REST read in between would render the load's result as an answer (a 500).
  engine.jobs.register('ai', {
    run: async (ctx) => {
      await gateOrAbort(Promise.resolve(), ctx);
      return engine.loads.loadClusters(ctx, ADMIN, [cluster]);
    },
  });
  const job = await engine.jobs.submit(await engine.actor({ email: ADMIN }, project), 'ai', {});
  await staged.promise;
  return job;
}

describe('dataset versions', () => {
  it('a query during a load answers the previous whole version; after publication the new one', async () => {
    const p = await createProject(s, 'held', 'Held');
    expect((await loadCsv(p, { sales: 'id,amount\n1,1\n2,2\n3,3\n' })).status).toBe('OK');
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('6');
    const first = await current(s.dataDir, p);
    expect(first).toEqual([expect.stringMatching(/^datasets\/sales\/[a-z0-9]+\.duckdb$/)]);

    const gate = deferred();
    const job = await heldLoad(
      s.engine,
      p,
      'SELECT * FROM (VALUES (10, 10.0), (20, 20.0)) t(id, amount)',
      gate,
    );
    // Mid-way: a new file is being written beside the current one; queries do not wait.
    expect(filesOf(s.dataDir, p).filter((f) => f.endsWith('.duckdb'))).toHaveLength(2);
    const t0 = Date.now();
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('6');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await current(s.dataDir, p)).toEqual(first);

    gate.resolve();
    const done = await s.engine.jobs.waitFor(job.id, 20_000);
    expect(done.status, done.message).toBe('OK');
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('30');
    const second = await current(s.dataDir, p);
    expect(second).not.toEqual(first);
    expect(fs.existsSync(path.join(s.dataDir, 'projects', p, second[0]!))).toBe(true);
  });

  it('a failing load of several datasets publishes none of them and leaves no file behind', async () => {
    const p = await createProject(s, 'multi', 'Multi');
    expect((await loadCsv(p, { a: 'id,amount\n1,1\n', b: 'id,amount\n1,100\n' })).status).toBe(
      'OK',
    );
    const before = await current(s.dataDir, p);
    expect(before).toHaveLength(2);
    // `a` would load fine; `b` repeats its primary key: the job fails at b's checks.
    const job = await loadCsv(p, { a: 'id,amount\n1,5\n2,5\n', b: 'id,amount\n7,1\n7,2\n' });
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain('not unique');
    expect(await current(s.dataDir, p)).toEqual(before);
    expect((await versionRows(s.dataDir, p)).every((v) => v.state === 'current')).toBe(true);
    expect(filesOf(s.dataDir, p)).toEqual(before);
    expect(await aql(p, 'SELECT SUM([Amount a]), SUM([Amount b])')).toBe('1\t100');
  });

  it('superseded versions are removed after the grace period, except one a read still uses', async () => {
    const p = await createProject(s, 'grace', 'Grace');
    expect((await loadCsv(p, { sales: 'id,amount\n1,1\n' })).status).toBe('OK');
    const v1 = (await current(s.dataDir, p))[0]!;
    // A read that started on v1 and has not finished (a long query).
    const reading = deferred();
    const release = deferred();
    const held = s.engine.dbs.read(p, async (c) => {
      reading.resolve();
      await release.promise;
      return (await c.runAndReadAll('SELECT sum(amount) FROM "ds_sales"')).getRowsJson();
    });
    await reading.promise;
    expect((await loadCsv(p, { sales: 'id,amount\n1,2\n' })).status).toBe('OK');
    const v2 = (await current(s.dataDir, p))[0]!;
    expect((await loadCsv(p, { sales: 'id,amount\n1,3\n' })).status).toBe('OK');
    const v3 = (await current(s.dataDir, p))[0]!;
    const file = (f: string) => path.join(s.dataDir, 'projects', p, f);
    // v2 was never read: gone after the grace period (1 s); v1 is kept while the read runs.
    await waitFor(() => (fs.existsSync(file(v2)) ? undefined : true), 10_000);
    expect(fs.existsSync(file(v1))).toBe(true);
    expect(fs.existsSync(file(v3))).toBe(true);
    await sleep(2500);
    expect(fs.existsSync(file(v1))).toBe(true);
    release.resolve();
    // The read saw the version it started with, whole.
    expect(await held).toEqual([[1]]);
    await waitFor(() => (fs.existsSync(file(v1)) ? undefined : true), 10_000);
    expect(fs.existsSync(file(v3))).toBe(true);
    // The collector removes the file, then its row: wait for the row too.
    await waitFor(async () => {
      const files = (await versionRows(s.dataDir, p)).map((v) => v.file);
      return files.length === 1 ? files : undefined;
    }, 10_000);
    expect((await versionRows(s.dataDir, p)).map((v) => v.file)).toEqual([v3]);
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('3');
  });
});

describe('the project write lock', () => {
  it('has one holder at a time; an expired lease is taken over and its holder cannot publish', async () => {
    const p = await createProject(s, 'lock', 'Lock');
    const store = s.engine.dbs.store;
    expect(await store.tryLock(p, 'proc-a', 200)).toBe(true);
    expect(await store.tryLock(p, 'proc-b', 200)).toBe(false);
    expect(await store.locked(p)).toBe(true);
    await sleep(300);
    // A's lease ran out (its process died): B takes the lock over, and A has lost it.
    expect(await store.tryLock(p, 'proc-b', 60_000)).toBe(true);
    expect(await store.renew(p, 'proc-a', 60_000)).toBe(false);
    expect(await store.tryLock(p, 'proc-a', 60_000)).toBe(false);
    // A load of this project waits for B, then runs.
    const job = loadCsv(p, { sales: 'id,amount\n1,4\n' });
    await sleep(500);
    expect(await current(s.dataDir, p)).toEqual([]);
    await store.unlock(p, 'proc-b');
    expect((await job).status).toBe('OK');
    expect(await store.locked(p)).toBe(false);
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('4');
  });

  it('a writer cancelled while it waits for its turn stops waiting and writes nothing', async () => {
    const p = await createProject(s, 'giveup', 'Give up');
    const locks = new WriteLocks(s.engine.dbs.store);
    const ran: string[] = [];
    const gate = deferred();
    const first = locks.with(p, undefined, async () => {
      ran.push('first');
      await gate.promise;
    });
    await waitFor(async () => (ran.length === 1 ? true : undefined));
    const giveUp = new AbortController();
    const waiting = locks.with(p, giveUp.signal, async () => {
      ran.push('cancelled');
    });
    const next = locks.with(p, undefined, async () => {
      ran.push('next');
    });
    await sleep(50);
    giveUp.abort(new Error('cancelled while waiting'));
    await expect(waiting).rejects.toThrow('cancelled while waiting');
    expect(ran).toEqual(['first']); // still held: the cancelled one did not wait it out
    gate.resolve();
    await Promise.all([first, next]);
    expect(ran).toEqual(['first', 'next']);
  });

  it('a writer whose lease was taken over publishes nothing', async () => {
    const p = await createProject(s, 'lost', 'Lost');
    const locks = new WriteLocks(s.engine.dbs.store, 150);
    const published = locks.with(p, undefined, async (confirm) => {
      // Stalled past its lease, without the heartbeat (the process was frozen).
      await s.engine.dbs.store.unlock(p, 'nobody');
      await sleep(0);
      return confirm();
    });
    await expect(published).resolves.toBeUndefined();
    const lost = locks.with(p, undefined, async (confirm) => {
      const holder = (await s.engine.dbs.store.lockHolders()).find((l) => l.projectId === p)!;
      // Another process takes the lock over once the lease has run out.
      await s.engine.dbs.store.unlock(p, holder.holder);
      expect(await s.engine.dbs.store.tryLock(p, 'other-process', 60_000)).toBe(true);
      return confirm();
    });
    await expect(lost).rejects.toThrow(/write lock .* was lost; nothing was published/);
    await s.engine.dbs.store.unlock(p, 'other-process');
  });

  it('deleting a project removes its versions', async () => {
    const p = await createProject(s, 'gone', 'Gone');
    expect((await loadCsv(p, { sales: 'id,amount\n1,1\n' })).status).toBe('OK');
    expect(await aql(p, 'SELECT SUM([Amount])')).toBe('1');
    expect(await versionRows(s.dataDir, p)).toHaveLength(1);
    const r = await s.api('DELETE', `/projects/${p}`);
    expect(r.status, r.text).toBeLessThan(300);
    expect(await versionRows(s.dataDir, p)).toEqual([]);
    expect(fs.existsSync(path.join(s.dataDir, 'projects', p))).toBe(false);
  });
});

describe('an old-layout data directory', () => {
  it('is converted into dataset versions at start-up, once', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-versions-'));
    try {
      let srv = await startOnPort(dataDir, 0);
      const p = (
        await srv.engine.projects.create(
          { email: ADMIN },
          { id: 'legacy', label: 'Legacy', entity: 'default' },
        )
      ).id;
      await srv.close();
      // The earlier layout: a project's rows in data.duckdb (with a staging table an
      // interrupted load left), and an unpublished file of a conversion killed half-way.
      const dir = path.join(dataDir, 'projects', p);
      const old = await DuckDBInstance.create(path.join(dir, 'data.duckdb'));
      const c = await old.connect();
      await c.run(
        'CREATE TABLE "ds_sales" AS SELECT * FROM (VALUES (1::BIGINT, 40.0::DOUBLE), (2, 2.0)) t(id, amount)',
      );
      await c.run('CREATE TABLE "ds_sales__staging" AS SELECT 9::BIGINT AS id, 9.0 AS amount');
      c.closeSync();
      old.closeSync();
      fs.mkdirSync(path.join(dir, 'datasets', 'sales'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'datasets', 'sales', 'killed.duckdb'), 'partial');

      srv = await startOnPort(dataDir, 0);
      try {
        expect(fs.existsSync(path.join(dir, 'data.duckdb'))).toBe(false);
        const files = await current(dataDir, p);
        expect(files).toEqual([expect.stringMatching(/^datasets\/sales\/[a-z0-9]+\.duckdb$/)]);
        expect(filesOf(dataDir, p)).toEqual(files);
        const read = () =>
          srv.engine.dbs.read(p, async (x) =>
            (await x.runAndReadAll('SELECT sum(amount), count(*) FROM "ds_sales"')).getRowsJson(),
          );
        expect(await read()).toEqual([[42, '2']]);
      } finally {
        await srv.close();
      }
      // Once: a second start finds nothing to convert and the same version.
      const files = await current(dataDir, p);
      srv = await startOnPort(dataDir, 0);
      try {
        expect(await current(dataDir, p)).toEqual(files);
        expect(filesOf(dataDir, p)).toEqual(files);
      } finally {
        await srv.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('two engines on one data directory', () => {
  it('both answer queries while one of them loads', async () => {
    const p = await createProject(s, 'twoeng', 'Two engines');
    expect((await loadCsv(p, { sales: 'id,amount\n1,1\n2,2\n' })).status).toBe('OK');
    const other = await openOtherEngine(s);
    try {
      const sumOther = async () =>
        other.aql.run(await other.actor({ email: ADMIN }, p), 'SELECT SUM([Amount])');
      expect(await sumOther()).toEqual([['3']]);
      // The server's engine loads (held mid-way); the other engine and the server answer.
      const gate = deferred();
      gates.push(gate);
      const job = await heldLoad(
        s.engine,
        p,
        'SELECT * FROM (VALUES (5, 50.0), (6, 60.0)) t(id, amount)',
        gate,
      );
      expect(await sumOther()).toEqual([['3']]);
      expect(await aql(p, 'SELECT SUM([Amount])')).toBe('3');
      gate.resolve();
      expect((await s.engine.jobs.waitFor(job.id, 20_000)).status).toBe('OK');
      expect(await sumOther()).toEqual([['110']]);
      // And the other engine loads while the server answers.
      const gate2 = deferred();
      gates.push(gate2);
      const job2 = await heldLoad(other, p, 'SELECT * FROM (VALUES (7, 7.0)) t(id, amount)', gate2);
      expect(await aql(p, 'SELECT SUM([Amount])')).toBe('110');
      gate2.resolve();
      expect((await other.jobs.waitFor(job2.id, 20_000)).status).toBe('OK');
      expect(await aql(p, 'SELECT SUM([Amount])')).toBe('7');
    } finally {
      await other.close();
    }
  });
});
