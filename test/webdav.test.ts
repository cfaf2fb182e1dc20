// WebDAV over real HTTP: the litmus compliance suite, a second real client (the `webdav` npm
// package), and focused checks of paths, credentials, levels, plan limits, dead properties,
// locks and the storage change hook.
import { sql } from 'drizzle-orm';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'webdav';
import type { StorageChange } from '../src/engine/storage/storage.js';
import { writePlansFile } from './helpers/fixtures.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const TOKEN = 'webdav-token-for-tests-1';
const LITMUS = '/usr/bin/litmus';
const LITMUS_SUITES = ['basic', 'copymove', 'props', 'locks', 'http'];

interface DavResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * A request over node:http with the path sent exactly as given: fetch and URL parsing would
 * resolve "..", "%2e%2e" and friends before the server ever saw them.
 */
function dav(
  s: TestServer,
  method: string,
  rawPath: string,
  opts: { user?: string; password?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<DavResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.user !== undefined || opts.password !== undefined) {
    const cred = `${opts.user ?? ADMIN}:${opts.password ?? TOKEN}`;
    headers.authorization = `Basic ${Buffer.from(cred).toString('base64')}`;
  }
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: new URL(s.url).port, method, path: rawPath, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const asAdmin = { user: ADMIN, password: TOKEN };
const root = (s: TestServer) => `/api/v1/projects/${s.demo}/webdav`;

async function enableWebdav(s: TestServer): Promise<void> {
  const r = await s.api('PUT', `/projects/${s.demo}`, { body: { webdavToken: TOKEN } });
  expect(r.status, r.text).toBe(200);
}

/** Every file name anywhere below a directory. */
function allNames(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .map((e) => e.name)
    .filter(Boolean);
}

describe('WebDAV', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
    await enableWebdav(s);
  });
  afterAll(async () => {
    await s.close();
  });

  describe('litmus compliance suite', () => {
    const installed = fs.existsSync(LITMUS);
    const onCi = process.env.CI === 'true';
    if (!installed && !onCi)
      console.warn(
        'skipping the litmus WebDAV suite: litmus is not installed (apt-get install litmus)',
      );
    const run = installed || onCi ? it : it.skip;

    run(
      `passes ${LITMUS_SUITES.join(', ')}${installed ? '' : ' (litmus missing: apt-get install litmus)'}`,
      async () => {
        if (!installed)
          throw new Error(`litmus is not installed at ${LITMUS} on CI: apt-get install litmus`);
        const mk = await dav(s, 'MKCOL', `${root(s)}/litmus`, asAdmin);
        expect(mk.status, mk.text).toBe(201);
        const url = `http://127.0.0.1:${new URL(s.url).port}${root(s)}/litmus/`;
        const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-litmus-')); // its debug.log
        const { code, output } = await new Promise<{ code: number | null; output: string }>(
          (resolve, reject) => {
            // Asynchronous: the server under test answers from this very process.
            const child = spawn(LITMUS, [url, ADMIN, TOKEN], {
              cwd,
              env: { ...process.env, TESTS: LITMUS_SUITES.join(' ') },
            });
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.stderr.on('data', (d: Buffer) => (out += d.toString()));
            child.on('error', reject);
            child.on('close', (c) => resolve({ code: c, output: out }));
          },
        );
        fs.rmSync(cwd, { recursive: true, force: true });
        const summaries = output.split('\n').filter((l) => l.startsWith('<- summary'));
        console.log(`litmus ${url}\n${summaries.join('\n')}`);
        const failures = output.split('\n').filter((l) => /\bFAIL\b/.test(l));
        expect(failures, output).toEqual([]);
        for (const suite of LITMUS_SUITES) {
          const line = summaries.find((l) => l.includes(`\`${suite}'`));
          expect(line, `no summary for ${suite}:\n${output}`).toBeDefined();
          const m = /of (\d+) tests run: (\d+) passed, (\d+) failed/.exec(line!);
          expect(m, line).not.toBeNull();
          expect(Number(m![3]), line).toBe(0);
          expect(Number(m![2]), line).toBe(Number(m![1]));
        }
        expect(code, output).toBe(0);
      },
      180_000,
    );
  });

  it('serves a second real client: the webdav npm package', async () => {
    const client = createClient(`${s.url}${root(s)}`, { username: ADMIN, password: TOKEN });
    await client.createDirectory('/client');
    await client.putFileContents('/client/a.csv', 'x,y\n1,2\n');
    const listing = (await client.getDirectoryContents('/client')) as { basename: string }[];
    expect(listing.map((e) => e.basename)).toEqual(['a.csv']);
    const stat = (await client.stat('/client/a.csv')) as {
      type: string;
      size: number;
      etag: string;
    };
    expect(stat).toMatchObject({ type: 'file', size: 8 });
    expect(stat.etag).toBeTruthy();

    await client.moveFile('/client/a.csv', '/client/b.csv');
    await client.copyFile('/client/b.csv', '/client/c.csv');
    expect(await client.exists('/client/a.csv')).toBe(false);
    expect(await client.getFileContents('/client/c.csv', { format: 'text' })).toBe('x,y\n1,2\n');
    await client.deleteFile('/client/b.csv');
    expect(await client.exists('/client/b.csv')).toBe(false);
    // The same storage as the REST API and the engine.
    expect(await rawStorage(s.engine).stat(s.demo, '/client/c.csv')).toMatchObject({ size: 8 });
    await client.deleteFile('/client');
    expect(await rawStorage(s.engine).stat(s.demo, '/client')).toBeNull();
  });

  it('refuses traversal attempts with 400 and writes nothing outside', async () => {
    for (const p of [
      '/..%2f..%2fescape.txt',
      '/..%2Fescape.txt',
      '/%2e%2e/escape.txt',
      '/a/../../escape.txt',
      '/..%5cescape.txt',
      '/escape%00.txt',
      '/%252e%252e/escape.txt',
    ]) {
      const r = await dav(s, 'PUT', `${root(s)}${p}`, { ...asAdmin, body: 'owned' });
      expect(r.status, `${p}: ${r.text}`).toBe(400);
      expect(JSON.parse(r.text)).toMatchObject({ statusCode: 400, errorId: expect.any(String) });
    }
    const mv = await dav(s, 'MOVE', `${root(s)}/litmus`, {
      ...asAdmin,
      headers: { destination: `${root(s)}/..%2f..%2fescape` },
    });
    expect(mv.status).toBe(400);
    expect(allNames(s.dataDir).filter((n) => n.includes('escape'))).toEqual([]);
  });

  it('answers 401 with a Basic challenge for missing or wrong credentials', async () => {
    const none = await dav(s, 'PROPFIND', `${root(s)}/`, { headers: { depth: '0' } });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain(`Basic realm="Ursa WebDAV ${s.demo}"`);
    expect(none.headers['www-authenticate']).toContain('Bearer');
    expect(JSON.parse(none.text)).toMatchObject({ statusCode: 401 });

    const wrong = await dav(s, 'PROPFIND', `${root(s)}/`, {
      user: ADMIN,
      password: 'not-the-token',
    });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).message).toMatch(/wrong user or WebDAV token/);

    const stranger = await dav(s, 'PROPFIND', `${root(s)}/`, {
      user: 'stranger@example.com',
      password: TOKEN,
    });
    expect(stranger.status).toBe(401);
  });

  it('needs MD Admin: a plain member is refused, an MD Admin and a bearer token get in', async () => {
    await invite(s, s.demo, 'plain@example.com');
    await invite(s, s.demo, 'md@example.com', { mdadmin: true });
    // With the right token, the answer of a wrong one: it must not confirm a guessed token.
    const plain = await dav(s, 'PROPFIND', `${root(s)}/`, {
      user: 'plain@example.com',
      password: TOKEN,
      headers: { depth: '0' },
    });
    expect(plain.status).toBe(401);
    expect(JSON.parse(plain.text).message).toMatch(/wrong user or WebDAV token/);
    const plainBearer = await dav(s, 'PROPFIND', `${root(s)}/`, {
      headers: { depth: '0', authorization: `Bearer ${await s.token('plain@example.com')}` },
    });
    expect(plainBearer.status).toBe(403);
    expect(JSON.parse(plainBearer.text)).toMatchObject({ statusCode: 403 });
    const md = await dav(s, 'PROPFIND', `${root(s)}/`, {
      user: 'md@example.com',
      password: TOKEN,
      headers: { depth: '0' },
    });
    expect(md.status).toBe(207);
    const bearer = await dav(s, 'PROPFIND', `${root(s)}/`, {
      headers: { depth: '0', authorization: `Bearer ${await s.token(ADMIN)}` },
    });
    expect(bearer.status).toBe(207);
  });

  it('keeps dead properties through MOVE and drops them with DELETE', async () => {
    const ns = 'http://example.com/ns/';
    expect((await dav(s, 'PUT', `${root(s)}/p1.txt`, { ...asAdmin, body: 'p' })).status).toBe(201);
    const patch = await dav(s, 'PROPPATCH', `${root(s)}/p1.txt`, {
      ...asAdmin,
      body: `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><e:color xmlns:e="${ns}" xml:lang="en">blue <e:b>bold</e:b></e:color></D:prop></D:set></D:propertyupdate>`,
    });
    expect(patch.status).toBe(207);
    expect(patch.text).toContain('HTTP/1.1 200 OK');

    const mv = await dav(s, 'MOVE', `${root(s)}/p1.txt`, {
      ...asAdmin,
      headers: { destination: `${s.url}${root(s)}/p2.txt` },
    });
    expect(mv.status).toBe(201);
    const propfind = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><x:color xmlns:x="${ns}"/><x:size xmlns:x="${ns}"/></D:prop></D:propfind>`;
    const moved = await dav(s, 'PROPFIND', `${root(s)}/p2.txt`, {
      ...asAdmin,
      headers: { depth: '0' },
      body: propfind,
    });
    expect(moved.status).toBe(207);
    expect(moved.text).toContain(
      `<e:color xmlns:e="${ns}" xml:lang="en">blue <e:b>bold</e:b></e:color>`,
    );
    expect(moved.text).toMatch(
      /<z:size xmlns:z="http:\/\/example.com\/ns\/"\/><\/D:prop><D:status>HTTP\/1.1 404/,
    );

    expect((await dav(s, 'DELETE', `${root(s)}/p2.txt`, asAdmin)).status).toBe(204);
    const rows = (
      await s.engine.store.rows<{ n: number }>(
        sql`select count(*) as n from dav_props where project_id = ${s.demo} and path like ${'/p%'}`,
      )
    )[0]!;
    expect(rows.n).toBe(0);
    await dav(s, 'PUT', `${root(s)}/p2.txt`, { ...asAdmin, body: 'again' });
    const fresh = await dav(s, 'PROPFIND', `${root(s)}/p2.txt`, {
      ...asAdmin,
      headers: { depth: '0' },
      body: propfind,
    });
    expect(fresh.text).not.toContain('blue');
  });

  it('refuses a protected live property without changing anything', async () => {
    await dav(s, 'PUT', `${root(s)}/prot.txt`, { ...asAdmin, body: 'p' });
    const r = await dav(s, 'PROPPATCH', `${root(s)}/prot.txt`, {
      ...asAdmin,
      body: '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getetag>x</D:getetag><o:other xmlns:o="urn:o">1</o:other></D:prop></D:set></D:propertyupdate>',
    });
    expect(r.status).toBe(207);
    expect(r.text).toContain('HTTP/1.1 403 Forbidden');
    expect(r.text).toContain('HTTP/1.1 424 Failed Dependency');
    expect(
      await s.engine.store.rows(sql`select * from dav_props where path = '/prot.txt'`),
    ).toEqual([]);
    const bad = await dav(s, 'PROPFIND', `${root(s)}/prot.txt`, {
      ...asAdmin,
      body: '<D:propfind',
    });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ statusCode: 400 });
  });

  it('locks: 423 without the token, writes with it, 409 for a wrong UNLOCK token', async () => {
    await dav(s, 'PUT', `${root(s)}/locked.txt`, { ...asAdmin, body: 'v1' });
    const lock = await dav(s, 'LOCK', `${root(s)}/locked.txt`, {
      ...asAdmin,
      headers: { timeout: 'Second-60' },
      body: '<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>tests</D:owner></D:lockinfo>',
    });
    expect(lock.status).toBe(200);
    const token = /^<(.+)>$/.exec(String(lock.headers['lock-token']))![1]!;
    expect(lock.text).toContain(token);

    const blocked = await dav(s, 'PUT', `${root(s)}/locked.txt`, { ...asAdmin, body: 'v2' });
    expect(blocked.status).toBe(423);
    expect(blocked.text).toContain('lock-token-submitted');
    const allowed = await dav(s, 'PUT', `${root(s)}/locked.txt`, {
      ...asAdmin,
      body: 'v2',
      headers: { if: `(<${token}>)` },
    });
    expect(allowed.status).toBe(204);
    const wrong = await dav(s, 'UNLOCK', `${root(s)}/locked.txt`, {
      ...asAdmin,
      headers: { 'lock-token': '<urn:uuid:00000000-0000-0000-0000-000000000000>' },
    });
    expect(wrong.status).toBe(409);
    const ok = await dav(s, 'UNLOCK', `${root(s)}/locked.txt`, {
      ...asAdmin,
      headers: { 'lock-token': `<${token}>` },
    });
    expect(ok.status).toBe(204);
  });

  it('refuses a Destination outside the project root (502) or over its own parent (409)', async () => {
    await dav(s, 'PUT', `${root(s)}/src.txt`, { ...asAdmin, body: 's' });
    for (const destination of [
      `/api/v1/projects/other-project/webdav/src.txt`,
      `http://elsewhere.example.com${root(s)}/x.txt`,
      `/api/v1/projects/${s.demo}/storage/list`,
    ]) {
      const r = await dav(s, 'COPY', `${root(s)}/src.txt`, {
        ...asAdmin,
        headers: { destination },
      });
      expect(r.status, destination).toBe(502);
    }
    await dav(s, 'MKCOL', `${root(s)}/parent`, asAdmin);
    await dav(s, 'PUT', `${root(s)}/parent/child.txt`, { ...asAdmin, body: 'c' });
    const overParent = await dav(s, 'MOVE', `${root(s)}/parent/child.txt`, {
      ...asAdmin,
      headers: { destination: `${root(s)}/parent/`, overwrite: 'T' },
    });
    expect(overParent.status).toBe(409);
    expect(await rawStorage(s.engine).stat(s.demo, '/parent/child.txt')).not.toBeNull();
  });

  it('announces a file PUT over WebDAV through the storage change hook', async () => {
    const changes: StorageChange[] = [];
    rawStorage(s.engine).onChange((c) => {
      changes.push(c);
    });
    const r = await dav(s, 'PUT', `${root(s)}/hooked.csv`, { ...asAdmin, body: 'a,b\n' });
    expect(r.status).toBe(201);
    expect(changes).toContainEqual(
      expect.objectContaining({
        projectId: s.demo,
        path: '/hooked.csv',
        kind: 'created',
        type: 'file',
        user: ADMIN,
      }),
    );
  });
});

describe('WebDAV and the plan storage limit', () => {
  const plans = writePlansFile({ storageBytes: 1000 });
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ URSA_PLANS_FILE: plans.file });
    await enableWebdav(s);
  });
  afterAll(async () => {
    await s.close();
    plans.remove();
  });

  it('answers 402 for a PUT over storageBytes and writes nothing', async () => {
    const r = await dav(s, 'PUT', `${root(s)}/big.bin`, { ...asAdmin, body: 'x'.repeat(2000) });
    expect(r.status).toBe(402);
    expect(JSON.parse(r.text)).toMatchObject({
      statusCode: 402,
      context: { limit: 'storageBytes' },
    });
    expect(await rawStorage(s.engine).stat(s.demo, '/big.bin')).toBeNull();
    const projectDir = path.dirname(rawStorage(s.engine).root(s.demo));
    expect(allNames(projectDir).filter((n) => n.startsWith('big') || n.endsWith('.part'))).toEqual(
      [],
    );
    const small = await dav(s, 'PUT', `${root(s)}/small.bin`, {
      ...asAdmin,
      body: 'x'.repeat(500),
    });
    expect(small.status).toBe(201);
  });
});
