// PostgreSQL ends a connection Ursa holds (pg_terminate_backend, as a restart or failover
// would): the work on it fails cleanly and the process stays up (issue 30, finding 1). A
// connection checked out of a pool had no 'error' listener: the server's end of it was an
// unhandled 'error' event, which ends the process (here: the test worker). Each test ends a
// real backend found by its application_name, then asks the same server for more work.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storeOf } from '../src/engine/db/store.js';
import { toErrorBody } from '../src/http/errors.js';
import { createProject, waitFor } from './helpers/fixtures.js';
import { deferred } from './helpers/jobs.js';
import { ON_PG, startTestServer, testDatabase, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const PRESCRIPTION = {
  primarykey: 'id',
  columns: [
    { id: 'id', originalheader: 'id', objectType: 'A', dataType: 'integer', label: 'Id' },
    { id: 'n', originalheader: 'n', objectType: 'F', dataType: 'integer', label: 'N' },
  ],
};

describe.skipIf(!ON_PG)('PostgreSQL ends a connection Ursa holds', () => {
  let s: TestServer;
  let p: string;
  /** The test's own session on the metadata database: finds and ends Ursa's backends. */
  let admin: pg.Client;

  beforeAll(async () => {
    s = await startTestServer();
    p = await createProject(s, 'loss', 'Connection loss');
    admin = new pg.Client({ connectionString: testDatabase(s.dataDir).URSA_DATABASE_URL });
    admin.on('error', () => undefined);
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    vi.restoreAllMocks();
    await admin?.end().catch(() => undefined);
    await s?.close();
  });

  /** The pid of the one backend of this database matching `where` (waited for). */
  const backend = (where: string, params: unknown[] = []) =>
    waitFor(async () => {
      const r = await admin.query(
        `SELECT a.pid FROM pg_stat_activity a
          WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND ${where}`,
        params,
      );
      return r.rows.length === 1 ? (r.rows[0].pid as number) : undefined;
    }, 20_000);
  const terminate = async (pid: number) => {
    const r = await admin.query('SELECT pg_terminate_backend($1::int) AS ok', [pid]);
    expect(r.rows[0].ok).toBe(true);
  };
  /** The project's write lock, held (granted) or waited for, on a lock connection. */
  const writeLock = (granted: boolean) =>
    backend(
      `a.application_name = 'ursa-locks' AND EXISTS (SELECT 1 FROM pg_locks l
         WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.granted = $1::boolean)`,
      [granted],
    );

  const startLoad = async (file: string) => {
    const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
      body: {
        type: 'cluster',
        clusters: {
          nums: { source_type: 'webdav', source: file, mode: 'full', prescription: PRESCRIPTION },
        },
      },
    });
    expect(r.status, r.text).toBe(202);
    return r.json.link[0].id as string;
  };
  const rows = async () => {
    const r = await s.api('POST', `/projects/${p}/app/aql/execute`, {
      body: { aql: 'SELECT COUNT([Id]), SUM([N])' },
      headers: { prefer: 'wait=20' },
    });
    expect(r.status, r.text).toBe(200);
    return r.json.data.values as unknown;
  };
  /** The same process answers, and its metadata queries work. */
  const alive = async () => {
    const r = await s.api('GET', `/projects/${p}`);
    expect(r.status, r.text).toBe(200);
  };

  /**
   * Loads gate after taking the project's write lock (advisory lock granted, lease row not
   * yet taken) until `open` resolves.
   */
  const gateLoads = (open: Promise<void>) => {
    const store = s.engine.dbs.store;
    const tryLock = store.tryLock.bind(store);
    return vi.spyOn(store, 'tryLock').mockImplementation(async (...args) => {
      await open;
      return tryLock(...args);
    });
  };

  beforeAll(async () => {
    const put = (name: string, n: number) =>
      rawStorage(s.engine).writeFile(
        p,
        `/${name}.csv`,
        Buffer.from(['id,n', ...Array.from({ length: n }, (_, i) => `${i + 1},${i}`)].join('\n')),
      );
    await put('two', 2);
    await put('five', 5);
    await put('seven', 7);
    const first = await s.engine.jobs.waitFor(await startLoad('/two.csv'));
    expect(first.status, first.message).toBe('OK');
  });

  it('the connection holding the project write lock, during a load: the load ends ERROR, nothing published', async () => {
    const before = await rows();
    const open = deferred();
    const spy = gateLoads(open.promise);
    try {
      const id = await startLoad('/five.csv');
      await terminate(await writeLock(true));
      open.resolve();
      const job = await s.engine.jobs.waitFor(id);
      expect(job.status).toBe('ERROR');
      expect(job.message).toBe(
        `the write lock of project "${p}" was lost (terminating connection due to administrator command); nothing was published`,
      );
    } finally {
      open.resolve();
      spy.mockRestore();
    }
    expect(await rows()).toEqual(before);
    await alive();
    const next = await s.engine.jobs.waitFor(await startLoad('/seven.csv'));
    expect(next.status, next.message).toBe('OK');
    expect(await rows()).not.toEqual(before);
  }, 60_000);

  it('a connection waiting in pg_advisory_lock: that load ends ERROR, the holder finishes', async () => {
    const open = deferred();
    const spy = gateLoads(open.promise);
    try {
      const holder = await startLoad('/five.csv');
      await writeLock(true);
      const waiter = await startLoad('/two.csv');
      await terminate(await writeLock(false));
      const lost = await s.engine.jobs.waitFor(waiter);
      expect(lost.status).toBe('ERROR');
      expect(lost.message).toMatch(/terminating connection due to administrator command/);
      await alive();
      open.resolve();
      const done = await s.engine.jobs.waitFor(holder);
      expect(done.status, done.message).toBe('OK');
    } finally {
      open.resolve();
      spy.mockRestore();
    }
    await alive();
  }, 60_000);

  it('a transaction connection mid-transaction: the transaction fails as unavailable (503), the process goes on', async () => {
    const store = storeOf(s.engine.db);
    const { jobs } = store.tables;
    const inside = deferred();
    const open = deferred();
    const t = store.tx(async () => {
      await s.engine.db.select().from(jobs).limit(1);
      inside.resolve();
      await open.promise;
      await s.engine.db.select().from(jobs).limit(1);
    });
    t.catch(() => undefined);
    await inside.promise;
    await terminate(
      await backend(`a.application_name = 'ursa' AND a.state LIKE 'idle in transaction%'`),
    );
    open.resolve();
    const err = await t.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeNull();
    const answer = toErrorBody(err);
    expect(answer.body.statusCode).toBe(503);
    expect(answer.headers['Retry-After']).toBeDefined();
    await alive();
  }, 60_000);

  it('the LISTEN connection: signals reconnect, and jobs still get done', async () => {
    const old = await backend(`a.application_name = 'ursa-signals'`);
    await terminate(old);
    const job = await s.engine.jobs.waitFor(await startLoad('/two.csv'));
    expect(job.status, job.message).toBe('OK');
    const fresh = await backend(`a.application_name = 'ursa-signals' AND a.pid <> $1::int`, [old]);
    expect(fresh).not.toBe(old);
    await alive();
  }, 60_000);
});
