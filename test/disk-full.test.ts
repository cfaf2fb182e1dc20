// A full disk, for real: the server's data directory is a small tmpfs (mounted as root), filled
// up to a margin. Uploads (WebDAV PUT, one-shot, chunks, assembly) answer 507 in the error
// shape and leave nothing behind; a load ends ERROR "disk full"; /readyz says not ready while
// free space is below URSA_MIN_FREE_BYTES. Without root (mount refused) the tests are skipped,
// except under CI, where that is an error.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import { ADMIN, testConfig } from './helpers/server.js';

const MiB = 1024 * 1024;

/** Files below `dir` this process (the server runs in it) holds open. */
function openBelow(dir: string): string[] {
  return fs
    .readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return ''; // closed meanwhile
      }
    })
    .filter((l) => l.startsWith(`${dir}/`));
}

/** Mounts a tmpfs of `size` on `dir`; the reason when it cannot (no root, no mount). */
function mountTmpfs(dir: string, size: string): string | null {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-full-'));
const refused = mountTmpfs(dataDir, '96m');
if (refused && process.env.CI)
  throw new Error(`the disk-full tests need to mount a tmpfs (run as root): ${refused}`);

describe.skipIf(!!refused)('a full disk', () => {
  let s: RunningServer;
  let token: string;
  let project: string;
  const filler = path.join(dataDir, 'filler');
  const projectDir = () => path.join(dataDir, 'projects', project);

  /** Fills the disk up to `leave` free bytes (the filler grows or shrinks to fit). */
  function leaveFree(leave: number) {
    fs.rmSync(filler, { force: true });
    const st = fs.statfsSync(dataDir);
    const fill = st.bavail * st.bsize - leave;
    if (fill > 0) fs.writeFileSync(filler, Buffer.alloc(fill));
  }
  const roomy = () => fs.rmSync(filler, { force: true });

  /** Files left in the project's tmp/ and uploads/ folders (relative paths). */
  const leftovers = () =>
    ['tmp', 'uploads'].flatMap((d) => {
      const dir = path.join(projectDir(), d);
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => !e.isDirectory())
        .map((e) => path.relative(projectDir(), path.join(e.parentPath, e.name)));
    });

  const call = async (method: string, p: string, init: RequestInit = {}) => {
    const res = await fetch(`${s.url}${p}`, {
      method,
      ...init,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${token}`,
        ...(init.headers as object),
      },
    });
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
  };

  /** 507 in the spec's error shape, saying the disk is full, naming no path. */
  function expectFull(r: { status: number; text: string; json: Record<string, unknown> }) {
    expect(r.status, r.text).toBe(507);
    expect(Object.keys(r.json).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
    expect(r.json).toMatchObject({ statusCode: 507, context: { code: 'ENOSPC' } });
    expect(r.json.message).toMatch(/^disk full: .*nothing was written/);
    expect(r.text).not.toContain(dataDir);
  }

  const chunk = (ident: string, n: number, total: number, size: number) =>
    new URLSearchParams({
      resumableChunkNumber: String(n),
      resumableChunkSize: String(size),
      resumableTotalSize: String(total * size),
      resumableTotalChunks: String(total),
      resumableIdentifier: ident,
      resumableFilename: `${ident}.bin`,
      resumableRelativePath: `${ident}.bin`,
    });

  beforeAll(async () => {
    const config = testConfig(dataDir, { URSA_MIN_FREE_BYTES: String(8 * MiB) });
    s = await startServer(config, createLogger(config.logLevel), false);
    project = s.bootstrap.demoProjectId!;
    token = await s.engine.issueToken(ADMIN);
    const r = await call('PUT', `/api/v1/projects/${project}`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webdavToken: 'disk-full-webdav-token' }),
    });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => {
    await s?.close();
    if (!refused) {
      try {
        execFileSync('umount', [dataDir]);
      } catch (err) {
        const open = openBelow(dataDir);
        // A file the server left open keeps the mount busy: name it, and detach the mount.
        execFileSync('umount', ['-l', dataDir]);
        throw new Error(`umount failed; files still open: ${open.join(', ')}`, { cause: err });
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    } else fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('WebDAV PUT answers 507 and leaves no partial file', async () => {
    leaveFree(1 * MiB);
    try {
      const basic = Buffer.from(`${ADMIN}:disk-full-webdav-token`).toString('base64');
      const r = await call('PUT', `/api/v1/projects/${project}/webdav/big.bin`, {
        headers: { authorization: `Basic ${basic}` },
        body: Buffer.alloc(3 * MiB, 1),
      });
      expectFull(r);
      expect(leftovers()).toEqual([]);
      expect(fs.existsSync(path.join(projectDir(), 'files', 'big.bin'))).toBe(false);
    } finally {
      roomy();
    }
  });

  it('a one-shot upload answers 507 and leaves nothing', async () => {
    leaveFree(1 * MiB);
    try {
      const form = new FormData();
      form.append('file', new Blob([Buffer.alloc(3 * MiB, 2)]), 'oneshot.bin');
      const r = await call('POST', `/api/v1/projects/${project}/storage/upload`, { body: form });
      expectFull(r);
      expect(leftovers()).toEqual([]);
      expect(fs.existsSync(path.join(projectDir(), 'files', 'oneshot.bin'))).toBe(false);
    } finally {
      roomy();
    }
  });

  it('a chunk that does not fit answers 507 and leaves no partial chunk', async () => {
    leaveFree(1 * MiB);
    try {
      const r = await call(
        'POST',
        `/api/v1/projects/${project}/storage/upload?${chunk('nofit', 1, 1, 3 * MiB)}`,
        {
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.alloc(3 * MiB, 3),
        },
      );
      expectFull(r);
      expect(leftovers()).toEqual([]);
    } finally {
      roomy();
    }
  });

  it('an assembly that does not fit answers 507, keeps the chunks, and a retry completes it', async () => {
    const size = 1 * MiB;
    const send = (n: number) =>
      call('POST', `/api/v1/projects/${project}/storage/upload?${chunk('assembly', n, 2, size)}`, {
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.alloc(size, n),
      });
    const first = await send(1);
    expect(first.status, first.text).toBe(200);
    // Room for the second chunk, not for the file assembled from both.
    leaveFree(1.5 * MiB);
    try {
      expectFull(await send(2));
      expect(leftovers().sort()).toEqual(['uploads/assembly/1.chunk', 'uploads/assembly/2.chunk']);
      // The refused assembly let go of the chunk files it was reading.
      await vi.waitFor(() => expect(openBelow(projectDir())).toEqual([]));
      expect(fs.existsSync(path.join(projectDir(), 'files', 'assembly.bin'))).toBe(false);
    } finally {
      roomy();
    }
    const retried = await send(2);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.json).toMatchObject({ uploadId: 'assembly', file: { size: 2 * size } });
    expect(leftovers()).toEqual([]);
  });

  it('a load that fills the disk ends ERROR "disk full", without a stack', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `${i},name ${i},${i * 1.5}`);
    fs.writeFileSync(
      path.join(projectDir(), 'files', 'rows.csv'),
      `id,name,amount\n${rows.join('\n')}\n`,
    );
    leaveFree(64 * 1024);
    try {
      const r = await call('POST', `/api/v1/projects/${project}/kodiak/transform/execute`, {
        headers: { 'content-type': 'application/json', prefer: 'wait=60' },
        body: JSON.stringify({
          type: 'cluster',
          clusters: {
            rows: {
              source_type: 'webdav',
              source: '/rows.csv',
              prescription: {
                primarykey: 'id',
                columns: [
                  {
                    id: 'id',
                    originalheader: 'id',
                    objectType: 'A',
                    dataType: 'integer',
                    label: 'Id',
                  },
                  {
                    id: 'name',
                    originalheader: 'name',
                    objectType: 'A',
                    dataType: 'string',
                    label: 'Name',
                  },
                  {
                    id: 'amount',
                    originalheader: 'amount',
                    objectType: 'F',
                    dataType: 'number',
                    label: 'Amount',
                  },
                ],
              },
            },
          },
        }),
      });
      expect(r.status, r.text).toBe(202);
      const id = r.json.link?.[0]?.id ?? r.json.id;
      let job = r.json;
      while (!['OK', 'ERROR', 'CANCELLED'].includes(job.status)) {
        await new Promise((res) => setTimeout(res, 20));
        const polled = await call('GET', `/api/v1/projects/${project}/kodiak/scache/obj/${id}`);
        job = polled.json;
      }
      expect(job.status, job.message).toBe('ERROR');
      expect(job.message).toMatch(/^disk full: /);
      expect(job.message).not.toMatch(/\n\s+at /);
      // Its partial version file is removed with it.
      const versions = path.join(projectDir(), 'datasets', 'rows');
      expect(fs.existsSync(versions) ? fs.readdirSync(versions) : []).toEqual([]);
    } finally {
      roomy();
    }
  });

  it('/readyz is 503 while free space is below URSA_MIN_FREE_BYTES, 200 again after', async () => {
    leaveFree(4 * MiB);
    try {
      const r = await fetch(`${s.url}/readyz`);
      const body = (await r.json()) as { context: { checks: { diskSpace: { error: string } } } };
      expect(r.status, JSON.stringify(body)).toBe(503);
      expect(body).toMatchObject({
        statusCode: 503,
        message: 'not ready: diskSpace failed',
        context: { checks: { diskSpace: { ok: false }, dataDir: { ok: true } } },
      });
      expect(body.context.checks.diskSpace.error).toContain('URSA_MIN_FREE_BYTES');
    } finally {
      roomy();
    }
    expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
  });
});
