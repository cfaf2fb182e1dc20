// Chunked upload (resumable.js protocol) over real HTTP: test-chunk, multipart and octet
// chunks, order and repeats, the last chunk's size, assembly exactly once, target folders,
// validation, levels, the plan's storage limit and the expiry of abandoned uploads.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { tablesOf } from '../src/engine/db/index.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';
import { writePlansFile } from './helpers/fixtures.js';
import {
  ADMIN,
  invite,
  ON_PG,
  startTestServer,
  type TestServer,
  testDatabase,
  openOtherEngine,
} from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const MDADMIN = 'upload-mdadmin@example.com';
const MEMBER = 'upload-member@example.com';

/** Deterministic bytes, different for every offset and seed. */
function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 17 + (i >> 8)) % 251;
  return b;
}

interface Upload {
  ident: string;
  chunkSize: number;
  data: Buffer;
  filename?: string;
  /** Chunk count as resumable.js computes it (rounded down, at least 1). */
  totalChunks?: number;
  extra?: Record<string, string>;
}

const totalOf = (u: Upload) =>
  u.totalChunks ?? Math.max(1, Math.floor(u.data.length / u.chunkSize));

/** The bytes of chunk n: resumable.js gives the last chunk everything that is left. */
function chunkOf(u: Upload, n: number): Buffer {
  const start = (n - 1) * u.chunkSize;
  return n === totalOf(u) ? u.data.subarray(start) : u.data.subarray(start, start + u.chunkSize);
}

function paramsOf(u: Upload, n: number, chunk = chunkOf(u, n)): Record<string, string> {
  const filename = u.filename ?? 'data.bin';
  return {
    resumableChunkNumber: String(n),
    resumableChunkSize: String(u.chunkSize),
    resumableCurrentChunkSize: String(chunk.length),
    resumableTotalSize: String(u.data.length),
    resumableType: 'application/octet-stream',
    resumableIdentifier: u.ident,
    resumableFilename: filename,
    resumableRelativePath: filename,
    resumableTotalChunks: String(totalOf(u)),
    ...u.extra,
  };
}

let s: TestServer;
let project: string;
const url = (query: Record<string, string>, p = project) =>
  `${s.url}/api/v1/projects/${p}/storage/upload?${new URLSearchParams(query)}`;

async function call(
  method: string,
  target: string,
  opts: { body?: Buffer | FormData; type?: string; as?: string } = {},
) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${await s.token(opts.as ?? ADMIN)}`,
    accept: 'application/json',
  };
  if (opts.type) headers['content-type'] = opts.type;
  const res = await fetch(target, { method, headers, body: opts.body });
  const text = await res.text();
  return { status: res.status, text, json: text ? JSON.parse(text) : undefined };
}

/** Sends chunk n as a raw octet body, parameters in the query. */
const octet = (u: Upload, n: number, opts: { body?: Buffer; as?: string; p?: string } = {}) =>
  call('POST', url(paramsOf(u, n, opts.body), opts.p), {
    body: opts.body ?? chunkOf(u, n),
    type: 'application/octet-stream',
    as: opts.as,
  });

/** Sends chunk n as multipart/form-data, parameters as fields before the file (resumable.js). */
function multipart(u: Upload, n: number) {
  const form = new FormData();
  for (const [k, v] of Object.entries(paramsOf(u, n))) form.append(k, v);
  form.append('file', new Blob([chunkOf(u, n)]), u.filename ?? 'data.bin');
  return call('POST', `${s.url}/api/v1/projects/${project}/storage/upload`, { body: form });
}

const testChunk = (u: Upload, n: number, as?: string) => call('GET', url(paramsOf(u, n)), { as });

const stored = (p: string, project_ = project) =>
  fs.readFileSync(rawStorage(s.engine).abs(project_, p));
const chunkDir = (ident: string, project_ = project) =>
  path.join(s.dataDir, 'projects', project_, 'uploads', ident);

beforeAll(async () => {
  s = await startTestServer();
  project = s.demo;
  await invite(s, project, MDADMIN, { mdadmin: true });
  await invite(s, project, MEMBER);
});
afterAll(() => s?.close());

describe('test-chunk (GET)', () => {
  it('answers 204 for a chunk not stored, 200 once it is', async () => {
    const u: Upload = { ident: 'test-chunk-1', chunkSize: 1000, data: bytes(3500) };
    expect((await testChunk(u, 1)).status).toBe(204);
    const put = await octet(u, 1);
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ uploadId: 'test-chunk-1', received: 1, total: 3 });
    const t = await testChunk(u, 1);
    expect(t.status, t.text).toBe(200);
    expect(t.json).toMatchObject({ uploadId: 'test-chunk-1', received: 1, total: 3 });
    expect((await testChunk(u, 2)).status).toBe(204);
    expect((await testChunk(u, 3)).status).toBe(204);
  });

  it('validates its parameters like a POST', async () => {
    const r = await call('GET', url({ resumableIdentifier: 'x' }));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ statusCode: 400, context: { issues: expect.any(Array) } });
  });
});

describe('chunks (POST)', () => {
  it('assembles an octet upload when the last chunk arrives: 201 with the file', async () => {
    const u: Upload = { ident: 'octet-1', chunkSize: 1000, data: bytes(2600, 2) };
    expect((await octet(u, 1)).status).toBe(200);
    const last = await octet(u, 2);
    expect(last.status, last.text).toBe(201);
    expect(last.json.uploadId).toBe('octet-1');
    expect(last.json.file).toMatchObject({ path: '/data.bin', type: 'file', size: 2600 });
    expect(last.json.file.link.map((l: { rel: string }) => l.rel)).toEqual(['self', 'download']);
    expect(last.json.link.map((l: { rel: string }) => l.rel)).toEqual([
      'file',
      'download',
      'guessupload',
    ]);
    expect(stored('/data.bin').equals(u.data)).toBe(true);
    expect(fs.existsSync(chunkDir('octet-1')), 'chunks are deleted').toBe(false);
    const { uploads } = tablesOf(s.engine.db);
    const row = await s.engine.db
      .select()
      .from(uploads)
      .where(and(eq(uploads.projectId, project), eq(uploads.ident, 'octet-1')))
      .then((r) => r[0]);
    expect(row?.status).toBe('complete');
    const actor = await s.engine.actor({ email: ADMIN }, project);
    expect(await s.engine.uploads.resolve(actor, 'octet-1')).toBe('/data.bin');
  });

  it('stores an empty file as one chunk of 0 bytes', async () => {
    const u: Upload = {
      ident: 'empty-1',
      chunkSize: 1000,
      data: Buffer.alloc(0),
      filename: 'e.bin',
    };
    const r = await octet(u, 1);
    expect(r.status, r.text).toBe(201);
    expect(r.json.file).toMatchObject({ path: '/e.bin', size: 0 });
  });

  it('accepts multipart chunks, parameters as fields or in the query', async () => {
    const u: Upload = {
      ident: 'multi-1',
      chunkSize: 1024,
      data: bytes(3000, 3),
      filename: 'multi.csv',
    };
    expect((await multipart(u, 1)).status).toBe(200);
    // Only the file part in the body; the parameters in the query.
    const form = new FormData();
    form.append('file', new Blob([chunkOf(u, 2)]), 'multi.csv');
    const last = await call('POST', url(paramsOf(u, 2)), { body: form });
    expect(last.status, last.text).toBe(201);
    expect(stored('/multi.csv').equals(u.data)).toBe(true);
  });

  it('refuses a multipart body whose file comes before the parameters, or has none', async () => {
    const u: Upload = { ident: 'multi-bad', chunkSize: 100, data: bytes(100) };
    const late = new FormData();
    late.append('file', new Blob([u.data]), 'x.bin');
    for (const [k, v] of Object.entries(paramsOf(u, 1))) late.append(k, v);
    const r1 = await call('POST', `${s.url}/api/v1/projects/${project}/storage/upload`, {
      body: late,
    });
    expect(r1.status, r1.text).toBe(400);
    expect(r1.json.message).toMatch(/before the `file` part/);
    const none = new FormData();
    for (const [k, v] of Object.entries(paramsOf(u, 1))) none.append(k, v);
    const r2 = await call('POST', `${s.url}/api/v1/projects/${project}/storage/upload`, {
      body: none,
    });
    expect(r2.status, r2.text).toBe(400);
    expect(r2.json.message).toMatch(/file/);
  });

  it('refuses other body types with 415', async () => {
    const u: Upload = { ident: 'type-bad', chunkSize: 100, data: bytes(100) };
    const r = await call('POST', url(paramsOf(u, 1)), { body: u.data, type: 'text/plain' });
    expect(r.status, r.text).toBe(415);
  });

  it('takes chunks out of order and repeated; a repeat replaces the chunk', async () => {
    const u: Upload = { ident: 'order-1', chunkSize: 500, data: bytes(2200, 4), filename: 'o.bin' };
    expect((await octet(u, 4)).json).toMatchObject({ received: 1, total: 4 });
    // A wrong-content first copy of chunk 2, then the right one: the repeat wins.
    expect((await octet(u, 2, { body: bytes(500, 9) })).status).toBe(200);
    expect((await octet(u, 2)).json).toMatchObject({ received: 2, total: 4 });
    expect((await octet(u, 1)).json).toMatchObject({ received: 3, total: 4 });
    expect((await octet(u, 1)).json).toMatchObject({ received: 3, total: 4 });
    const last = await octet(u, 3);
    expect(last.status, last.text).toBe(201);
    expect(stored('/o.bin').equals(u.data)).toBe(true);
  });

  it('accepts a last chunk up to twice the chunk size, and no more', async () => {
    const ok: Upload = {
      ident: 'big-last',
      chunkSize: 1000,
      data: bytes(2999, 5),
      filename: 'l.bin',
    };
    expect(chunkOf(ok, 2).length).toBe(1999);
    expect((await octet(ok, 1)).status).toBe(200);
    expect((await octet(ok, 2)).status).toBe(201);
    expect(stored('/l.bin').equals(ok.data)).toBe(true);

    // 3000 bytes in 2 chunks of 1000 would make the last 2000: twice the chunk size.
    const tooBig: Upload = {
      ident: 'too-big-last',
      chunkSize: 1000,
      data: bytes(3000),
      totalChunks: 2,
    };
    const r = await octet(tooBig, 2);
    expect(r.status, r.text).toBe(400);
    expect(r.json.context.issues[0].path).toBe('resumableTotalChunks');
    // forceChunkSize: true rounds up, the last chunk is smaller: fine too.
    const forced: Upload = {
      ident: 'forced',
      chunkSize: 1000,
      data: bytes(2100, 6),
      totalChunks: 3,
      filename: 'f.bin',
    };
    for (const n of [1, 2]) expect((await octet(forced, n)).status).toBe(200);
    expect((await octet(forced, 3)).status).toBe(201);
    expect(stored('/f.bin').equals(forced.data)).toBe(true);
  });

  it('refuses a chunk whose bytes do not match its size (400), storing nothing', async () => {
    const u: Upload = { ident: 'size-bad', chunkSize: 1000, data: bytes(3000) };
    const more = await call('POST', url(paramsOf(u, 1)), {
      body: bytes(1001),
      type: 'application/octet-stream',
    });
    expect(more.status, more.text).toBe(400);
    const less = await call('POST', url(paramsOf(u, 1)), {
      body: bytes(999),
      type: 'application/octet-stream',
    });
    expect(less.status, less.text).toBe(400);
    expect(less.json.context).toMatchObject({ bytes: 999, expectedBytes: 1000 });
    expect((await testChunk(u, 1)).status).toBe(204);
    const left = fs.existsSync(chunkDir('size-bad')) ? fs.readdirSync(chunkDir('size-bad')) : [];
    expect(left).toEqual([]);
  });

  it.each(['octet', 'multipart'])(
    '%s: drops the chunk of a request aborted mid-body, leaving no partial file',
    async (kind) => {
      const u: Upload = {
        ident: `aborted-${kind}`,
        chunkSize: 100_000,
        data: bytes(200_000, 12),
        filename: `aborted-${kind}.bin`,
      };
      const parts = () =>
        fs.existsSync(chunkDir(u.ident))
          ? fs.readdirSync(chunkDir(u.ident)).filter((f) => f.endsWith('.part'))
          : [];
      const boundary = 'ursa-test-boundary';
      const head =
        kind === 'octet'
          ? Buffer.alloc(0)
          : Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n` +
                'Content-Type: application/octet-stream\r\n\r\n',
            );
      const req = http.request(url(paramsOf(u, 1)), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${await s.token(ADMIN)}`,
          'content-type':
            kind === 'octet'
              ? 'application/octet-stream'
              : `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + u.chunkSize + 100),
        },
      });
      req.on('error', () => undefined);
      req.write(Buffer.concat([head, chunkOf(u, 1).subarray(0, 40_000)]));
      await vi.waitFor(() => expect(parts()).toHaveLength(1), { timeout: 5000 });
      req.destroy();
      await vi.waitFor(() => expect(parts()).toEqual([]), { timeout: 5000 });
      expect((await testChunk(u, 1)).status).toBe(204);
      expect((await octet(u, 1)).status).toBe(200);
      expect((await octet(u, 2)).status).toBe(201);
    },
  );

  it('assembles exactly once when final chunks race', async () => {
    const spy = vi.spyOn(rawStorage(s.engine), 'writeFile');
    try {
      for (let round = 0; round < 3; round++) {
        spy.mockClear();
        const u: Upload = {
          ident: `race-${round}`,
          chunkSize: 64 * 1024,
          data: bytes(4 * 64 * 1024 + 10, 10 + round),
          filename: `race-${round}.bin`,
        };
        for (const n of [1, 2]) expect((await octet(u, n)).status).toBe(200);
        const answers = await Promise.all([3, 4, 4, 3, 4].map((n) => octet(u, n)));
        for (const a of answers) expect([200, 201], a.text).toContain(a.status);
        expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(1);
        expect(spy).toHaveBeenCalledTimes(1);
        expect(stored(`/race-${round}.bin`).equals(u.data)).toBe(true);
      }
    } finally {
      spy.mockRestore();
    }
  });

  it('writes into the `folder` given, and creates the folders of a relative path', async () => {
    await rawStorage(s.engine).mkdir(project, '/in/sub', { parents: true });
    const u: Upload = {
      ident: 'folder-1',
      chunkSize: 100,
      data: bytes(150, 7),
      filename: 'f.csv',
      extra: { folder: '/in/sub' },
    };
    const r = await octet(u, 1);
    expect(r.status, r.text).toBe(201);
    expect(r.json.file.path).toBe('/in/sub/f.csv');
    expect(stored('/in/sub/f.csv').equals(u.data)).toBe(true);

    const rel: Upload = {
      ident: 'folder-2',
      chunkSize: 100,
      data: bytes(120, 8),
      filename: 'g.csv',
      extra: { resumableTarget: '/in', resumableRelativePath: 'dir/deeper/g.csv' },
    };
    const r2 = await octet(rel, 1);
    expect(r2.status, r2.text).toBe(201);
    expect(r2.json.file.path).toBe('/in/dir/deeper/g.csv');

    const missing: Upload = { ...u, ident: 'folder-3', extra: { folder: '/nowhere' } };
    const r3 = await octet(missing, 1);
    expect(r3.status, r3.text).toBe(409);
    // A file where a folder of the relative path should be: refused at once, not at assembly.
    const blocked: Upload = {
      ...rel,
      ident: 'folder-4',
      extra: { resumableRelativePath: 'f.csv/deeper/g.csv', folder: '/in/sub' },
    };
    const r4 = await octet(blocked, 1);
    expect(r4.status, r4.text).toBe(409);
    expect(r4.json.message).toMatch(/is a file/);
    expect(fs.existsSync(chunkDir('folder-4'))).toBe(false);
  });

  it('refuses a chunk that does not match how its upload started (409)', async () => {
    const u: Upload = { ident: 'changed-1', chunkSize: 1000, data: bytes(3000) };
    expect((await octet(u, 1)).status).toBe(200);
    const other: Upload = { ...u, data: bytes(4000) };
    const r = await octet(other, 2);
    expect(r.status, r.text).toBe(409);
    expect(r.json.context.started).toMatchObject({
      resumableTotalSize: 3000,
      resumableTotalChunks: 3,
    });
    expect((await call('GET', url(paramsOf(other, 1)))).status).toBe(409);
  });
});

// Behind a load balancer, chunks of one upload reach different processes. Two engines on
// one data directory and one PostgreSQL are two processes' worth of locks: each chunk goes
// to one of them, all at once, and the file must still be assembled exactly once. (SQLite
// serves one process only, so there is nothing to share there.)
describe.skipIf(!ON_PG)('chunks spread over two engines', () => {
  it('assemble exactly once, whichever engine gets the last one', async () => {
    const other = await openOtherEngine(s);
    const spies = [s.engine, other].map((e) => vi.spyOn(rawStorage(e), 'writeFile'));
    try {
      const engines = [s.engine, other];
      const actors = await Promise.all(engines.map((e) => e.actor({ email: ADMIN }, project)));
      for (let round = 0; round < 8; round++) {
        for (const spy of spies) spy.mockClear();
        const u: Upload = {
          ident: `spread-${round}`,
          chunkSize: 1024,
          data: bytes(8 * 1024 + 100, 40 + round),
          filename: `spread-${round}.bin`,
        };
        const answers = await Promise.allSettled(
          Array.from({ length: totalOf(u) }, (_, k) =>
            engines[(k + round) % 2]!.uploads.putChunk(
              actors[(k + round) % 2]!,
              paramsOf(u, k + 1),
              Readable.from([chunkOf(u, k + 1)]),
            ),
          ),
        );
        const failed = answers.filter((a) => a.status === 'rejected');
        expect(failed.map((a) => String(a.reason))).toEqual([]);
        const done = answers.filter((a) => a.status === 'fulfilled' && a.value.complete);
        expect(done.length, `round ${round}`).toBeGreaterThanOrEqual(1);
        expect(spies[0]!.mock.calls.length + spies[1]!.mock.calls.length, `round ${round}`).toBe(1);
        expect(stored(`/spread-${round}.bin`).equals(u.data)).toBe(true);
        expect(fs.existsSync(chunkDir(u.ident))).toBe(false);
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
      await other.close();
    }
  });
});

describe('validation', () => {
  const base: Upload = { ident: 'valid-1', chunkSize: 100, data: bytes(250) };
  const cases: [string, Record<string, string>, string][] = [
    ['missing chunk number', { resumableChunkNumber: '' }, 'resumableChunkNumber'],
    ['chunk number not a number', { resumableChunkNumber: 'one' }, 'resumableChunkNumber'],
    ['chunk number 0', { resumableChunkNumber: '0' }, 'resumableChunkNumber'],
    ['chunk number past the end', { resumableChunkNumber: '3' }, 'resumableChunkNumber'],
    ['chunk size 0', { resumableChunkSize: '0' }, 'resumableChunkSize'],
    ['negative total size', { resumableTotalSize: '-5' }, 'resumableTotalSize'],
    ['fractional total chunks', { resumableTotalChunks: '2.5' }, 'resumableTotalChunks'],
    [
      'total chunks that cannot hold the size',
      { resumableTotalChunks: '1' },
      'resumableTotalChunks',
    ],
    [
      'current chunk size of another chunk',
      { resumableCurrentChunkSize: '99' },
      'resumableCurrentChunkSize',
    ],
    ['identifier with a slash', { resumableIdentifier: 'a/b' }, 'resumableIdentifier'],
    ['identifier ..', { resumableIdentifier: '..' }, 'resumableIdentifier'],
    ['identifier too long', { resumableIdentifier: 'x'.repeat(201) }, 'resumableIdentifier'],
    ['missing file name', { resumableFilename: '' }, 'resumableFilename'],
  ];
  it.each(cases)('%s → 400', async (_name, change, field) => {
    const r = await call('POST', url({ ...paramsOf(base, 1), ...change }), {
      body: chunkOf(base, 1),
      type: 'application/octet-stream',
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json).toMatchObject({
      statusCode: 400,
      message: expect.any(String),
      errorId: expect.any(String),
    });
    expect(r.json.context.issues.map((i: { path: string }) => i.path)).toContain(field);
  });

  const traversals: [string, Record<string, string>][] = [
    ['file name ..', { resumableFilename: '..', resumableRelativePath: '..' }],
    ['file name with a path', { resumableFilename: '../../etc/passwd' }],
    ['relative path escaping', { resumableRelativePath: 'a/../../../x.csv' }],
    ['folder escaping', { folder: '/in/../../x' }],
    ['encoded dots in the folder', { folder: '/%2e%2e/x' }],
    [
      'backslash in the file name',
      { resumableFilename: '..\\x.csv', resumableRelativePath: '..\\x.csv' },
    ],
  ];
  it.each(traversals)('traversal: %s → 400, nothing written', async (_name, change) => {
    const u: Upload = { ...base, ident: `trav-${_name.replace(/\W+/g, '-')}`, chunkSize: 300 };
    const r = await call('POST', url({ ...paramsOf(u, 1), ...change }), {
      body: u.data,
      type: 'application/octet-stream',
    });
    expect(r.status, r.text).toBe(400);
    expect(fs.existsSync(chunkDir(u.ident))).toBe(false);
    expect(fs.existsSync(path.join(s.dataDir, 'x.csv'))).toBe(false);
  });
});

describe('levels', () => {
  const u: Upload = { ident: 'level-1', chunkSize: 100, data: bytes(100), filename: 'lv.bin' };

  it('a member who is not MD Admin gets 403 on both methods, and nothing is written', async () => {
    expect((await octet(u, 1, { as: MEMBER })).status).toBe(403);
    expect((await testChunk(u, 1, MEMBER)).status).toBe(403);
    const form = new FormData();
    for (const [k, v] of Object.entries(paramsOf(u, 1))) form.append(k, v);
    form.append('file', new Blob([u.data]), 'lv.bin');
    const r = await call('POST', `${s.url}/api/v1/projects/${project}/storage/upload`, {
      body: form,
      as: MEMBER,
    });
    expect(r.status, r.text).toBe(403);
    expect(fs.existsSync(chunkDir('level-1'))).toBe(false);
    expect(await rawStorage(s.engine).stat(project, '/lv.bin')).toBeNull();
  });

  it('an MD Admin may upload', async () => {
    const r = await octet(u, 1, { as: MDADMIN });
    expect(r.status, r.text).toBe(201);
  });
});

describe('expiry', () => {
  it('the sweep deletes partial uploads untouched for URSA_UPLOAD_TTL_HOURS, and only those', async () => {
    const old: Upload = { ident: 'expire-old', chunkSize: 100, data: bytes(300) };
    const fresh: Upload = { ident: 'expire-fresh', chunkSize: 100, data: bytes(300) };
    expect((await octet(old, 1)).status).toBe(200);
    expect((await octet(fresh, 1)).status).toBe(200);
    const past = new Date(Date.now() - 25 * 3_600_000).toISOString();
    const { uploads } = tablesOf(s.engine.db);
    await s.engine.db
      .update(uploads)
      .set({ updated: past })
      .where(and(eq(uploads.projectId, project), eq(uploads.ident, 'expire-old')));
    expect(await s.engine.uploads.sweep()).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(chunkDir('expire-old'))).toBe(false);
    const rows = await s.engine.db.select().from(uploads).where(eq(uploads.projectId, project));
    expect(rows.map((r) => r.ident)).not.toContain('expire-old');
    expect(rows.map((r) => r.ident)).toContain('expire-fresh');
    expect((await testChunk(old, 1)).status).toBe(204);
    expect((await testChunk(fresh, 1)).status).toBe(200);
  });

  it('the sweep also removes chunk folders no upload owns (left by a crash)', async () => {
    const stray = chunkDir('stray-folder');
    fs.mkdirSync(stray, { recursive: true });
    fs.writeFileSync(path.join(stray, '1.chunk'), 'x');
    const old = new Date(Date.now() - 48 * 3_600_000);
    fs.utimesSync(stray, old, old);
    await s.engine.uploads.sweep();
    expect(fs.existsSync(stray)).toBe(false);
  });
});

describe('expiry at server start', () => {
  it('a restarted server sweeps uploads older than URSA_UPLOAD_TTL_HOURS at once', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-upload-ttl-'));
    const config = () =>
      loadConfig({
        URSA_DATA_DIR: dataDir,
        ...testDatabase(dataDir),
        PORT: '0',
        HOST: '127.0.0.1',
        URSA_ADMIN_PASSWORD: 'admin-password-1',
        URSA_LOG_LEVEL: 'silent',
        URSA_UPLOAD_TTL_HOURS: '1',
      });
    const first = await startServer(config(), createLogger('silent'), false);
    const p = first.bootstrap.demoProjectId!;
    const actor = await first.engine.actor({ email: ADMIN }, p);
    const u: Upload = { ident: 'ttl-1', chunkSize: 100, data: bytes(300) };
    await first.engine.uploads.putChunk(actor, paramsOf(u, 1), Readable.from([chunkOf(u, 1)]));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    const { uploads } = tablesOf(first.engine.db);
    await first.engine.db.update(uploads).set({ updated: twoHoursAgo });
    await first.close();
    const dir = path.join(dataDir, 'projects', p, 'uploads', 'ttl-1');
    expect(fs.existsSync(dir)).toBe(true);

    const second = await startServer(config(), createLogger('silent'), false);
    try {
      await vi.waitFor(() => expect(fs.existsSync(dir)).toBe(false));
      // The folder goes first, then the record.
      await vi.waitFor(async () =>
        expect(await second.engine.db.select().from(uploads)).toEqual([]),
      );
    } finally {
      await second.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('plan storage limit', () => {
  let small: TestServer;
  let plans: ReturnType<typeof writePlansFile>;
  beforeAll(async () => {
    plans = writePlansFile({ storageBytes: 10_000 });
    small = await startTestServer({ URSA_PLANS_FILE: plans.file });
  });
  afterAll(async () => {
    await small?.close();
    plans?.remove();
  });

  it('refuses a new upload that cannot fit with 402, writing nothing', async () => {
    const keep = s;
    s = small;
    try {
      const p = small.demo;
      const u: Upload = {
        ident: 'too-large',
        chunkSize: 4000,
        data: bytes(12_000),
        filename: 'big.bin',
      };
      const r = await octet(u, 1, { p });
      expect(r.status, r.text).toBe(402);
      expect(r.json.context).toMatchObject({
        limit: 'storageBytes',
        allowed: 10_000,
        requested: 12_000,
      });
      expect(fs.existsSync(chunkDir('too-large', p))).toBe(false);
      expect(await rawStorage(small.engine).stat(p, '/big.bin')).toBeNull();

      const fits: Upload = {
        ident: 'fits',
        chunkSize: 4000,
        data: bytes(9000),
        filename: 'ok.bin',
      };
      expect((await octet(fits, 1, { p })).status).toBe(200);
      expect((await octet(fits, 2, { p })).status).toBe(201);
    } finally {
      s = keep;
    }
  });
});
