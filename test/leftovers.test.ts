// Temporary files a killed writer leaves (kill -9: no cleanup runs) never count toward
// storageBytes and are removed by the periodic sweep of a process that keeps running, without
// a restart; the temporary files of live writes, and the chunks of an upload in progress, are
// kept. The writer is a real process with its own engine on the same data directory and
// metadata database (test/helpers/killed-writer.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cliEnv, killTree, NODE_TSX, ROOT } from './helpers/cli.js';
import { writePlansFile } from './helpers/fixtures.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

/** Starts the writer; resolves with it and its pid once its temporary files hold bytes. */
async function startWriter(
  s: TestServer,
  uploadId: string,
): Promise<{ child: ChildProcess; pid: number; state: () => string }> {
  const child = spawn(
    NODE_TSX.command,
    [...NODE_TSX.args, 'test/helpers/killed-writer.ts', s.demo, uploadId],
    {
      cwd: ROOT,
      env: cliEnv({ URSA_DATA_DIR: s.dataDir, URSA_LOG_LEVEL: 'silent' }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own group: a kill reaches whatever it started
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const pid = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) => reject(new Error(`writer exited (${code}): ${err}`)));
  });
  // What an assertion says when the writer's files did not count: is it still there, and
  // what did it print (a writer that died on its own makes its files leftovers at once).
  let ended = '';
  child.on('exit', (code, signal) => (ended = `exited (${code ?? signal})`));
  const state = () => `writer ${ended || 'running'}; stderr: ${err.trim() || '(none)'}`;
  return { child, pid, state };
}

/** Resolves once `pid` is gone (SIGKILL is delivered asynchronously). */
async function gone(pid: number): Promise<void> {
  await vi.waitFor(
    () => {
      expect(() => process.kill(pid, 0)).toThrow();
    },
    { timeout: 10_000, interval: 10 },
  );
}

describe('temporary files of a killed writer', () => {
  let s: TestServer;
  let plans: ReturnType<typeof writePlansFile>;
  const projectDir = () => path.join(s.dataDir, 'projects', s.demo);
  /** The `.part` files below a folder of the project, by name. */
  const parts = (sub: string) => {
    const dir = path.join(projectDir(), sub);
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith('.part'))
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
  };
  const chunk = (n: number) => ({
    resumableChunkNumber: String(n),
    resumableChunkSize: '100',
    resumableTotalSize: '200',
    resumableTotalChunks: '2',
    resumableIdentifier: 'live-upload',
    resumableFilename: 'live.bin',
    resumableRelativePath: 'live.bin',
  });

  beforeAll(async () => {
    plans = writePlansFile({ storageBytes: 1000 });
    // The periodic sweep every second: what it removes, it removes without a restart.
    s = await startTestServer({ URSA_PLANS_FILE: plans.file, URSA_SWEEP_SECONDS: '1' });
  });
  afterAll(async () => {
    await s?.close();
    plans?.remove();
  });

  it('counts while its writer lives, then never, and the periodic sweep removes it', async () => {
    const store = rawStorage(s.engine);
    const actor = await s.engine.actor({ email: 'admin@example.com' }, s.demo);
    // An upload in progress: chunk 1 of 2 received here; the writer receives chunk 2.
    const first = await s.engine.uploads.putChunk(
      actor,
      chunk(1),
      Readable.from([Buffer.alloc(100, 1)]),
    );
    expect(first).toMatchObject({ complete: false, received: 1 });

    const writer = await startWriter(s, 'live-upload');
    try {
      // Alive: its partial file counts (concurrent writes count each other) and is kept.
      expect((await store.quota(s.demo)).used, writer.state()).toBe(600);
      expect(await s.engine.uploads.sweepLeftovers()).toBe(0);
      expect(parts('tmp')).toHaveLength(1);
      expect(parts('uploads')).toHaveLength(1);
    } finally {
      killTree(writer.child, 'SIGKILL');
    }
    await gone(writer.pid);

    // Dead: nothing it left counts, at once; the plan's 1000 bytes are all free.
    expect((await store.quota(s.demo)).used).toBe(0);
    await store.writeFile(s.demo, '/fits.bin', Buffer.alloc(900));
    await store.remove(s.demo, '/fits.bin');
    // The periodic sweep removes both leftovers; the process was never restarted.
    await vi.waitFor(
      () => {
        expect(parts('tmp')).toEqual([]);
        expect(parts('uploads')).toEqual([]);
      },
      { timeout: 15_000, interval: 50 },
    );
    // The upload in progress kept its chunk and its row: chunk 2 sent again completes it.
    expect(fs.readdirSync(path.join(projectDir(), 'uploads', 'live-upload'))).toEqual(['1.chunk']);
    const done = await s.engine.uploads.putChunk(
      actor,
      chunk(2),
      Readable.from([Buffer.alloc(100, 2)]),
    );
    expect(done).toMatchObject({ complete: true, file: { path: '/live.bin', size: 200 } });
  });

  it('a leftover of another host counts until its lease runs out, then is swept', async () => {
    const store = rawStorage(s.engine);
    const tmp = path.join(projectDir(), 'tmp');
    fs.mkdirSync(tmp, { recursive: true });
    // Its writer cannot be asked (another machine on a shared filesystem): only the lease says.
    const fresh = path.join(tmp, 'other%2Ehost+4242+abcdef+0123456789ab.part');
    const stale = path.join(tmp, 'other%2Ehost+4243+abcdef+0123456789ab.part');
    fs.writeFileSync(fresh, Buffer.alloc(300));
    fs.writeFileSync(stale, Buffer.alloc(400));
    const old = new Date(Date.now() - 10 * 60_000); // past the 5-minute lease
    fs.utimesSync(stale, old, old);
    expect((await store.quota(s.demo)).used).toBe(300 + 200); // with /live.bin
    await vi.waitFor(() => expect(fs.existsSync(stale)).toBe(false), {
      timeout: 15_000,
      interval: 50,
    });
    expect(fs.existsSync(fresh)).toBe(true);
    fs.rmSync(fresh);
  });
});
