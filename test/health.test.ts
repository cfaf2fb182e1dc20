// Health probes for load balancers, over real HTTP: /healthz says the process is up (also
// while it starts, without touching the database), /readyz that it can serve: the metadata
// database answers, its migrations are this version's, the data directory takes writes.
import { sql } from 'drizzle-orm';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { startTestServer, testConfig, type TestServer } from './helpers/server.js';

/** A probe as a load balancer sends it: no credentials, no Accept header. */
async function probe(base: string, p: string, method = 'GET') {
  const r = await fetch(`${base}${p}`, { method, signal: AbortSignal.timeout(10_000) });
  const text = await r.text();
  const json =
    text && r.headers.get('content-type')?.startsWith('application/json')
      ? JSON.parse(text)
      : undefined;
  return { status: r.status, headers: r.headers, text, json };
}

/** The spec's error shape, naming the failing check, with each check's result in context. */
function expectNotReady(r: Awaited<ReturnType<typeof probe>>, failing: string) {
  expect(r.status, r.text).toBe(503);
  expect(r.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(r.json).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
  expect(r.json.statusCode).toBe(503);
  expect(r.json.message).toContain(failing);
  expect(Object.keys(r.json.context.checks).sort()).toEqual([
    'dataDir',
    'database',
    'diskSpace',
    'migrations',
  ]);
  expect(r.json.context.checks[failing]).toMatchObject({ ok: false, error: expect.any(String) });
}

describe('health probes', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('/healthz answers 200 { status: "ok" } as JSON, without credentials, not cached', async () => {
    const r = await probe(s.url, '/healthz');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.json).toEqual({ status: 'ok' });
    expect((await probe(s.url, '/healthz', 'HEAD')).status).toBe(200);
    const post = await probe(s.url, '/healthz', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('/readyz answers 200 with every check passing on a fresh server', async () => {
    const r = await probe(s.url, '/readyz');
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.json).toEqual({
      status: 'ready',
      checks: {
        database: { ok: true },
        migrations: { ok: true },
        dataDir: { ok: true },
        diskSpace: { ok: true },
      },
    });
    // The probe leaves nothing behind in the data directory.
    expect(fs.existsSync(s.engine.readiness.probeFile)).toBe(false);
  });

  it('/readyz answers 503 while the data directory takes no writes, and 200 once it does', async () => {
    // Tests run as root, where a read-only mode does not stop writes: a directory where the
    // probe writes its file makes the write fail as a full or read-only disk would.
    const probeFile = s.engine.readiness.probeFile;
    expect(path.dirname(probeFile)).toBe(s.dataDir);
    fs.mkdirSync(probeFile);
    try {
      const r = await probe(s.url, '/readyz');
      expectNotReady(r, 'dataDir');
      expect(r.json.context.checks.dataDir.error).toBe('EISDIR');
      expect(r.json.context.checks.database).toEqual({ ok: true });
      expect(r.json.context.checks.migrations).toEqual({ ok: true });
      // Operators learn which check failed, anonymous callers no path of the server.
      expect(r.text).not.toContain(s.dataDir);
      expect(r.text).not.toContain(os.tmpdir());
    } finally {
      fs.rmdirSync(probeFile);
    }
    expect((await probe(s.url, '/readyz')).status).toBe(200);
  });

  it('/readyz answers 503 within its time limit while the data directory hangs', async () => {
    // A FIFO nobody reads blocks the probe's open, as a hung network mount would.
    const probeFile = s.engine.readiness.probeFile;
    expect(spawnSync('mkfifo', [probeFile]).status).toBe(0);
    let reader: number | undefined;
    try {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const r = await probe(s.url, '/readyz');
        expect(Date.now() - started).toBeLessThan(5_000);
        expectNotReady(r, 'dataDir');
        expect(r.json.context.checks.dataDir.error).toMatch(/no answer within/);
      }
      // The mount answers again: the pending probe completes and removes its file.
      reader = fs.openSync(probeFile, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
      await expect.poll(async () => (await probe(s.url, '/readyz')).status).toBe(200);
    } finally {
      if (reader !== undefined) fs.closeSync(reader);
      fs.rmSync(probeFile, { force: true });
    }
  });

  it('/readyz answers 503 while the metadata database cannot be queried, /healthz still 200', async () => {
    const store = s.engine.store;
    const live = store.ping;
    // The database stops answering, as a lost one would (PostgreSQL for real: cluster tests).
    (store as { ping: () => Promise<void> }).ping = async () => {
      throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    };
    try {
      const r = await probe(s.url, '/readyz');
      expectNotReady(r, 'database');
      expect(r.json.context.checks.dataDir).toEqual({ ok: true });
      // Liveness touches no database.
      const alive = await probe(s.url, '/healthz');
      expect(alive.status).toBe(200);
      expect(alive.json).toEqual({ status: 'ok' });
    } finally {
      (store as { ping: () => Promise<void> }).ping = live;
    }
    expect((await probe(s.url, '/readyz')).status).toBe(200);
  });

  it('/readyz answers 503 when the applied migrations are not the ones this version ships', async () => {
    const store = s.engine.store;
    const table = sql.raw(store.migrations.table);
    const [{ n: count }] = (await store.rows<{ n: number }>(
      sql`SELECT count(*) AS n FROM ${table}`,
    )) as [{ n: number }];
    // A newer version migrated the database further than this one knows.
    await store.run(
      sql`INSERT INTO ${table} (hash, created_at) VALUES ('newer', ${Date.now() + 86_400_000})`,
    );
    try {
      const r = await probe(s.url, '/readyz');
      expectNotReady(r, 'migrations');
      expect(r.json.context.checks.migrations.error).toContain(
        `${Number(count) + 1} migrations applied, this version knows ${count}`,
      );
    } finally {
      await store.run(sql`DELETE FROM ${table} WHERE hash = 'newer'`);
    }
    expect((await probe(s.url, '/readyz')).status).toBe(200);
  });

  it('site routes and the API stay as they were beside the probes', async () => {
    expect((await probe(s.url, '/llms.txt')).status).toBe(200);
    expect((await probe(s.url, '/api/v1/projects')).status).toBe(401);
  });
});

describe('health probes while the server starts', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-health-'));
  let running: RunningServer | undefined;
  afterAll(async () => {
    await running?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('/healthz is 200 at once, /readyz 503 until the server serves', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let listening!: (url: string) => void;
    const url = new Promise<string>((r) => (listening = r));
    const started = startServer(testConfig(dataDir), createLogger('silent'), false, {
      listening: (u) => {
        listening(u);
        return held;
      },
    });
    const base = await url;
    const alive = await probe(base, '/healthz');
    expect(alive.status).toBe(200);
    expect(alive.json).toEqual({ status: 'ok' });
    const starting = await probe(base, '/readyz');
    expect(starting.status).toBe(503);
    expect(starting.json).toMatchObject({ statusCode: 503, context: { starting: true } });
    release();
    running = await started;
    expect((await probe(base, '/readyz')).status).toBe(200);
  });
});
