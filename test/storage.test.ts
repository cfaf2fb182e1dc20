// Storage over REST, and the path rules every door shares.
import fs from 'node:fs';
import os from 'node:os';
import { PassThrough } from 'node:stream';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageChange } from '../src/engine/storage/storage.js';
import { fileIdOf, normalizeStoragePath, pathOfFileId } from '../src/engine/storage/paths.js';
import { invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const id = (p: string) => fileIdOf(p);

describe('storage paths and fileIds', () => {
  it('normalizes and refuses escapes', () => {
    expect(normalizeStoragePath('')).toBe('/');
    expect(normalizeStoragePath('//in///a.csv/')).toBe('/in/a.csv');
    for (const bad of [
      '/a/../b',
      '..',
      '/./a',
      '/a\0b',
      '/a\\b',
      '/%2e%2e/x',
      '/a%2Fb',
      '/x%00',
      '/a\nb',
    ]) {
      expect(() => normalizeStoragePath(bad), bad).toThrow(/invalid storage path/);
    }
  });

  it('round-trips fileIds, padded or not, with "|" in names', () => {
    expect(fileIdOf('/in/a.csv')).toBe(Buffer.from('a.csv|/in').toString('base64url'));
    for (const p of ['/', '/a.csv', '/in/sub/b c.csv', '/x|y/a|b.csv', '/ünï/çødé.csv']) {
      expect(pathOfFileId(fileIdOf(p))).toBe(p);
      expect(pathOfFileId(Buffer.from(pathName(p)).toString('base64'))).toBe(p);
    }
    expect(() => pathOfFileId('not base64!')).toThrow(/not a fileId/);
    expect(() => pathOfFileId(Buffer.from('a.csv|../x').toString('base64url'))).toThrow();
    expect(() => pathOfFileId(Buffer.from('..|/').toString('base64url'))).toThrow(
      /invalid storage path/,
    );
  });
});

function pathName(p: string): string {
  if (p === '/') return '|/';
  const i = p.lastIndexOf('/');
  return `${p.slice(i + 1)}|${i === 0 ? '/' : p.slice(0, i)}`;
}

describe('storage REST', () => {
  let s: TestServer;
  let base: string;
  const changes: StorageChange[] = [];
  const put = (p: string, data: string | Buffer) =>
    rawStorage(s.engine).writeFile(s.demo, p, Buffer.from(data));

  beforeAll(async () => {
    s = await startTestServer();
    base = `/projects/${s.demo}/storage`;
    rawStorage(s.engine).onChange((c) => void changes.push(c));
    await invite(s, s.demo, 'member@example.com');
  });
  afterAll(() => s.close());

  it('creates folders with parents, lists them with stats, and refuses an existing one', async () => {
    const r = await s.api('POST', `${base}/list`, { body: { folder: '/in/2024' } });
    expect(r.status, r.text).toBe(201);
    expect(r.json.item).toMatchObject({
      path: '/in/2024',
      name: '2024',
      type: 'folder',
      fileId: id('/in/2024'),
    });
    expect(r.headers.get('location')).toBe(`/api/v1${base}/list/${id('/in/2024')}`);
    expect((await s.api('POST', `${base}/list`, { body: { folder: '/in/2024' } })).status).toBe(
      409,
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ path: '/in/2024', kind: 'created', type: 'folder' }),
    );

    await put('/in/2024/a.csv', 'x,y\n1,2\n');
    await put('/in/b.csv', 'hello');
    const root = await s.api('GET', `${base}/list?withStats=1`);
    expect(root.status).toBe(200);
    const inFolder = root.json.items.find((i: { path: string }) => i.path === '/in');
    expect(inFolder).toMatchObject({ type: 'folder', size: 8 + 5, items: 3 });
    const plain = await s.api('GET', `${base}/list`);
    expect(plain.json.items.find((i: { path: string }) => i.path === '/in').items).toBeUndefined();
  });

  it('shows details and contents by fileId, folders first', async () => {
    const r = await s.api('GET', `${base}/list/${id('/in')}`);
    expect(r.status).toBe(200);
    expect(r.json.item.path).toBe('/in');
    expect(r.json.items.map((i: { name: string }) => i.name)).toEqual(['2024', 'b.csv']);
    const file = await s.api('GET', `${base}/list/${id('/in/b.csv')}`);
    expect(file.json.item).toMatchObject({ type: 'file', size: 5 });
    expect(file.json.item.link.map((l: { rel: string }) => l.rel)).toEqual(['self', 'download']);
    expect((await s.api('GET', `${base}/list/${id('/nope')}`)).status).toBe(404);
    expect((await s.api('GET', `${base}/list/@@@`)).status).toBe(400);
  });

  it('offers listings as CSV', async () => {
    const r = await s.api('GET', `${base}/list/${id('/in')}?format=csv`);
    expect(r.status).toBe(200);
    expect(r.text.split('\r\n')[0]).toBe('fileId,name,path,type,size,modified,items');
  });

  it('downloads with type, length, ETag and ranges', async () => {
    await put('/data.csv', '0123456789');
    const url = `${base}/list/${id('/data.csv')}/download`;
    const full = await s.api('GET', url);
    expect(full.status).toBe(200);
    expect(full.text).toBe('0123456789');
    expect(full.headers.get('content-type')).toBe('text/csv');
    expect(full.headers.get('content-length')).toBe('10');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    const etag = full.headers.get('etag')!;

    const part = await s.api('GET', url, { headers: { range: 'bytes=2-4' } });
    expect(part.status).toBe(206);
    expect(part.text).toBe('234');
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
    const suffix = await s.api('GET', url, { headers: { range: 'bytes=-3' } });
    expect(suffix.text).toBe('789');
    const open = await s.api('GET', url, { headers: { range: 'bytes=7-' } });
    expect(open.text).toBe('789');
    const bad = await s.api('GET', url, { headers: { range: 'bytes=20-30' } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe('bytes */10');
    expect(bad.json).toMatchObject({ statusCode: 416 });
    // A stale If-Range gets the whole (new) file, not a slice of it.
    const stale = await s.api('GET', url, {
      headers: { range: 'bytes=0-1', 'if-range': '"other"' },
    });
    expect(stale.status).toBe(200);
    const fresh = await s.api('GET', url, { headers: { range: 'bytes=0-1', 'if-range': etag } });
    expect(fresh.status).toBe(206);
    expect((await s.api('GET', `${base}/list/${id('/in')}/download`)).status).toBe(400);
  });

  it('moves and renames; refuses existing targets, moves into itself and missing folders', async () => {
    const mv = await s.api('POST', `${base}/move`, {
      body: { source: '/in/b.csv', target: '/in/2024/b2.csv' },
    });
    expect(mv.status, mv.text).toBe(200);
    expect(mv.json.item).toMatchObject({ path: '/in/2024/b2.csv', size: 5 });
    expect(
      fs.readFileSync(path.join(rawStorage(s.engine).root(s.demo), 'in/2024/b2.csv'), 'utf8'),
    ).toBe('hello');
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'moved', path: '/in/2024/b2.csv', from: '/in/b.csv' }),
    );
    expect(
      (
        await s.api('POST', `${base}/move`, {
          body: { source: '/in/2024/a.csv', target: '/in/2024/b2.csv' },
        })
      ).status,
    ).toBe(409);
    expect(
      (await s.api('POST', `${base}/move`, { body: { source: '/in', target: '/in/2024/x' } }))
        .status,
    ).toBe(409);
    expect(
      (
        await s.api('POST', `${base}/move`, {
          body: { source: '/data.csv', target: '/nofolder/x.csv' },
        })
      ).status,
    ).toBe(409);
    expect(
      (await s.api('POST', `${base}/move`, { body: { source: '/missing.csv', target: '/x.csv' } }))
        .status,
    ).toBe(404);
    expect((await s.api('POST', `${base}/move`, { body: { source: '/data.csv' } })).status).toBe(
      400,
    );
  });

  it('deletes a file, or a folder recursively', async () => {
    expect((await s.api('DELETE', `${base}/list/${id('/data.csv')}`)).status).toBe(204);
    expect((await s.api('DELETE', `${base}/list/${id('/in')}`)).status).toBe(204);
    expect((await s.api('GET', `${base}/list/${id('/in/2024/a.csv')}`)).status).toBe(404);
    expect((await s.api('DELETE', `${base}/list/${id('/in')}`)).status).toBe(404);
    expect((await s.api('DELETE', `${base}/list/${id('/')}`)).status).toBe(400);
    expect(changes).toContainEqual(
      expect.objectContaining({ kind: 'deleted', path: '/in', type: 'folder' }),
    );
  });

  it('refuses traversal and escapes with 400 and writes nothing outside storage', async () => {
    const outside = path.join(s.dataDir, 'projects', s.demo);
    const before = fs.readdirSync(outside).sort();
    for (const folder of ['/../escape', '../../x', '/a/%2e%2e/b', '/a\u0000b', '/a\\b']) {
      const r = await s.api('POST', `${base}/list`, { body: { folder } });
      expect(r.status, folder).toBe(400);
      // A NUL is refused at the door, before the path is read (docs/api.md).
      expect(r.json.message).toMatch(
        folder.includes('\u0000') ? /^body\.folder contains a NUL/ : /invalid storage path/,
      );
    }
    const sneaky = Buffer.from('escape|/..').toString('base64url');
    expect((await s.api('GET', `${base}/list/${sneaky}`)).status).toBe(400);
    expect(
      (await s.api('POST', `${base}/move`, { body: { source: '/x', target: '/../../etc/x' } }))
        .status,
    ).toBe(400);
    expect(fs.readdirSync(outside).sort()).toEqual(before);
    expect(fs.existsSync(path.join(s.dataDir, 'escape'))).toBe(false);
  });

  it('writes atomically: no partial file is ever visible and temp files are cleaned', async () => {
    const big = Buffer.alloc(2_000_000, 7);
    const writes = Promise.all([put('/atomic.bin', big), put('/atomic.bin', big)]);
    const seen: number[] = [];
    for (let i = 0; i < 20; i++) {
      const st = await rawStorage(s.engine).stat(s.demo, '/atomic.bin');
      if (st) seen.push(st.size);
      await new Promise((r) => setImmediate(r));
    }
    await writes;
    expect(seen.every((n) => n === big.length)).toBe(true);
    expect(fs.readdirSync(path.join(s.dataDir, 'projects', s.demo, 'tmp'))).toEqual([]);
  });

  it('is MD Admin work: a plain member gets 403', async () => {
    const r = await s.api('GET', `${base}/list`, { as: 'member@example.com' });
    expect(r.status).toBe(403);
  });
});

describe('storage through a file in the path', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await rawStorage(s.engine).writeFile(s.demo, '/x.csv', Buffer.from('x'));
  });
  afterAll(() => s.close());

  it('answers 409, not a file-system error, when a file sits where a folder must be', async () => {
    await expect(
      rawStorage(s.engine).writeFile(s.demo, '/x.csv/sub/f.csv', Buffer.from('y'), {
        createParents: true,
      }),
    ).rejects.toMatchObject({ kind: 'conflict', message: '"/x.csv" is a file, not a folder' });
    const r = await s.api('POST', `/projects/${s.demo}/storage/list`, {
      body: { folder: '/x.csv/a/b' },
    });
    expect(r.status).toBe(409);
    expect(r.json.message).toBe('"/x.csv" is a file, not a folder');
  });
});

describe('storage overwrites and quota', () => {
  let s: TestServer;
  let plans: string;
  beforeAll(async () => {
    plans = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-plans-')), 'plans.yaml');
    fs.writeFileSync(
      plans,
      'plans:\n  free:\n    label: Tiny\n    limits: { storageBytes: 100, aiMessagesPerDay: 1, datasetRows: 10, users: 10, flows: 1, projects: 5, deliveries: 10, emailsPerDay: 10 }\n',
    );
    s = await startTestServer({ URSA_PLANS_FILE: plans });
  });
  afterAll(() => s.close());
  const st = () => rawStorage(s.engine);

  it('refuses to overwrite a folder that contains the source, and keeps everything', async () => {
    await st().writeFile(s.demo, '/a/b/f.txt', Buffer.from('f'), { createParents: true });
    await expect(st().move(s.demo, '/a/b', '/a', { overwrite: true })).rejects.toMatchObject({
      kind: 'conflict',
    });
    await expect(st().copy(s.demo, '/a/b', '/a', { overwrite: true })).rejects.toMatchObject({
      kind: 'conflict',
    });
    expect(await st().stat(s.demo, '/a/b/f.txt')).toMatchObject({ size: 1 });
  });

  it('counts what an overwriting copy replaces against the quota', async () => {
    await st().remove(s.demo, '/a');
    await st().writeFile(s.demo, '/x.bin', Buffer.alloc(45));
    await st().writeFile(s.demo, '/y.bin', Buffer.alloc(45));
    // 90 of 100 bytes used: a 45-byte copy fits only because it replaces 45 bytes.
    await expect(st().copy(s.demo, '/x.bin', '/y.bin', { overwrite: true })).resolves.toMatchObject(
      { replaced: true },
    );
    await expect(st().copy(s.demo, '/x.bin', '/z.bin')).rejects.toMatchObject({
      kind: 'limit',
    });
    expect(await st().stat(s.demo, '/z.bin')).toBeNull();
  });

  it('refuses a stream that grows past the quota, leaving nothing and the source stream usable', async () => {
    const source = new PassThrough();
    const write = st().writeFile(s.demo, '/big.bin', source);
    source.write(Buffer.alloc(8));
    source.write(Buffer.alloc(20)); // still open, like a request whose body is not all read
    await expect(write).rejects.toMatchObject({ kind: 'limit' });
    expect(await st().stat(s.demo, '/big.bin')).toBeNull();
    // The caller still owns its stream (an HTTP request): it was not destroyed under it.
    expect(source.destroyed).toBe(false);
    expect(fs.readdirSync(path.join(s.dataDir, 'projects', s.demo, 'tmp'))).toEqual([]);
  });
});
