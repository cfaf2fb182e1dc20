// Representations over real HTTP: content negotiation (JSON, YAML, CSV, TSV, HTML), request
// bodies (JSON, YAML, nested form fields), method and path errors, the error shape, and the
// request id that ties a response to its log lines.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as yaml from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { startServer, type RunningServer } from '../src/server.js';
import { rawRequest } from './helpers/http.js';
import { memoryLogger, type MemoryLog } from './helpers/logs.js';
import { ADMIN, startTestServer, type TestServer, testDatabase } from './helpers/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function expectErrorShape(json: unknown, status: number): Record<string, unknown> {
  expect(json).toBeTypeOf('object');
  const body = json as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
  expect(body.statusCode).toBe(status);
  expect(body.message).toBeTypeOf('string');
  expect((body.message as string).length).toBeGreaterThan(0);
  expect(body.context).toBeTypeOf('object');
  expect(body.context).not.toBeNull();
  expect(Array.isArray(body.context)).toBe(false);
  expect(body.errorId).toMatch(UUID);
  return body;
}

/** RFC 4180 reader (quoted fields may hold separators, quotes and line breaks). */
function parseDelimited(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === sep) {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

describe('response formats', () => {
  let s: TestServer;
  let xss: string;
  const XSS_LABEL = '<script>alert(1)</script>';
  const XSS_DESC = '"><img src=x onerror=alert(2)>';
  beforeAll(async () => {
    s = await startTestServer();
    await s.api('POST', `/projects/${s.demo}/users`, {
      body: { id: 'csv@example.com', roles: ['r1', 'r2'], filter: null },
    });
    const created = await s.api('POST', '/projects', {
      body: { id: 'xss', label: XSS_LABEL, desc: XSS_DESC, entity: 'default' },
    });
    expect(created.status).toBe(201);
    xss = created.json.project.id;
  });
  afterAll(() => s.close());

  it('answers JSON to Accept: application/json, and ?format=json over any Accept', async () => {
    const r = await s.api('GET', `/projects/${s.demo}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('vary')).toMatch(/Accept/);
    expect(r.json.project.id).toBe(s.demo);
    expect(Array.isArray(r.json.link)).toBe(true);
    const forced = await s.api('GET', `/projects/${s.demo}?format=json`, { accept: 'text/html' });
    expect(forced.headers.get('content-type')).toMatch(/^application\/json/);
    expect(forced.json).toEqual(r.json);
    // q-values are honoured: YAML preferred over JSON.
    const q = await s.api('GET', `/projects/${s.demo}`, {
      accept: 'application/json;q=0.5, text/yaml;q=0.9',
    });
    expect(q.headers.get('content-type')).toMatch(/^text\/yaml/);
  });

  it.each(['/projects', '/projects/{demo}', '/projects/{demo}/users', '/projects/{demo}/activity'])(
    'answers YAML for %s that parses back to the JSON',
    async (p) => {
      const url = p.replace('{demo}', s.demo);
      const json = await s.api('GET', url);
      const y = await s.api('GET', url, { accept: 'text/yaml' });
      expect(y.status).toBe(200);
      expect(y.headers.get('content-type')).toBe('text/yaml; charset=utf-8');
      expect(yaml.parse(y.text)).toEqual(json.json);
      const viaParam = await s.api('GET', `${url}?format=yaml`, { accept: 'text/html' });
      expect(viaParam.headers.get('content-type')).toMatch(/^text\/yaml/);
      expect(yaml.parse(viaParam.text)).toEqual(json.json);
    },
  );

  it.each([
    [
      '/projects',
      'projects',
      'projects',
      ['id', 'label', 'hasAccess', 'isAdmin', 'isMdAdmin', 'href'],
    ],
    ['/projects/{demo}/users', 'users', 'users', ['id', 'active', 'admin', 'roles', 'filter']],
    [
      '/projects/{demo}/activity',
      'activity',
      'activity',
      ['id', 'type', 'time', 'user', 'message'],
    ],
  ])('serves %s as CSV and TSV downloads with a header row', async (p, key, file, cols) => {
    const url = p.replace('{demo}', s.demo);
    const json = (await s.api('GET', url)).json;
    const items = Array.isArray(json[key]) ? json[key] : Object.values(json[key]);
    expect(items.length).toBeGreaterThan(0);
    for (const [fmt, type, sep] of [
      ['csv', 'text/csv', ','],
      ['tsv', 'text/tab-separated-values', '\t'],
    ] as const) {
      const r = await s.api('GET', url, { accept: type });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
      expect(r.headers.get('content-disposition')).toBe(
        `attachment; filename="${file}.${fmt}"; filename*=UTF-8''${file}.${fmt}`,
      );
      const rows = parseDelimited(r.text, sep);
      const header = rows[0]!;
      for (const c of cols) expect(header).toContain(c);
      expect(header).not.toContain('link');
      expect(rows).toHaveLength(items.length + 1);
      for (const row of rows) expect(row).toHaveLength(header.length);
      const ids = rows.slice(1).map((row) => row[header.indexOf('id')]);
      expect(ids).toEqual(items.map((i: { id: unknown }) => String(i.id)));
      // ?format=csv, ?format=text/csv and the Accept header give the same file.
      const byName = await s.api('GET', `${url}?format=${fmt}`, { accept: 'text/html' });
      const byType = await s.api('GET', `${url}?format=${encodeURIComponent(type)}`, {
        accept: 'text/html',
      });
      const byRawType = await s.api('GET', `${url}?format=${type}`, { accept: 'text/html' });
      for (const v of [byName, byType, byRawType]) {
        expect(v.status).toBe(200);
        expect(v.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
        expect(v.text).toBe(r.text);
      }
    }
  });

  it('writes cells the spreadsheet way (roles joined, labels kept)', async () => {
    const users = await s.api('GET', `/projects/${s.demo}/users?format=csv`);
    const rows = parseDelimited(users.text, ',');
    const h = rows[0]!;
    const csvUser = rows.find((r) => r[h.indexOf('id')] === 'csv@example.com')!;
    expect(csvUser[h.indexOf('roles')]).toBe('r1;r2');
    expect(csvUser[h.indexOf('admin')]).toBe('false');
    const projects = parseDelimited((await s.api('GET', '/projects?format=csv')).text, ',');
    const labels = projects.slice(1).map((r) => r[projects[0]!.indexOf('label')]);
    expect(labels).toContain('Demo');
    expect(labels).toContain(XSS_LABEL);
  });

  it('answers 406 with the available formats when CSV is asked of a non-tabular resource', async () => {
    for (const opts of [
      { url: `/projects/${s.demo}?format=csv`, accept: 'application/json' },
      { url: `/projects/${s.demo}?format=text/csv`, accept: 'application/json' },
      { url: `/projects/${s.demo}`, accept: 'text/csv' },
      { url: `/projects/${s.demo}/genid`, accept: 'text/tab-separated-values' },
    ]) {
      const r = await s.api('GET', opts.url, { accept: opts.accept });
      expect(r.status).toBe(406);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      const body = expectErrorShape(r.json, 406);
      const available = (body.context as { available: string[] }).available;
      expect(available).toEqual(
        expect.arrayContaining(['application/json', 'text/yaml', 'text/html']),
      );
      expect(available).not.toContain('text/csv');
      expect(body.message).toMatch(/available/);
    }
  });

  it('answers 400 to an unknown ?format=', async () => {
    for (const f of ['xml', 'application/xml', 'CSVX']) {
      const r = await s.api('GET', `/projects?format=${encodeURIComponent(f)}`);
      expect(r.status).toBe(400);
      const body = expectErrorShape(r.json, 400);
      expect(body.message).toContain(f.toLowerCase());
      expect(body.context).toMatchObject({ field: 'format' });
    }
  });

  it('answers a browsable HTML page when no JSON is asked for', async () => {
    const token = await s.token(ADMIN);
    for (const accept of [
      undefined,
      '*/*',
      'text/html',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    ]) {
      const r = await rawRequest(`${s.url}/api/v1/projects`, {
        headers: { authorization: `Bearer ${token}`, ...(accept ? { accept } : {}) },
      });
      expect(r.status, String(accept)).toBe(200);
      expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(r.text).toMatch(/^<!doctype html>/i);
      expect(r.text).toContain(`<a href="/api/v1/projects/${s.demo}"`);
      // Alternatives are offered as links too.
      expect(r.text).toContain('href="?format=csv"');
    }
    const details = await rawRequest(`${s.url}/api/v1/projects/${s.demo}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(details.text).toContain(`<a href="/api/v1/projects/${s.demo}/users"`);
    expect(details.text).not.toContain('href="?format=csv"');
  });

  it('escapes data in HTML pages: no script injection from a project label', async () => {
    const token = await s.token(ADMIN);
    for (const url of [`/api/v1/projects/${xss}`, '/api/v1/projects']) {
      const r = await rawRequest(`${s.url}${url}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/html' },
      });
      expect(r.status).toBe(200);
      expect(r.text).not.toContain(XSS_LABEL);
      expect(r.text).not.toMatch(/<script/i);
      expect(r.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(r.text).not.toContain('<img src=x');
    }
    // The page title carries the label, escaped too.
    const page = await rawRequest(`${s.url}/api/v1/projects/${xss}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(page.text).toMatch(/<title>Project &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('GET /api/v1 is an interactive index in HTML and { version, resources } in JSON', async () => {
    const html = await rawRequest(`${s.url}/api/v1`);
    expect(html.status).toBe(200);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toContain('<form id="try-form">');
    expect(html.text).toContain('/api/v1/projects/{project}/users');
    expect(html.text).toContain('<a href="/api/v1/projects"');

    const json = await s.api('GET', '/api/v1', { as: null });
    expect(json.status).toBe(200);
    expect(json.json.version).toBe('v1');
    expect(Array.isArray(json.json.resources)).toBe(true);
    const paths = (json.json.resources as { routes: { path: string; methods: string[] }[] }[])
      .flatMap((g) => g.routes)
      .map((r) => `${r.methods.join(',')} ${r.path}`);
    expect(paths).toContain('GET /projects/{project}/users');
    expect(paths).toContain('POST /projects');
    const y = await s.api('GET', '/api/v1', { accept: 'text/yaml', as: null });
    expect(yaml.parse(y.text)).toEqual(json.json);
  });

  it('answers HEAD like GET without a body', async () => {
    const r = await rawRequest(`${s.url}/api/v1/projects`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${await s.token(ADMIN)}`, accept: 'application/json' },
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    expect(r.text).toBe('');
    const unauth = await rawRequest(`${s.url}/api/v1/projects`, { method: 'HEAD' });
    expect(unauth.status).toBe(401);
    expect(unauth.text).toBe('');
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const r = await s.api('OPTIONS', '/projects', { as: null });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(r.headers.get('allow')!.split(', ').sort()).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST']);
    const one = await s.api('OPTIONS', `/projects/${s.demo}/limitadherence`, { as: null });
    expect(one.status).toBe(204);
    expect(one.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it.each([
    ['PATCH', '/projects', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['DELETE', '/projects/{demo}/limitadherence', ['GET', 'HEAD', 'OPTIONS']],
    ['PUT', '/projects/{demo}/users', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['POST', '/projects/{demo}/genid', ['GET', 'HEAD', 'OPTIONS']],
  ])('answers %s %s with 405 and Allow', async (method, p, allowed) => {
    const url = p.replace('{demo}', s.demo);
    for (const as of [ADMIN, null]) {
      const r = await s.api(method, url, { as, body: {} });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')!.split(', ').sort()).toEqual(allowed);
      const body = expectErrorShape(r.json, 405);
      expect((body.context as { allowed: string[] }).allowed.sort()).toEqual(allowed);
    }
  });

  it('answers an unknown path with 404 in the error shape', async () => {
    for (const p of ['/api/v1/nope', `/api/v1/projects/${s.demo}/nope`, '/api/v2/projects']) {
      const r = await s.api('GET', p);
      expect(r.status, p).toBe(404);
      expectErrorShape(r.json, 404);
    }
  });
});

describe('request bodies', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  const stored = async (email: string) => {
    const r = await s.api('GET', `/projects/${s.demo}/users/${encodeURIComponent(email)}`);
    expect(r.status).toBe(200);
    const { id, created, updated, link, ...rights } = r.json.user;
    expect(id).toBe(email);
    expect([created, updated, link]).not.toContain(undefined);
    return rights;
  };

  it('stores the same invitation sent as JSON, YAML or nested form fields', async () => {
    const json = await s.api('POST', `/projects/${s.demo}/users`, {
      body: { id: 'json@example.com', roles: ['a', 'b'], admin: false },
    });
    const yml = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: {
        type: 'text/yaml',
        data: 'id: yaml@example.com\nroles:\n  - a\n  - b\nadmin: false\n',
      },
    });
    const form = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: {
        type: 'application/x-www-form-urlencoded',
        data: 'id=form%40example.com&roles[0]=a&roles[1]=b&admin=false',
      },
    });
    const encoded = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: {
        type: 'application/x-www-form-urlencoded; charset=utf-8',
        data: 'id=form2%40example.com&roles%5B0%5D=a&roles%5B1%5D=b&admin=false',
      },
    });
    for (const r of [json, yml, form, encoded]) {
      expect(r.status, r.text).toBe(200);
      expect(r.json.users[0].status).toBe('invited');
    }
    const j = await stored('json@example.com');
    expect(j).toMatchObject({ roles: ['a', 'b'], admin: false, active: true });
    expect(await stored('yaml@example.com')).toEqual(j);
    expect(await stored('form@example.com')).toEqual(j);
    expect(await stored('form2@example.com')).toEqual(j);
  });

  it('accepts an array of invitations as YAML', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: {
        type: 'application/yaml',
        data: '- id: y1@example.com\n- id: y2@example.com\n  mdadmin: true\n',
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.users.map((u: { id: string }) => u.id)).toEqual([
      'y1@example.com',
      'y2@example.com',
    ]);
    expect((await stored('y2@example.com')).mdadmin).toBe(true);
  });

  it('answers malformed JSON with 400 in the error shape', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: { type: 'application/json', data: '{"id": "x@example.com",' },
    });
    expect(r.status).toBe(400);
    const body = expectErrorShape(r.json, 400);
    expect(JSON.stringify(body)).not.toMatch(/at \w+ \(|node_modules/);
  });

  it('answers malformed YAML with 400 in the error shape', async () => {
    for (const data of ['id: [unclosed', 'id: "x\n  - : :\n\t{', 'a: 1\na: 2\n']) {
      const r = await s.api('POST', `/projects/${s.demo}/users`, {
        raw: { type: 'text/yaml', data },
      });
      expect(r.status, data).toBe(400);
      const body = expectErrorShape(r.json, 400);
      expect(body.message).toMatch(/YAML/);
    }
  });

  it('answers a text/plain body (or none declared) with 415', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      raw: { type: 'text/plain', data: 'id=x@example.com' },
    });
    expect(r.status).toBe(415);
    const body = expectErrorShape(r.json, 415);
    expect(body.context).toEqual({ contentType: 'text/plain' });
    const untyped = await rawRequest(`${s.url}/api/v1/projects/${s.demo}/users`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await s.token(ADMIN)}`,
        accept: 'application/json',
      },
      body: '{"id":"x@example.com"}',
    });
    expect(untyped.status).toBe(415);
    expectErrorShape(JSON.parse(untyped.text), 415);
  });

  it('answers a body that is valid but wrong for the resource with 400', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      body: { id: 'z@example.com', bogus: 1 },
    });
    expect(r.status).toBe(400);
    expectErrorShape(r.json, 400);
  });
});

describe('errors and request ids', () => {
  let srv: RunningServer;
  let log: MemoryLog;
  let dataDir: string;
  let token: string;
  let demo: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-test-'));
    log = memoryLogger('info');
    srv = await startServer(
      loadConfig({
        URSA_DATA_DIR: dataDir,
        ...testDatabase(dataDir),
        PORT: '0',
        HOST: '127.0.0.1',
        URSA_ADMIN_PASSWORD: 'admin-password-1',
        URSA_LOG_LEVEL: 'info',
      }),
      log.logger,
      false,
    );
    token = await srv.engine.issueToken(ADMIN);
    demo = srv.bootstrap.demoProjectId!;
  });
  afterAll(async () => {
    await srv?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const get = (p: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(`${srv.url}${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...headers },
    });
  /** Log lines are written when the response finishes: wait for the one of this request. */
  const logOf = async (reqId: string, msg = 'request') => {
    for (let i = 0; i < 50; i++) {
      const line = log.lines().find((l) => l.reqId === reqId && l.msg === msg);
      if (line) return line;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no "${msg}" log line for ${reqId}`);
  };

  it('every error response has exactly statusCode, message, context and errorId', async () => {
    const cases: [string, Record<string, string>, number][] = [
      ['/api/v1/projects?format=xml', {}, 400],
      ['/api/v1/projects', { authorization: 'Bearer nope' }, 401],
      ['/api/v1/projects/not-a-project', {}, 401],
      ['/api/v1/nope', {}, 404],
      [`/api/v1/projects/${demo}?format=csv`, {}, 406],
    ];
    const ids = new Set<string>();
    for (const [p, h, status] of cases) {
      const r = await get(p, h);
      expect(r.status, p).toBe(status);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = expectErrorShape(JSON.parse(r.text), status);
      ids.add(body.errorId as string);
    }
    expect(ids.size).toBe(cases.length);
  });

  it('shows the error message in the HTML and YAML variants', async () => {
    const html = await get('/api/v1/nope', { accept: 'text/html' });
    expect(html.status).toBe(404);
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.text).toContain('no resource at GET /api/v1/nope');
    expect(html.text).toMatch(/class="error-id">[0-9a-f-]{36}</);
    const noAccept = await rawRequest(`${srv.url}/api/v1/projects`);
    expect(noAccept.status).toBe(401);
    expect(noAccept.headers['content-type']).toMatch(/^text\/html/);
    expect(noAccept.text).toContain('authentication required');
    const y = await get('/api/v1/nope', { accept: 'text/yaml' });
    expect(y.headers['content-type']).toMatch(/^text\/yaml/);
    expectErrorShape(yaml.parse(y.text), 404);
  });

  it('answers an internal error with 500, an errorId and no internals; the log has both', async () => {
    const original = srv.engine.projects.list;
    srv.engine.projects.list = () => {
      throw new Error('boom secret');
    };
    let r;
    try {
      r = await get('/api/v1/projects');
    } finally {
      srv.engine.projects.list = original;
    }
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('boom secret');
    expect(r.text).not.toMatch(/at \w+ \(|\.ts:\d+|node_modules|stack/i);
    const body = expectErrorShape(JSON.parse(r.text), 500);
    expect(body.message).toContain(body.errorId as string);
    expect(body.context).toEqual({});

    const reqId = r.headers['x-request-id'] as string;
    expect(reqId).toMatch(UUID);
    const logged = await logOf(reqId, 'unhandled error');
    expect(logged.errorId).toBe(body.errorId);
    expect(logged.level).toBe(50);
    expect(JSON.stringify(logged.err)).toContain('boom secret');
    expect((logged.err as { stack?: string }).stack).toMatch(/boom secret\n\s+at /);
    expect((await logOf(reqId)).status).toBe(500);

    // The HTML variant shows the errorId, not the secret either.
    srv.engine.projects.list = () => {
      throw new Error('boom secret');
    };
    try {
      r = await get('/api/v1/projects', { accept: 'text/html' });
    } finally {
      srv.engine.projects.list = original;
    }
    expect(r.status).toBe(500);
    expect(r.text).not.toContain('boom secret');
    expect(r.text).toMatch(/class="error-id">[0-9a-f-]{36}</);
    // The server keeps serving.
    expect((await get('/api/v1/projects')).status).toBe(200);
  });

  it('logs every request with its reqId, the one in X-Request-Id', async () => {
    const responses = [
      await get('/api/v1/projects'),
      await get('/api/v1/nope'),
      await get('/api/v1', { accept: 'text/html' }),
      await get('/auth/.well-known/openid-configuration'),
      await get('/api/v1/projects', {}, 'PATCH'),
    ];
    for (const r of responses) {
      const reqId = r.headers['x-request-id'] as string;
      expect(reqId).toMatch(UUID);
      const line = await logOf(reqId);
      expect(line.status).toBe(r.status);
      expect(line).toMatchObject({ method: expect.any(String), url: expect.any(String) });
    }
    const ids = new Set(responses.map((r) => r.headers['x-request-id']));
    expect(ids.size).toBe(responses.length);
    for (const line of log.lines().filter((l) => l.msg === 'request')) {
      expect(line.reqId).toBeTypeOf('string');
    }
  });

  it('echoes and logs a client-sent X-Request-Id, and replaces an unsafe one', async () => {
    const r = await get('/api/v1/projects', { 'x-request-id': 'abc-123' });
    expect(r.headers['x-request-id']).toBe('abc-123');
    expect(await logOf('abc-123')).toMatchObject({ status: 200, url: '/api/v1/projects' });
    const err = await get('/api/v1/nope', { 'x-request-id': 'abc-456' });
    expect(err.headers['x-request-id']).toBe('abc-456');
    expect((await logOf('abc-456')).status).toBe(404);

    for (const bad of ['has spaces in it', 'x'.repeat(65), 'a"b', 'line\\nbreak']) {
      const b = await get('/api/v1/projects', { 'x-request-id': bad });
      expect(b.headers['x-request-id']).toMatch(UUID);
    }
  });
});
