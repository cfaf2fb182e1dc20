// PDF export over real HTTP (SHARING.md "Export to PDF"): `app/export/html` and
// `app/export/url` answer PDF files that poppler reads back (text, page size, margins, scale,
// document information, pixels); every bad option is a 400 naming it; nothing the HTML asks
// for ever reaches the network (a loopback bait server counts connections and requests), and
// `export/url` takes pages of this site only. The renderer's queue, time limit, crash recovery
// and shutdown are checked on the engine's Exports directly. Needs Chromium and poppler-utils:
// under CI=true a missing one fails, elsewhere the rendering cases are skipped with a note.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectActor } from '../src/engine/access/actor.js';
import { EngineError } from '../src/engine/errors.js';
import { Exports } from '../src/engine/export/exports.js';
import { startBaitServer, BAIT_TEXT, type BaitServer } from './helpers/bait-server.js';
import { rawRequest } from './helpers/http.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';
import { rawStorage } from './helpers/storage.js';

const CHROMIUM = '/usr/bin/chromium';
const TOOLS = ['pdftotext', 'pdfinfo', 'pdftoppm'];
const MISSING = [
  ...(fs.existsSync(CHROMIUM) ? [] : [`Chromium at ${CHROMIUM} (apt-get install chromium)`]),
  ...TOOLS.filter((t) => spawnSync(t, ['-v']).error).map(
    (t) => `${t} (apt-get install poppler-utils)`,
  ),
];
const inCi = process.env.CI === 'true';
const canRender = MISSING.length === 0 || inCi;
if (!canRender) console.warn(`PDF rendering tests skipped: install ${MISSING.join(', ')}`);

const MEMBER = 'export-member@example.com';
const OUTSIDER = 'export-outsider@example.com';

interface PdfResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- error bodies
  json: any;
}

let s: TestServer;
let bait: BaitServer;
let work: string;
let project: string;

beforeAll(async () => {
  s = await startTestServer();
  project = s.demo;
  bait = await startBaitServer();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-export-'));
  await invite(s, project, MEMBER);
}, 60_000);

afterAll(async () => {
  // Closing the server closes the engine, which closes its Chromium.
  const browser = s ? await browserOf(s.engine.exports) : null;
  await s?.close();
  if (browser) expect(browser.isConnected()).toBe(false);
  await bait?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function post(
  route: 'html' | 'url',
  body: unknown,
  opts: {
    accept?: string | null;
    as?: string;
    query?: string;
    project?: string;
    /** Another server than the suite's. */
    server?: TestServer;
  } = {},
): Promise<PdfResponse> {
  const server = opts.server ?? s;
  const headers: Record<string, string> = {
    authorization: `Bearer ${await server.token(opts.as ?? ADMIN)}`,
    'content-type': 'application/json',
  };
  if (opts.accept !== null) headers.accept = opts.accept ?? 'application/pdf';
  const res = await fetch(
    `${server.url}/api/v1/projects/${opts.project ?? server.demo}/app/export/${route}${opts.query ?? ''}`,
    { method: 'POST', headers, body: JSON.stringify(body) },
  );
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: unknown;
  if ((res.headers.get('content-type') ?? '').startsWith('application/json'))
    json = JSON.parse(bytes.toString('utf8'));
  return { status: res.status, headers: res.headers, bytes, json };
}

let n = 0;
function saved(pdf: Buffer): string {
  n += 1;
  const file = path.join(work, `export-${n}.pdf`);
  fs.writeFileSync(file, pdf);
  return file;
}

/** pdfinfo's fields. */
function info(pdf: Buffer): Record<string, string> {
  const out = execFileSync('pdfinfo', ['-isodates', saved(pdf)], { encoding: 'utf8' });
  return Object.fromEntries(
    out
      .split('\n')
      .map((l) => /^([^:]+):\s*(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!.trim(), m[2]!.trim()]),
  );
}

/** Width and height of page 1 in points. */
function pageSize(pdf: Buffer): [number, number] {
  const m = /^([\d.]+) x ([\d.]+) pts/.exec(info(pdf)['Page size'] ?? '');
  if (!m) throw new Error(`no page size in ${JSON.stringify(info(pdf))}`);
  return [Number(m[1]), Number(m[2])];
}

const text = (pdf: Buffer): string =>
  execFileSync('pdftotext', ['-layout', saved(pdf), '-'], { encoding: 'utf8' });

/** The first box of `word` on page 1, in points (pdftotext -bbox). */
function wordBox(pdf: Buffer, word: string) {
  const out = execFileSync('pdftotext', ['-bbox', '-f', '1', '-l', '1', saved(pdf), '-'], {
    encoding: 'utf8',
  });
  for (const m of out.matchAll(
    /<word xMin="(-?[\d.]+)" yMin="(-?[\d.]+)" xMax="(-?[\d.]+)" yMax="(-?[\d.]+)">([^<]*)<\/word>/g,
  )) {
    if (m[5] === word) {
      const [xMin, yMin, xMax, yMax] = [m[1], m[2], m[3], m[4]].map(Number) as [
        number,
        number,
        number,
        number,
      ];
      return { xMin, yMin, width: xMax - xMin, height: yMax - yMin };
    }
  }
  // What was there instead (a box poppler writes in another way is not read as absent).
  const words = [...out.matchAll(/<word [^>]*>[^<]*<\/word>/g)].map((m) => m[0]);
  throw new Error(`"${word}" not found on page 1: ${JSON.stringify(words)}`);
}

/** Page 1 as 8-bit gray pixels at 50 dpi (pdftoppm's PGM). */
function grayPixels(pdf: Buffer): { width: number; height: number; pixels: Buffer } {
  const pgm = execFileSync('pdftoppm', ['-r', '50', '-gray', '-f', '1', '-l', '1', saved(pdf)]);
  const m = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'));
  if (!m) throw new Error('pdftoppm did not write a PGM');
  return {
    width: Number(m[1]),
    height: Number(m[2]),
    pixels: pgm.subarray(m[0].length),
  };
}

function expectPdf(r: PdfResponse): void {
  expect(r.status, r.json ? JSON.stringify(r.json) : '').toBe(200);
  expect(r.headers.get('content-type')).toBe('application/pdf');
  expect(r.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
}

function expectSize(r: PdfResponse, width: number, height: number): void {
  expectPdf(r);
  const [w, h] = pageSize(r.bytes);
  // Chromium lays pages out in whole CSS pixels: sizes land within a point of the exact ones.
  expect(Math.abs(w - width), `width ${w} vs ${width}`).toBeLessThan(1.5);
  expect(Math.abs(h - height), `height ${h} vs ${height}`).toBeLessThan(1.5);
}

const MM = 72 / 25.4;

describe('refusals before anything renders', () => {
  const CASES: [string, Record<string, unknown>, string][] = [
    ['unknown pageType', { pageType: 'B5' }, 'pageType'],
    ['pageType not a string', { pageType: 4 }, 'pageType'],
    ['landscape not a boolean', { landscape: 'sideways' }, 'landscape'],
    ['width in an unknown unit', { width: '10furlongs' }, 'width'],
    ['negative width', { width: -300 }, 'width'],
    ['width an object', { width: { cm: 3 } }, 'width'],
    ['height too small', { height: '0.5in' }, 'height'],
    ['width too large', { width: '250in' }, 'width'],
    ['negative margin', { margin: '-1cm' }, 'margin'],
    ['margin of words', { margin: 'wide' }, 'margin'],
    ['bad margin side', { margin: { top: 'x' } }, 'margin.top'],
    ['unknown margin side', { margin: { center: '1cm' } }, 'margin.center'],
    ['margins wider than the page', { margin: '11cm' }, 'margin'],
    ['scale too small', { scale: 0.05 }, 'scale'],
    ['scale too large', { scale: 3 }, 'scale'],
    ['scale not a number', { scale: 'big' }, 'scale'],
    ['printBackground not a boolean', { printBackground: 'yes please' }, 'printBackground'],
    ['unknown option', { colour: 'red' }, 'colour'],
    ['title not a string', { title: 7 }, 'title'],
    ['title too long', { title: 'x'.repeat(201) }, 'title'],
  ];

  it.each(CASES)('export/html: %s → 400 naming the field', async (_name, options, field) => {
    const r = await post('html', { html: '<p>Hello</p>', ...options });
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.context.field).toBe(field);
    expect(r.json.message).toContain(field);
  });

  it('names the allowed values', async () => {
    const r = await post('html', { html: '<p>x</p>', pageType: 'B5' });
    expect(r.json.message).toBe('pageType must be one of A3, A4, A5, Letter, Legal, Tabloid');
    const u = await post('html', { html: '<p>x</p>', colour: 'red', size: 2 });
    expect(u.json.message).toMatch(/^unknown options colour, size;/);
    expect(u.json.context.unknown).toEqual(['colour', 'size']);
  });

  it.each([
    ['missing', {}],
    ['not a string', { html: 42 }],
    ['empty', { html: '  ' }],
    ['over 5 MiB', { html: `<p>${'x'.repeat(5 * 1024 * 1024)}</p>` }],
  ])('export/html: html %s → 400 naming html', async (_name, body) => {
    const r = await post('html', body);
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.context.field).toBe('html');
  });

  it.each([
    [{ width: '250in' }, 'width must be from 1in to 200in (96px to 19200px); got 250in'],
    [{ width: '6350mm' }, 'got 6350mm (250in)'],
    [{ height: 24000 }, 'height must be from 1in to 200in (96px to 19200px); got 24000px (250in)'],
    [{ height: '2cm' }, 'got 2cm (0.79in)'],
    [
      { margin: '11cm' },
      'margin leaves no room on the page: left + right is 22cm; the page width (21cm) less 1.27cm for the content leaves at most 19.73cm',
    ],
    [
      { pageType: 'Letter', margin: { top: '5.3in', bottom: '5.3in' } },
      'top + bottom is 10.6in; the page height (11in) less 0.5in for the content leaves at most 10.5in',
    ],
  ])('sizes in messages are in the unit asked in: %j', async (options, message) => {
    const r = await post('html', { html: '<p>x</p>', ...options });
    expect(r.status).toBe(400);
    expect(r.json.message).toContain(message);
  });

  it('export/url checks the options too', async () => {
    const r = await post('url', { url: '/api/v1/projects/x/users', scale: 9 });
    expect(r.status).toBe(400);
    expect(r.json.context.field).toBe('url');
    const o = await post('url', { url: `/api/v1/projects/${project}/users`, scale: 9 });
    expect(o.status).toBe(400);
    expect(o.json.context.field).toBe('scale');
  });

  it('a body that is not an object → 400', async () => {
    const r = await post('html', ['<p>x</p>']);
    expect(r.status).toBe(400);
  });

  it('Accept without PDF → 406; ?format=pdf wins over Accept', async () => {
    const r = await post(
      'html',
      { html: '<p>x</p>', pageType: 'B5' },
      { accept: 'application/json' },
    );
    expect(r.status).toBe(406);
    expect(r.json.context.available).toEqual(['application/pdf']);
    const t = await post('url', { url: '/' }, { accept: 'text/html' });
    expect(t.status).toBe(406);
    // With format=pdf the request goes on (and stops at the bad option).
    const f = await post(
      'html',
      { html: '<p>x</p>', pageType: 'B5' },
      { accept: 'application/json', query: '?format=pdf' },
    );
    expect(f.status).toBe(400);
  });

  it('is for members of the project: others 401, no credentials 401', async () => {
    await s.token(OUTSIDER);
    const r = await post('html', { html: '<p>x</p>' }, { as: OUTSIDER });
    expect(r.status).toBe(401);
    const anon = await fetch(`${s.url}/api/v1/projects/${project}/app/export/html`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ html: '<p>x</p>' }),
    });
    expect(anon.status).toBe(401);
  });
});

describe('export/url takes pages of this site only', () => {
  const site = () => s.engine.config.siteUrl;
  const port = () => new URL(site()).port;
  const other = () => (new URL(site()).hostname === 'localhost' ? '127.0.0.1' : 'localhost');

  const BAD: [string, () => string][] = [
    ['the bait server', () => `${bait.url}/page`],
    ['the bait server by name', () => `http://localhost:${bait.port}/`],
    ['our port under another spelling of the host', () => `http://${other()}:${port()}/`],
    [
      'our dashboard under another spelling of the host',
      () => `http://${other()}:${port()}/api/v1/projects/${project}/app/dashboards/x`,
    ],
    [
      'another port',
      () => `http://localhost:${bait.port}/api/v1/projects/${project}/app/reports/x`,
    ],
    ['https for http', () => site().replace(/^http:/, 'https:')],
    ['file:', () => 'file:///etc/passwd'],
    ['javascript:', () => 'javascript:alert(1)'],
    ['data:', () => 'data:text/html,<h1>hi</h1>'],
    ['ftp:', () => `ftp://localhost:${port()}/`],
    [
      'userinfo',
      () => `http://admin:pw@localhost:${port()}/api/v1/projects/${project}/app/reports/x`,
    ],
    [
      'userinfo that looks like our host',
      () => `http://localhost:${port()}@127.0.0.1:${bait.port}/`,
    ],
    ['a protocol-relative URL', () => `//127.0.0.1:${bait.port}/`],
    ['backslashes', () => `/\\127.0.0.1:${bait.port}/`],
    ['a backslash in an absolute URL', () => `${site()}\\@127.0.0.1:${bait.port}/`],
    ['a tab', () => `/api/v1/projects/${project}/app/reports/x\t`],
    ['a relative path', () => 'api/v1/projects'],
    ['an over-long URL', () => `/api/v1/projects/${project}/app/reports/${'x'.repeat(3000)}`],
    ['a path that is no dashboard, report or share', () => `/api/v1/projects/${project}/users`],
    ['our site root', () => `${site()}/`],
    ['the API index', () => `${site()}/api/v1`],
    ['a malformed escape', () => `/api/v1/projects/${project}/app/reports/%E0%A4%A`],
    ['not a string', () => 42 as unknown as string],
  ];

  it.each(BAD)('%s → 400 naming url', async (_name, url) => {
    const r = await post('url', { url: url() });
    expect(r.status, JSON.stringify(r.json)).toBe(400);
    expect(r.json.context.field).toBe('url');
  });

  it('a page of another project → 400 naming url, before anything is computed', async () => {
    const r = await post('url', { url: `/api/v1/projects/someone-else/app/dashboards/d1` });
    expect(r.status).toBe(400);
    expect(r.json.context).toMatchObject({ field: 'url', project: 'someone-else' });
  });

  it('says which pages can be exported', async () => {
    const r = await post('url', { url: `/api/v1/projects/${project}/users` });
    expect(r.json.message).toBe('only dashboards, reports and shares of this site can be exported');
  });

  it('the bait server saw nothing', () => {
    expect(bait.requests).toEqual([]);
    expect(bait.connections()).toBe(0);
  });
});

describe.skipIf(!canRender)('rendering', () => {
  beforeAll(() => {
    if (MISSING.length) throw new Error(`CI=true but PDF export tests need ${MISSING.join(', ')}`);
  });

  it('prints the HTML on A4 portrait with the document information set', async () => {
    const before = Date.now();
    const r = await post('html', {
      html: '<h1>Quarterly revenue</h1><p>Grew by eleven percent.</p>',
      title: 'Revenue: Q3/Q4 "final"',
    });
    expectSize(r, 210 * MM, 297 * MM);
    expect(r.headers.get('content-disposition')).toMatch(
      /^attachment; filename="Revenue_ Q3_Q4 _final_.pdf"/,
    );
    expect(r.headers.get('cache-control')).toBe('private, no-store');
    const t = text(r.bytes);
    expect(t).toContain('Quarterly revenue');
    expect(t).toContain('Grew by eleven percent.');
    const i = info(r.bytes);
    expect(i.Title).toBe('Revenue: Q3/Q4 "final"');
    expect(i.Author).toBe(ADMIN);
    expect(i.Producer).toBe('Ursa');
    expect(i.Creator).toBe('Ursa');
    expect(i.Pages).toBe('1');
    const created = Date.parse(i.CreationDate!);
    expect(created).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(created).toBeLessThanOrEqual(Date.now() + 1000);
    expect(Date.parse(i.ModDate!)).toBe(created);
  });

  it('names the author after the caller, and the file after the default title', async () => {
    const r = await post('html', { html: '<p>Member export</p>' }, { as: MEMBER });
    expectPdf(r);
    expect(info(r.bytes).Author).toBe(MEMBER);
    expect(info(r.bytes).Title).toBe('Ursa export');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="Ursa export.pdf"/);
  });

  it.concurrent('answers PDF for Accept */*, no Accept, and ?format=pdf', async () => {
    expectPdf(await post('html', { html: '<p>any</p>' }, { accept: '*/*' }));
    expectPdf(
      await post(
        'html',
        { html: '<p>format</p>' },
        { accept: 'application/json', query: '?format=pdf' },
      ),
    );
    const raw = await rawRequest(`${s.url}/api/v1/projects/${project}/app/export/html`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ html: '<p>none</p>' }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers['content-type']).toBe('application/pdf');
  });

  it.concurrent('turns the page with landscape', async () => {
    expectSize(await post('html', { html: '<p>wide</p>', landscape: true }), 297 * MM, 210 * MM);
  });

  it.concurrent.each([
    ['A3', 297 * MM, 420 * MM],
    ['a4', 210 * MM, 297 * MM],
    ['A5', 148 * MM, 210 * MM],
    ['Letter', 612, 792],
    ['legal', 612, 1008],
    ['TABLOID', 792, 1224],
  ])('pageType %s', async (pageType, width, height) => {
    expectSize(await post('html', { html: `<p>${pageType}</p>`, pageType }), width, height);
  });

  it.concurrent(
    'width and height override the pageType; one alone keeps the other side',
    async () => {
      const [card, narrow, short, turned] = await Promise.all([
        post('html', { html: '<p>card</p>', width: '10cm', height: '150mm', pageType: 'A3' }),
        post('html', { html: '<p>narrow</p>', width: 480 }),
        post('html', { html: '<p>short</p>', height: '5.5in' }),
        post('html', { html: '<p>t</p>', width: '4in', height: '6in', landscape: true }),
      ]);
      expectSize(card!, 100 * MM, 150 * MM);
      // 480 px = 5 in; the height stays A4's.
      expectSize(narrow!, 360, 297 * MM);
      expectSize(short!, 210 * MM, 396);
      // landscape turns the page the options describe.
      expectSize(turned!, 432, 288);
    },
  );

  it.concurrent('margin moves the content', async () => {
    const html = '<body style="margin:0"><p style="margin:0">Marker</p></body>';
    const none = wordBox((await post('html', { html, margin: 0 })).bytes, 'Marker');
    const wide = wordBox(
      (await post('html', { html, margin: { left: '2in', top: '3cm' } })).bytes,
      'Marker',
    );
    expect(none.xMin).toBeLessThan(3);
    expect(Math.abs(wide.xMin - none.xMin - 144)).toBeLessThan(2);
    expect(Math.abs(wide.yMin - none.yMin - 30 * MM)).toBeLessThan(2);
  });

  it.concurrent('scale shrinks and grows the content', async () => {
    const html = '<p style="font-size:20px">Scaled</p>';
    const one = wordBox((await post('html', { html })).bytes, 'Scaled');
    const half = wordBox((await post('html', { html, scale: 0.5 })).bytes, 'Scaled');
    const twice = wordBox((await post('html', { html, scale: '2' })).bytes, 'Scaled');
    expect(half.width / one.width).toBeCloseTo(0.5, 1);
    expect(twice.width / one.width).toBeCloseTo(2, 1);
  });

  it.concurrent('draws an inline SVG and a data: image (non-blank pixels)', async () => {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect width="300" height="200" fill="#1f5fbf"/></svg>';
    const blank = grayPixels((await post('html', { html: '<p></p><p>&nbsp;</p>' })).bytes);
    expect(blank.pixels.every((p) => p > 250)).toBe(true);
    for (const html of [
      `<body style="margin:0">${svg}</body>`,
      `<body style="margin:0"><img src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}"></body>`,
    ]) {
      const { width, pixels } = grayPixels((await post('html', { html })).bytes);
      const dark = pixels.filter((p) => p < 160).length;
      // 300×200 CSS px at 50 dpi ≈ 156×104 pixels of blue (gray ≈ 80).
      expect(dark).toBeGreaterThan(10_000);
      expect(Math.abs(width - (210 / 25.4) * 50)).toBeLessThan(1.5);
    }
  });

  it.concurrent('prints backgrounds unless told not to', async () => {
    const html = '<body style="margin:0;background:#000"><p style="color:#fff">dark</p></body>';
    const on = grayPixels((await post('html', { html })).bytes);
    const off = grayPixels((await post('html', { html, printBackground: false })).bytes);
    expect(on.pixels.filter((p) => p < 50).length).toBeGreaterThan(on.pixels.length / 2);
    expect(off.pixels.filter((p) => p < 50).length).toBeLessThan(off.pixels.length / 100);
  });

  it('renders 10 exports at once', async () => {
    const all = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post('html', { html: `<h1>Copy ${i + 1}</h1>`, title: `copy ${i + 1}` }),
      ),
    );
    all.forEach((r, i) => {
      expectPdf(r);
      expect(text(r.bytes)).toContain(`Copy ${i + 1}`);
      expect(info(r.bytes).Title).toBe(`copy ${i + 1}`);
    });
  });

  describe('the HTML never reaches the network or files', () => {
    const HOSTNAME = fs.existsSync('/etc/hostname')
      ? fs.readFileSync('/etc/hostname', 'utf8').trim()
      : '';
    const u = (p: string) => `${bait.url}${p}`;
    const VECTORS: [string, () => string][] = [
      ['img', () => `<img src="${u('/img')}" alt="">`],
      ['img srcset', () => `<img srcset="${u('/srcset')} 2x" alt="">`],
      ['stylesheet link', () => `<link rel="stylesheet" href="${u('/style.css')}">`],
      ['iframe', () => `<iframe src="${u('/frame')}"></iframe>`],
      ['iframe of a file', () => '<iframe src="file:///etc/hostname"></iframe>'],
      ['iframe of /etc/passwd', () => '<iframe src="file:///etc/passwd"></iframe>'],
      ['object', () => `<object data="${u('/object')}"></object>`],
      ['object of a file', () => '<object data="file:///etc/hostname" type="text/plain"></object>'],
      ['embed', () => `<embed src="${u('/embed')}">`],
      ['meta refresh', () => `<meta http-equiv="refresh" content="0;url=${u('/refresh')}">`],
      ['CSS @import', () => `<style>@import url("${u('/import.css')}");</style>`],
      ['CSS url()', () => `<div style="background:url(${u('/bg.png')});height:50px"></div>`],
      [
        'CSS @font-face',
        () =>
          `<style>@font-face{font-family:Bait;src:url(${u('/font.woff')})}p{font-family:Bait}</style>`,
      ],
      ['script fetch', () => `<script>fetch("${u('/fetch')}")</script>`],
      ['script image', () => `<script>new Image().src = "${u('/script-img')}"</script>`],
      ['link prefetch', () => `<link rel="prefetch" href="${u('/prefetch')}">`],
      ['link preconnect', () => `<link rel="preconnect" href="${bait.url}">`],
      ['link preload', () => `<link rel="preload" as="image" href="${u('/preload')}">`],
      ['IPv6 loopback', () => `<link rel="prefetch" href="http://[::1]:${bait.port}/v6">`],
      ['localhost by name', () => `<link rel="prefetch" href="http://localhost:${bait.port}/n">`],
      ['SVG image', () => `<svg><image href="${u('/svg-image')}" width="10" height="10"/></svg>`],
      ['video poster', () => `<video poster="${u('/poster')}" src="${u('/video')}"></video>`],
      ['a ping', () => `<a ping="${u('/ping')}" href="${u('/a')}">link</a>`],
      [
        'data: iframe loading more',
        () => `<iframe src="data:text/html,<img src=${u('/inner')}>"></iframe>`,
      ],
      ['srcdoc iframe loading more', () => `<iframe srcdoc="<img src=${u('/srcdoc')}>"></iframe>`],
    ];

    // Each vector on its own page, several at once (the renderer's concurrency).
    it.concurrent.each(VECTORS)('%s: a PDF, and nothing loaded', async (_name, vector) => {
      const r = await post('html', { html: `<p>Exported safely</p>${vector()}` });
      expectPdf(r);
      const t = text(r.bytes);
      expect(t).toContain('Exported safely');
      expect(t).not.toContain(BAIT_TEXT);
      expect(t).not.toContain('root:x:0:0');
      if (HOSTNAME.length >= 2) expect(t).not.toMatch(new RegExp(`\\b${HOSTNAME}\\b`));
    });

    it('the bait server saw no connection and no request', async () => {
      // Late loads (a refresh, a prefetch) would have arrived by now.
      await new Promise((r) => setTimeout(r, 500));
      expect(bait.requests).toEqual([]);
      expect(bait.connections()).toBe(0);
    });
  });

  describe('export/url prints a report as the caller', () => {
    const REPORT = 'report.export_by_region';
    const CSV = 'sale_id,region,amount\n1,Northwest,10\n2,Southeast,32\n';

    beforeAll(async () => {
      await rawStorage(s.engine).writeFile(project, '/export-sales.csv', Buffer.from(CSV));
      const load = await s.api('POST', `/projects/${project}/kodiak/transform/execute`, {
        body: {
          type: 'cluster',
          clusters: {
            export_sales: {
              source_type: 'webdav',
              source: '/export-sales.csv',
              prescription: {
                primarykey: 'sale_id',
                columns: [
                  {
                    id: 'sale_id',
                    originalheader: 'sale_id',
                    objectType: 'A',
                    dataType: 'integer',
                    label: 'Sale',
                  },
                  {
                    id: 'region',
                    originalheader: 'region',
                    objectType: 'A',
                    dataType: 'string',
                    label: 'Export Region',
                  },
                  {
                    id: 'amount',
                    originalheader: 'amount',
                    objectType: 'F',
                    dataType: 'integer',
                    label: 'Export Amount',
                  },
                ],
              },
            },
          },
        },
      });
      expect(load.status, load.text).toBe(202);
      const job = await s.engine.jobs.waitFor(load.json.link[0].id as string);
      expect(job.status, job.message ?? '').toBe('OK');
      const r = await s.api('POST', `/projects/${project}/pmd/obj`, {
        body: [
          {
            ident: REPORT,
            type: 'report',
            name: 'Sales by export region',
            def: {
              aql: 'SELECT [attr.export_sales.region], SUM([fact.export_sales.amount]) AS "Amount"',
              visualization: { type: 'table' },
            },
          },
        ],
      });
      expect(r.status, r.text).toBe(201);
    }, 60_000);

    it('by path and by absolute URL on the site', async () => {
      const p = `/api/v1/projects/${project}/app/reports/${REPORT}`;
      for (const url of [p, `${s.engine.config.siteUrl}${p}`]) {
        const r = await post('url', { url, landscape: true });
        expectSize(r, 297 * MM, 210 * MM);
        const t = text(r.bytes);
        expect(t).toContain('Northwest');
        expect(t).toContain('Southeast');
        expect(info(r.bytes).Title).toBe('Sales by export region');
        expect(info(r.bytes).Author).toBe(ADMIN);
        expect(r.headers.get('content-disposition')).toMatch(
          /^attachment; filename="Sales by export region.pdf"/,
        );
      }
      expect(bait.requests).toEqual([]);
    });

    it('a report that does not exist → 404', async () => {
      const r = await post('url', { url: `/api/v1/projects/${project}/app/reports/report.nope` });
      expect(r.status).toBe(404);
    });
  });
});

/** A member of a project, as the engine sees them (Exports needs only the e-mail). */
const ACTOR: ProjectActor = {
  email: 'engine@example.com',
  projectId: 'p',
  admin: false,
  mdadmin: false,
  useradmin: false,
  roles: [],
  filter: null,
  maintenance: false,
};

/** A document that takes Chromium seconds to print. */
const HEAVY = `<table>${Array.from(
  { length: 12_000 },
  (_, i) => `<tr><td>row ${i}</td><td>${'x'.repeat(60)}</td><td>${i * 3}</td></tr>`,
).join('')}</table>`;

/**
 * `html` printed by `e`, tried again for 60 s while it fails for time alone: on a busy
 * machine the launch of Chromium, or the end of a page cut off by the time limit, may outlast
 * a short limit. It fails only when no renderer comes free for all that time.
 */
async function printSoon(e: Exports, html: string): Promise<Buffer> {
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      return await e.pdf(ACTOR, html, {}, { title: 'soon' });
    } catch (err) {
      // Over the time limit, or waiting for the try before that one to end.
      const retry = ['invalid', 'conflict'].includes((err as EngineError).kind);
      if (!retry || Date.now() > until) throw err;
    }
  }
}

/** The renderer's browser, reached into for checks no API offers. */
const browserOf = (e: Exports): Promise<Browser> | null =>
  (e as unknown as { renderer: { browser: Promise<Browser> | null } }).renderer.browser;

async function expectEngineError(p: Promise<unknown>, kind: string): Promise<EngineError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EngineError);
  expect((err as EngineError).kind).toBe(kind);
  return err as EngineError;
}

describe('Exports without Chromium', () => {
  it('names the missing binary and the setting; options are checked first', async () => {
    const e = new Exports({ chromiumPath: '/nowhere/chromium', concurrency: 1, timeoutMs: 5000 });
    const err = await expectEngineError(
      e.pdf(ACTOR, '<p>x</p>', {}, { title: 't' }),
      'unavailable',
    );
    expect(err.message).toContain('/nowhere/chromium');
    expect(err.message).toContain('URSA_CHROMIUM_PATH');
    const bad = await expectEngineError(
      e.pdf(ACTOR, '<p>x</p>', { pageType: 'A9' }, { title: 't' }),
      'invalid',
    );
    expect(bad.context.field).toBe('pageType');
    await e.close();
  });
});

describe.skipIf(!canRender)('the renderer: queue, time limit, crashes, shutdown', () => {
  it('a render over the time limit → 400; one still waiting then → 409; contexts closed', async () => {
    const e = new Exports({ chromiumPath: CHROMIUM, concurrency: 1, timeoutMs: 1500 });
    try {
      // Launch first, so the time limit is spent printing.
      await printSoon(e, '<p>warm</p>');
      const started = Date.now();
      const heavy = expectEngineError(e.pdf(ACTOR, HEAVY, {}, { title: 'heavy' }), 'invalid');
      const queued = expectEngineError(
        e.pdf(ACTOR, '<p>light</p>', {}, { title: 'light' }),
        'conflict',
      );
      const slow = await heavy;
      expect(slow.message).toMatch(/took longer than 1500 ms/);
      expect(slow.context).toMatchObject({ timeoutMs: 1500, setting: 'URSA_EXPORT_TIMEOUT_MS' });
      const busy = await queued;
      expect(busy.context).toMatchObject({ concurrency: 1, setting: 'URSA_EXPORT_CONCURRENCY' });
      expect(Date.now() - started).toBeLessThan(3500);
      // The slot came back (once Chromium let go of the heavy page, which on a busy machine
      // may take a while) and the heavy page's context is gone.
      const pdf = await printSoon(e, '<p>after</p>');
      expect(text(pdf)).toContain('after');
      expect((await browserOf(e))!.contexts()).toHaveLength(0);
    } finally {
      await e.close();
    }
  }, 120_000);

  it('a 409 says whether your own share or every renderer was busy', async () => {
    // Two renderers, one per user: A and B each print a heavy page over the time limit.
    const e = new Exports({ chromiumPath: CHROMIUM, concurrency: 2, timeoutMs: 1500 });
    const as = (email: string) => ({ ...ACTOR, email });
    try {
      await printSoon(e, '<p>warm</p>');
      const heavy = [as('a@example.com'), as('b@example.com')].map((a) =>
        expectEngineError(e.pdf(a, HEAVY, {}, { title: 'heavy' }), 'invalid'),
      );
      const own = expectEngineError(
        e.pdf(as('a@example.com'), '<p>x</p>', {}, { title: 'x' }),
        'conflict',
      );
      const all = expectEngineError(
        e.pdf(as('c@example.com'), '<p>x</p>', {}, { title: 'x' }),
        'conflict',
      );
      const mine = await own;
      expect(mine.message).toMatch(/^your other PDF exports held your share of the renderers/);
      expect(mine.message).toContain('one user renders at most 1 of the 2 at once');
      expect(mine.context).toMatchObject({ concurrency: 2, perUser: 1, yours: 1 });
      const none = await all;
      expect(none.message).toMatch(/^no PDF renderer came free within 1500 ms/);
      expect(none.context).toMatchObject({ concurrency: 2, perUser: 1, yours: 0 });
      await Promise.all(heavy);
    } finally {
      await e.close();
    }
  }, 120_000);

  it('launches Chromium again after it went away; close() closes it', async () => {
    const e = new Exports({ chromiumPath: CHROMIUM, concurrency: 2, timeoutMs: 20_000 });
    await e.pdf(ACTOR, '<p>one</p>', {}, { title: 'one' });
    const first = (await browserOf(e))!;
    await first.close(); // as if it crashed
    const pdf = await e.pdf(ACTOR, '<p>two</p>', {}, { title: 'two' });
    expect(text(pdf)).toContain('two');
    const second = (await browserOf(e))!;
    expect(second).not.toBe(first);
    expect(second.isConnected()).toBe(true);
    await e.close();
    expect(second.isConnected()).toBe(false);
    await expectEngineError(e.pdf(ACTOR, '<p>three</p>', {}, { title: 't' }), 'unavailable');
  }, 30_000);
});

describe.skipIf(!canRender)('one member exporting in a loop does not hold up the others', () => {
  let busy: TestServer;
  beforeAll(async () => {
    // Two renderers (one each user), and time enough for the flood to finish in line.
    busy = await startTestServer({
      URSA_EXPORT_CONCURRENCY: '2',
      URSA_EXPORT_TIMEOUT_MS: '180000',
    });
    await invite(busy, busy.demo, MEMBER);
  }, 60_000);
  afterAll(() => busy?.close());

  /** A document that takes Chromium a few seconds to print. */
  const SLOW = `<table>${Array.from(
    { length: 3000 },
    (_, i) => `<tr><td>row ${i}</td><td>${'x'.repeat(60)}</td><td>${i * 3}</td></tr>`,
  ).join('')}</table>`;

  it("another user's export starts at once and ends first; the flood still ends", async () => {
    expectPdf(await post('html', { html: '<p>warm</p>' }, { server: busy }));
    const finished: string[] = [];
    const flood = Array.from({ length: 3 }, (_, i) =>
      post('html', { html: SLOW, title: `flood ${i}` }, { server: busy, as: MEMBER }).then((r) => {
        finished.push(`member ${i}`);
        return r;
      }),
    );
    // The member's exports are in (two would render, one wait) before the admin asks.
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    const admin = await post('html', { html: '<p>mine</p>' }, { server: busy });
    finished.push('admin');
    expectPdf(admin);
    expect(finished, `admin waited ${Date.now() - started} ms`).toEqual(['admin']);
    for (const r of await Promise.all(flood)) expectPdf(r);
    expect(finished).toHaveLength(4);
  }, 240_000);
});
