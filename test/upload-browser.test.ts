// The real resumable.js (node_modules/resumablejs) in headless Chromium against a real Ursa:
// a few MB in 256 KB chunks, 3 at a time, testChunks on. One chunk request fails the first
// time (the library retries it); the first session stops part-way and a second one, as after
// a browser restart, resumes the same file: test-chunk finds what is stored and only the
// rest is sent. The assembled file must be byte-identical to the source.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';
if (!haveChromium && !inCi)
  console.warn(
    `upload-browser.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)`,
  );

const root = fileURLToPath(new URL('..', import.meta.url));
const RESUMABLE_JS = path.join(root, 'node_modules/resumablejs/resumable.js');
const ARTIFACTS = path.join(root, 'test/artifacts');

const SIZE = 3 * 1024 * 1024 + 12_345;
const CHUNK = 256 * 1024;
/** resumable.js rounds down: the last chunk takes the rest (here more than one chunk size). */
const TOTAL_CHUNKS = Math.floor(SIZE / CHUNK);
const IDENT = 'browser-upload-1';
const FOLDER = '/browser';
const FAIL_CHUNK = 3;
/** The first session stores this many chunks, then "the browser closes". */
const STOP_AFTER = 5;

/** The same deterministic bytes as the page builds (see PAGE_SCRIPT). */
function sourceBytes(): Buffer {
  const b = Buffer.alloc(SIZE);
  for (let i = 0; i < SIZE; i++) b[i] = (i * 31 + 17 + (i >> 8)) % 251;
  return b;
}

// Runs in the page (kept as text: the test's TypeScript has no DOM types).
const PAGE_SCRIPT = `
window.ursaFile = (function () {
  var b = new Uint8Array(${SIZE});
  for (var i = 0; i < b.length; i++) b[i] = (i * 31 + 17 + (i >> 8)) % 251;
  return new File([b], 'big.bin', { type: 'application/octet-stream' });
})();
/** One upload session with a fresh Resumable, as a new page load would make. With stopAfter,
 * chunks past that number are held back (preprocess never finishes them) and the promise
 * resolves once the first ones are stored: a browser closed mid-upload. */
window.ursaSession = function (o) {
  return new Promise(function (resolve) {
    var retries = 0, stopped = false;
    var r = new Resumable({
      target: o.target,
      chunkSize: ${CHUNK},
      testChunks: true,
      simultaneousUploads: 3,
      headers: { Authorization: 'Bearer ' + o.token, Accept: 'application/json' },
      query: { folder: o.folder },
      generateUniqueIdentifier: function () { return o.ident; },
      chunkRetryInterval: 100,
      maxChunkRetries: 5,
      preprocess: o.stopAfter ? function (chunk) {
        if (chunk.offset < o.stopAfter) chunk.preprocessFinished();
      } : null
    });
    r.on('fileRetry', function () { retries++; });
    r.on('fileSuccess', function (f, message) { resolve({ done: true, message: message, retries: retries }); });
    r.on('fileError', function (f, message) { resolve({ done: false, error: message, retries: retries }); });
    r.on('fileProgress', function (file) {
      if (!o.stopAfter || stopped) return;
      var stored = file.chunks.filter(function (c) { return c.status() === 'success'; }).length;
      if (stored === o.stopAfter) { stopped = true; resolve({ done: false, stopped: true, retries: retries }); }
    });
    r.on('filesAdded', function () { r.upload(); });
    r.addFile(window.ursaFile);
  });
};
`;

interface SessionResult {
  done: boolean;
  stopped?: boolean;
  message?: string;
  error?: string;
  retries: number;
}

interface Seen {
  session: number;
  method: string;
  chunk: number;
  /** null until answered. */
  status: number | 'failed' | null;
}

describe.skipIf(!haveChromium && !inCi)('resumable.js in headless Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const seen: Seen[] = [];
  let session = 1;

  beforeAll(async () => {
    if (!haveChromium)
      throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
    s = await startTestServer();
    await rawStorage(s.engine).mkdir(s.demo, FOLDER);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    });
    // The test injects resumable.js and its driver into a same-origin page of ours; every page
    // of ours forbids inline scripts (CSP), so this harness, not the product, bypasses it.
    page = await browser.newPage({ viewport: { width: 900, height: 500 }, bypassCSP: true });
    const chunkOf = (url: string) => Number(new URL(url).searchParams.get('resumableChunkNumber'));
    // Tagged with the session when sent; the answer is filled in when it comes.
    const entries = new Map<Request, Seen>();
    page.on('request', (req) => {
      if (!req.url().includes('/storage/upload?')) return;
      const e: Seen = { session, method: req.method(), chunk: chunkOf(req.url()), status: null };
      entries.set(req, e);
      seen.push(e);
    });
    page.on('requestfinished', async (req) => {
      const e = entries.get(req);
      if (e) e.status = (await req.response())?.status() ?? 0;
    });
    page.on('requestfailed', (req) => {
      const e = entries.get(req);
      if (e) e.status = 'failed';
    });
    // The forced failure: the first POST of one chunk never reaches the server.
    let failed = false;
    await page.route('**/storage/upload?**', (route) => {
      const req = route.request();
      if (!failed && req.method() === 'POST' && chunkOf(req.url()) === FAIL_CHUNK) {
        failed = true;
        return route.abort('failed');
      }
      return route.continue();
    });
    // Same origin as the API, so the page needs no CORS: the API index, then our script.
    await page.goto(`${s.url}/api/v1`);
    await page.addScriptTag({ path: RESUMABLE_JS });
    await page.addScriptTag({ content: PAGE_SCRIPT });
  });

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('uploads, survives a failed chunk and a restart, and stores the exact bytes', async () => {
    const run = async (stopAfter: number | null): Promise<SessionResult> =>
      (await page.evaluate(
        `ursaSession(${JSON.stringify({
          target: `/api/v1/projects/${s.demo}/storage/upload`,
          token: await s.token(ADMIN),
          folder: FOLDER,
          ident: IDENT,
          stopAfter,
        })})`,
      )) as SessionResult;
    /** The requests of session n, once all of them are answered. */
    const requestsOf = async (n: number) => {
      await vi.waitFor(() => expect(seen.filter((e) => e.status === null)).toEqual([]));
      return seen.filter((e) => e.session === n);
    };
    const numbers = (list: Seen[]) => [...new Set(list.map((e) => e.chunk))].sort((a, b) => a - b);

    const first = await run(STOP_AFTER);
    expect(first, JSON.stringify(first)).toMatchObject({ done: false, stopped: true });
    expect(first.retries, 'the aborted chunk was retried').toBeGreaterThanOrEqual(1);
    const one = await requestsOf(1);
    const failedPost = one.filter((e) => e.method === 'POST' && e.status === 'failed');
    expect(numbers(failedPost)).toEqual([FAIL_CHUNK]);
    const stored = numbers(one.filter((e) => e.method === 'POST' && e.status === 200));
    expect(stored).toEqual([1, 2, 3, 4, 5]);

    session = 2;
    const second = await run(null);
    expect(second, JSON.stringify(second)).toMatchObject({ done: true });
    const reply = JSON.parse(second.message!);
    expect(reply).toMatchObject({
      uploadId: IDENT,
      file: { path: `${FOLDER}/big.bin`, type: 'file', size: SIZE },
    });

    // The restart asked before sending: stored chunks answered 200 and were not sent again.
    const two = await requestsOf(2);
    const tests = two.filter((e) => e.method === 'GET');
    expect(numbers(tests)).toHaveLength(TOTAL_CHUNKS);
    expect(numbers(tests.filter((e) => e.status === 200))).toEqual(stored);
    const posts = two.filter((e) => e.method === 'POST');
    const missing = Array.from({ length: TOTAL_CHUNKS }, (_, i) => i + 1).filter(
      (n) => !stored.includes(n),
    );
    expect(numbers(posts)).toEqual(missing);
    expect(posts).toHaveLength(missing.length);
    expect(posts.filter((e) => e.status === 201)).toHaveLength(1);

    const onDisk = fs.readFileSync(
      path.join(s.dataDir, 'projects', s.demo, 'files', 'browser', 'big.bin'),
    );
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(onDisk.length).toBe(SIZE);
    expect(sha(onDisk)).toBe(sha(sourceBytes()));
    expect(fs.existsSync(path.join(s.dataDir, 'projects', s.demo, 'uploads', IDENT))).toBe(false);

    // What a person would see: the result on the page, kept as an artifact.
    await page.evaluate(`(function (r) {
      document.body.innerHTML = '<h1>resumable.js upload</h1><pre id="r" style="max-height:none;overflow:visible"></pre>';
      document.getElementById('r').textContent = JSON.stringify(r, null, 2);
    })(${JSON.stringify({
      uploadId: reply.uploadId,
      path: reply.file.path,
      size: reply.file.size,
      sha256: sha(onDisk),
      chunks: TOTAL_CHUNKS,
      failedOnceThenRetried: FAIL_CHUNK,
      storedBeforeRestart: stored.join(' '),
      sentAfterRestart: missing.join(' '),
    })})`);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, 'upload-browser.png');
    await page.screenshot({ path: shot });
    expect(fs.statSync(shot).size).toBeGreaterThan(1000);
  }, 120_000);
});
