// Stored files over real HTTP: never active content on the API origin (download headers on
// every file response, checked in headless Chromium too), symbolic links in a project's
// files folder never followed by any storage operation, what a WebDAV PUT answers, and
// one-shot multipart uploads (`curl -F file=@x.csv`).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileIdOf } from '../src/engine/storage/paths.js';
import { writePlansFile } from './helpers/fixtures.js';
import { rawRequest, type RawResponse } from './helpers/http.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const TOKEN = 'webdav-token-for-file-safety';
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
const EVIL = '<!doctype html><title>evil</title><script>document.title = "ran"</script><p>hi</p>';

/** A request over node:http (WebDAV methods), with the project's WebDAV credentials by default. */
function request(
  s: TestServer,
  method: string,
  target: string,
  opts: { headers?: Record<string, string>; body?: string | Buffer; dav?: boolean } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.dav !== false)
    headers.authorization = `Basic ${Buffer.from(`${ADMIN}:${TOKEN}`).toString('base64')}`;
  return rawRequest(`${s.url}${target}`, { method, headers, body: opts.body });
}

async function enableWebdav(s: TestServer) {
  const r = await s.api('PUT', `/projects/${s.demo}`, { body: { webdavToken: TOKEN } });
  expect(r.status, r.text).toBe(200);
}

const dav = (s: TestServer, p = '') => `/api/v1/projects/${s.demo}/webdav${p}`;
const rest = (s: TestServer, p: string) => `/api/v1/projects/${s.demo}${p}`;
const download = (s: TestServer, storagePath: string) =>
  rest(s, `/storage/list/${fileIdOf(storagePath)}/download`);

/** Posts a multipart body as the admin. */
async function postForm(s: TestServer, form: FormData, query = '') {
  const res = await fetch(`${s.url}${rest(s, '/storage/upload')}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await s.token(ADMIN)}`, accept: 'application/json' },
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

function expectInert(headers: http.IncomingHttpHeaders, name: string) {
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['content-security-policy']).toMatch(/(^|;)\s*sandbox\s*(;|$)/);
  expect(headers['content-security-policy']).toContain("default-src 'none'");
  const cd = headers['content-disposition'] ?? '';
  expect(cd).toMatch(/^attachment;/);
  const exact = /filename\*=UTF-8''([^;]+)/.exec(cd);
  expect(exact, cd).not.toBeNull();
  expect(decodeURIComponent(exact![1]!)).toBe(name);
  // RFC 5987 attr-char: nothing a parser could split on is left raw.
  expect(exact![1]).not.toMatch(/['()*" ;]/);
  expect(cd).toMatch(/filename="[\x20-\x7e]*"/);
}

describe('stored files are never active content', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await enableWebdav(s);
    const put = await request(s, 'PUT', dav(s, '/evil.html'), { body: EVIL });
    expect(put.status, put.text).toBe(201);
  });
  afterAll(() => s?.close());

  it('WebDAV GET and HEAD answer a download that is never sniffed or run', async () => {
    for (const method of ['GET', 'HEAD']) {
      const r = await request(s, method, dav(s, '/evil.html'));
      expect(r.status).toBe(200);
      expectInert(r.headers, 'evil.html');
    }
    const ranged = await request(s, 'GET', dav(s, '/evil.html'), {
      headers: { range: 'bytes=0-9' },
    });
    expect(ranged.status).toBe(206);
    expectInert(ranged.headers, 'evil.html');
  });

  it('the REST download answers the same', async () => {
    const r = await s.api('GET', download(s, '/evil.html'));
    expect(r.status).toBe(200);
    expect(r.text).toBe(EVIL);
    expectInert(Object.fromEntries(r.headers), 'evil.html');
  });

  it('names any file exactly (RFC 6266 filename*) with a plain ASCII fallback', async () => {
    const name = `ré"sumé (1)'; x*.html`;
    const put = await request(s, 'PUT', dav(s, `/${encodeURIComponent(name)}`), { body: EVIL });
    expect(put.status, put.text).toBe(201);
    expectInert((await request(s, 'GET', dav(s, `/${encodeURIComponent(name)}`))).headers, name);
    const r = await s.api('GET', download(s, `/${name}`));
    expectInert(Object.fromEntries(r.headers), name);
  });

  it('the WebDAV folder listing is a page that runs nothing', async () => {
    const mk = await request(s, 'MKCOL', dav(s, '/%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E/'));
    expect(mk.status, mk.text).toBe(201);
    const r = await request(s, 'GET', dav(s, '/'));
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toContain("default-src 'none'");
    expect(r.headers['content-security-policy']).not.toContain('script-src');
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    // A user's file name is text in the page, never markup.
    expect(r.text).toContain('&lt;img src=x onerror=alert(1)&gt;/');
    expect(r.text).not.toContain('<img');
  });

  describe.skipIf(!haveChromium && process.env.CI !== 'true')('in headless Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic'],
      });
    });
    afterAll(() => browser?.close());

    /** Opens `url` and reports whether the page rendered, and whether its script ran. */
    async function open(url: string, strip: string[], headers: Record<string, string>) {
      const context = await browser.newContext({ extraHTTPHeaders: headers });
      const page = await context.newPage();
      // A proxy that drops headers: shows which header alone keeps the script inert.
      await page.route('**/*', async (route) => {
        const response = await route.fetch();
        const kept = Object.fromEntries(
          Object.entries(response.headers()).filter(([k]) => !strip.includes(k)),
        );
        await route.fulfill({ response, headers: kept });
      });
      let downloaded = false;
      page.on('download', () => (downloaded = true));
      await page.goto(url).catch(() => undefined); // a download aborts the navigation
      const title = downloaded ? '' : await page.title();
      await context.close();
      return { downloaded, ran: title === 'ran', rendered: title !== '' };
    }

    const auth = () => ({
      authorization: `Basic ${Buffer.from(`${ADMIN}:${TOKEN}`).toString('base64')}`,
    });

    it('opening it over WebDAV or REST downloads it: the script does not run', async () => {
      const viaDav = await open(`${s.url}${dav(s, '/evil.html')}`, [], auth());
      expect(viaDav).toMatchObject({ downloaded: true, ran: false });
      const bearer = { authorization: `Bearer ${await s.token(ADMIN)}` };
      const viaRest = await open(`${s.url}${download(s, '/evil.html')}`, [], bearer);
      expect(viaRest).toMatchObject({ downloaded: true, ran: false });
    });

    it('rendered anyway (no Content-Disposition), the sandbox keeps the script from running', async () => {
      const rendered = await open(
        `${s.url}${dav(s, '/evil.html')}`,
        ['content-disposition'],
        auth(),
      );
      expect(rendered).toEqual({ downloaded: false, ran: false, rendered: true });
      // Without our headers the same page does run its script: the check above can fail.
      const bare = await open(
        `${s.url}${dav(s, '/evil.html')}`,
        ['content-disposition', 'content-security-policy', 'x-content-type-options'],
        auth(),
      );
      expect(bare).toEqual({ downloaded: false, ran: true, rendered: true });
    });
  });
});

describe('storage never follows symbolic links', () => {
  let s: TestServer;
  let files: string;
  let outside: string;
  const SECRET = 'secret outside the project\n';

  beforeAll(async () => {
    s = await startTestServer();
    await enableWebdav(s);
    await rawStorage(s.engine).ensureRoot(s.demo);
    files = rawStorage(s.engine).root(s.demo);
    outside = path.join(s.dataDir, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.csv'), SECRET);
    fs.writeFileSync(path.join(outside, 'big.bin'), Buffer.alloc(50_000));
    fs.writeFileSync(path.join(files, 'real.csv'), 'a,b\n1,2\n');
    fs.mkdirSync(path.join(files, 'folder'));
    fs.writeFileSync(path.join(files, 'folder', 'inside.csv'), 'x\n');
    fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(files, 'out.csv'));
    fs.symlinkSync(path.join(outside, 'big.bin'), path.join(files, 'folder', 'big.bin'));
    fs.symlinkSync(path.join(files, 'real.csv'), path.join(files, 'in.csv'));
    fs.symlinkSync(outside, path.join(files, 'outdir'));
  });
  afterAll(() => s?.close());

  /** Nothing outside changed: the secret is as it was, nothing new appeared. */
  function expectOutsideUntouched() {
    expect(fs.readFileSync(path.join(outside, 'secret.csv'), 'utf8')).toBe(SECRET);
    expect(fs.readdirSync(outside).sort()).toEqual(['big.bin', 'secret.csv']);
  }

  function expectRefused(r: { status: number; text: string }, at: string) {
    expect(r.status, r.text).toBe(403);
    const body = JSON.parse(r.text);
    expect(body.message).toMatch(/symbolic link/);
    expect(body.context.refused).toBe(at);
  }

  it('listings leave links out (REST list, WebDAV PROPFIND)', async () => {
    const list = await s.api('GET', rest(s, '/storage/list'));
    expect(list.json.items.map((i: { name: string }) => i.name)).toEqual(['folder', 'real.csv']);
    const sub = await s.api('GET', rest(s, `/storage/list/${fileIdOf('/folder')}`));
    expect(sub.json.items.map((i: { name: string }) => i.name)).toEqual(['inside.csv']);
    const find = await request(s, 'PROPFIND', dav(s, '/'), { headers: { depth: '1' } });
    expect(find.status).toBe(207);
    expect(find.text).toContain('real.csv');
    for (const name of ['out.csv', 'in.csv', 'outdir']) expect(find.text).not.toContain(name);
    const deep = await request(s, 'PROPFIND', dav(s, '/folder/'), { headers: { depth: '1' } });
    expect(deep.text).not.toContain('big.bin');
  });

  it('reads of a link or through one are refused (REST, WebDAV GET and PROPFIND)', async () => {
    const cases: [string, string][] = [
      ['/out.csv', '/out.csv'],
      ['/in.csv', '/in.csv'],
      ['/outdir/secret.csv', '/outdir'],
    ];
    for (const [p, at] of cases) {
      expectRefused(await request(s, 'GET', dav(s, p)), at);
      expectRefused(await request(s, 'PROPFIND', dav(s, p), { headers: { depth: '0' } }), at);
      expectRefused(await s.api('GET', download(s, p)), at);
      expectRefused(await s.api('GET', rest(s, `/storage/list/${fileIdOf(p)}`)), at);
    }
    expectRefused(await s.api('GET', rest(s, `/storage/list/${fileIdOf('/outdir')}`)), '/outdir');
  });

  it('writes to a link or through one are refused and change nothing outside', async () => {
    expectRefused(await request(s, 'PUT', dav(s, '/out.csv'), { body: 'overwritten' }), '/out.csv');
    expectRefused(
      await request(s, 'PUT', dav(s, '/outdir/new.csv'), { body: 'planted' }),
      '/outdir',
    );
    expectRefused(await request(s, 'MKCOL', dav(s, '/outdir/sub')), '/outdir');
    // Chunked upload into a linked folder, and one-shot uploads onto a link or into one.
    const q = new URLSearchParams({
      resumableChunkNumber: '1',
      resumableChunkSize: '7',
      resumableTotalSize: '7',
      resumableTotalChunks: '1',
      resumableIdentifier: 'through-link',
      resumableFilename: 'new.csv',
      resumableRelativePath: 'outdir/new.csv',
    });
    const chunk = await fetch(`${s.url}${rest(s, '/storage/upload')}?${q}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/octet-stream',
      },
      body: 'planted',
    });
    expectRefused({ status: chunk.status, text: await chunk.text() }, '/outdir');
    const onto = new FormData();
    onto.append('file', new Blob(['overwritten']), 'out.csv');
    expectRefused(await postForm(s, onto), '/out.csv');
    const into = new FormData();
    into.append('folder', '/outdir');
    into.append('file', new Blob(['planted']), 'new.csv');
    expectRefused(await postForm(s, into), '/outdir');
    const mkdir = await s.api('POST', rest(s, '/storage/list'), {
      body: { folder: '/outdir/sub' },
    });
    expectRefused(mkdir, '/outdir');
    expectOutsideUntouched();
  });

  it('copy, move and delete refuse a link as source or as the way to the target', async () => {
    const dest = (p: string) => ({ destination: `${s.url}${dav(s, p)}` });
    expectRefused(
      await request(s, 'COPY', dav(s, '/out.csv'), { headers: dest('/c.csv') }),
      '/out.csv',
    );
    expectRefused(
      await request(s, 'MOVE', dav(s, '/in.csv'), { headers: dest('/m.csv') }),
      '/in.csv',
    );
    expectRefused(
      await request(s, 'COPY', dav(s, '/real.csv'), { headers: dest('/outdir/c.csv') }),
      '/outdir',
    );
    expectRefused(
      await s.api('POST', rest(s, '/storage/move'), {
        body: { source: '/real.csv', target: '/outdir/real.csv' },
      }),
      '/outdir',
    );
    expectRefused(
      await s.api('POST', rest(s, '/storage/move'), {
        body: { source: '/out.csv', target: '/x.csv' },
      }),
      '/out.csv',
    );
    expectRefused(await request(s, 'DELETE', dav(s, '/out.csv')), '/out.csv');
    expectRefused(
      await s.api('DELETE', rest(s, `/storage/list/${fileIdOf('/outdir')}`)),
      '/outdir',
    );
    expect(fs.lstatSync(path.join(files, 'out.csv')).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(files, 'real.csv'))).toBe(true);
    expectOutsideUntouched();
  });

  it('a copied folder leaves its links behind; a deleted one removes only its links', async () => {
    const copy = await request(s, 'COPY', dav(s, '/folder/'), {
      headers: { destination: `${s.url}${dav(s, '/copied/')}` },
    });
    expect(copy.status, copy.text).toBe(201);
    expect(fs.readdirSync(path.join(files, 'copied'))).toEqual(['inside.csv']);
    const del = await request(s, 'DELETE', dav(s, '/copied/'));
    expect(del.status).toBe(204);
    fs.mkdirSync(path.join(files, 'doomed'));
    fs.symlinkSync(outside, path.join(files, 'doomed', 'outdir'));
    fs.symlinkSync(path.join(outside, 'secret.csv'), path.join(files, 'doomed', 'secret.csv'));
    const rm = await s.api('DELETE', rest(s, `/storage/list/${fileIdOf('/doomed')}`));
    expect(rm.status, rm.text).toBe(204);
    expect(fs.existsSync(path.join(files, 'doomed'))).toBe(false);
    expectOutsideUntouched();
  });

  it('the storageBytes walk counts no linked file', async () => {
    const real = 'a,b\n1,2\n'.length + 'x\n'.length;
    expect((await rawStorage(s.engine).quota(s.demo)).used).toBe(real);
    const stats = await s.api('GET', rest(s, '/storage/list?withStats=1'));
    expect(stats.json.item.size).toBe(real);
  });

  it('a load or structure guess of a link is refused', async () => {
    expectRefused(
      await s.api('GET', rest(s, `/data/guessupload/${fileIdOf('/out.csv')}`)),
      '/out.csv',
    );
    const load = await s.api('POST', rest(s, '/kodiak/transform/execute'), {
      body: {
        type: 'cluster',
        clusters: { sales: { source_type: 'webdav', source: '/outdir/secret.csv' } },
      },
    });
    expectRefused(load, '/outdir');
  });
});

describe('WebDAV PUT answers with something to go on', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
    await enableWebdav(s);
  });
  afterAll(() => s?.close());

  it('201 with Location and the file, its fileId and the structure-guess link', async () => {
    await request(s, 'MKCOL', dav(s, '/in'));
    const r = await request(s, 'PUT', dav(s, '/in/sales.csv'), { body: 'id,amount\n1,2.5\n2,3\n' });
    expect(r.status, r.text).toBe(201);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const fileId = fileIdOf('/in/sales.csv');
    const body = JSON.parse(r.text);
    expect(body).toMatchObject({
      uploadId: fileId,
      file: { fileId, path: '/in/sales.csv', type: 'file', size: 20 },
    });
    expect(body.link.map((l: { rel: string }) => l.rel)).toEqual([
      'file',
      'download',
      'guessupload',
    ]);
    expect(r.headers.location).toBe(`/api/v1/projects/${s.demo}/storage/list/${fileId}`);
    const guess = body.link.find((l: { rel: string }) => l.rel === 'guessupload').href;
    const g = await s.api('GET', guess);
    expect(g.status, g.text).toBe(200);
    expect(g.json.prescription.columns.map((c: { id: string }) => c.id)).toEqual(['id', 'amount']);
    const details = await s.api('GET', r.headers.location!);
    expect(details.json.item.fileId).toBe(fileId);
    // Replacing it stays a plain 204.
    const again = await request(s, 'PUT', dav(s, '/in/sales.csv'), { body: 'id\n1\n' });
    expect(again.status).toBe(204);
    expect(again.text).toBe('');
  });
});

describe('one-shot multipart upload', () => {
  const plans = writePlansFile({ storageBytes: 10_000 });
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ URSA_PLANS_FILE: plans.file });
  });
  afterAll(async () => {
    await s?.close();
    plans.remove();
  });

  it('stores a single file part whole, answered like a finished chunked upload', async () => {
    const data = 'order_id,amount\n1,19.90\n2,5.00\n';
    const form = new FormData();
    form.append('file', new Blob([data]), 'orders.csv');
    const r = await postForm(s, form);
    expect(r.status, r.text).toBe(201);
    const fileId = fileIdOf('/orders.csv');
    expect(r.json).toMatchObject({
      uploadId: fileId,
      file: { fileId, path: '/orders.csv', size: data.length },
    });
    expect(r.json.link.map((l: { rel: string }) => l.rel)).toEqual([
      'file',
      'download',
      'guessupload',
    ]);
    expect(r.headers.get('location')).toBe(`/api/v1/projects/${s.demo}/storage/list/${fileId}`);
    expect(fs.readFileSync(rawStorage(s.engine).abs(s.demo, '/orders.csv'), 'utf8')).toBe(data);
    const g = await s.api('GET', rest(s, `/data/guessupload/${r.json.uploadId}`));
    expect(g.status, g.text).toBe(200);
  });

  it('works from curl -F, into `folder` given as a field or in the query', async () => {
    const dir = fs.mkdtempSync(path.join(s.dataDir, 'curl-'));
    const file = path.join(dir, 'x.csv');
    fs.writeFileSync(file, 'a\n1\n');
    await s.api('POST', rest(s, '/storage/list'), { body: { folder: '/in' } });
    const curl = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)('curl', [
        '-sS',
        '-H',
        `Authorization: Bearer ${await s.token(ADMIN)}`,
        '-w',
        '\n%{http_code}',
        ...args,
      ]);
      const [text, code] = [
        stdout.slice(0, stdout.lastIndexOf('\n')),
        stdout.slice(stdout.lastIndexOf('\n') + 1),
      ];
      return { status: Number(code), json: JSON.parse(text) };
    };
    const plain = await curl('-F', `file=@${file}`, `${s.url}${rest(s, '/storage/upload')}`);
    expect(plain.status).toBe(201);
    expect(plain.json.file.path).toBe('/x.csv');
    const field = await curl(
      '-F',
      'folder=/in',
      '-F',
      `file=@${file}`,
      `${s.url}${rest(s, '/storage/upload')}`,
    );
    expect(field.json.file.path).toBe('/in/x.csv');
    const query = await curl(
      '-F',
      `file=@${file};filename=y.csv`,
      `${s.url}${rest(s, '/storage/upload')}?folder=/in`,
    );
    expect(query.json.file.path).toBe('/in/y.csv');
  });

  it('refuses a field after the file part (it could not be honoured) and stores nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob(['a\n1\n']), 'late.csv');
    form.append('folder', '/in');
    const r = await postForm(s, form);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/before the `file` part/);
    expect(r.json.context.after).toEqual(['folder']);
    expect(await rawStorage(s.engine).stat(s.demo, '/late.csv')).toBeNull();
    expect(await rawStorage(s.engine).stat(s.demo, '/in/late.csv')).toBeNull();
  });

  it('a file over the plan limit is refused with 402, leaving nothing', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(20_000, 65)]), 'huge.csv');
    const r = await postForm(s, form);
    expect(r.status, r.text).toBe(402);
    expect(await rawStorage(s.engine).stat(s.demo, '/huge.csv')).toBeNull();
    expect(fs.readdirSync(path.join(s.dataDir, 'projects', s.demo, 'tmp'))).toEqual([]);
  });

  it('names exactly the resumable parameters missing from a partial chunk request', async () => {
    const form = new FormData();
    form.append('resumableIdentifier', 'half');
    form.append('resumableChunkNumber', '1');
    form.append('file', new Blob(['abc']), 'half.csv');
    const r = await postForm(s, form);
    expect(r.status, r.text).toBe(400);
    const missing = [
      'resumableChunkSize',
      'resumableTotalSize',
      'resumableTotalChunks',
      'resumableFilename',
    ];
    expect(r.json.context.missing).toEqual(missing);
    expect(r.json.message).toContain(`missing ${missing.join(', ')}`);
    // A raw body has no file name to go on: every parameter it lacks is named.
    const octet = await fetch(`${s.url}${rest(s, '/storage/upload')}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/octet-stream',
      },
      body: 'abc',
    });
    const o = (await octet.json()) as { context: { missing: string[] } };
    expect(octet.status).toBe(400);
    expect(o.context.missing).toEqual([
      'resumableChunkNumber',
      ...missing.slice(0, 3),
      'resumableIdentifier',
      'resumableFilename',
    ]);
  });

  it('refuses a `file` part that is plain text, a bad folder or a missing one', async () => {
    const noName = new FormData();
    noName.append('file', 'just text');
    const r = await postForm(s, noName);
    expect(r.status, r.text).toBe(400);
    expect(r.json.message).toMatch(/text, not a file/);
    const bad = new FormData();
    bad.append('folder', '/../etc');
    bad.append('file', new Blob(['x']), 'x.csv');
    const b = await postForm(s, bad);
    expect(b.status, b.text).toBe(400);
    expect(b.json.context.issues[0].path).toBe('folder');
    const missingFolder = new FormData();
    missingFolder.append('folder', '/nowhere');
    missingFolder.append('file', new Blob(['x']), 'x.csv');
    expect((await postForm(s, missingFolder)).status).toBe(409);
  });
});
