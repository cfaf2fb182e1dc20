// Text PostgreSQL cannot store (NUL, and lone UTF-16 surrogates) is refused at the edge of
// every door with a 400 naming the field: it used to reach the metadata database and answer
// 500 ("invalid byte sequence for encoding UTF8: 0x00") with a stack trace in the log. Runs on
// SQLite and PostgreSQL metadata; each request must be refused before anything is written,
// and nothing may be logged as an error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { engineErrorOf } from '../src/engine/errors.js';
import { describeError } from '../src/mcp/tools/common.js';
import { apiRoutes } from '../src/rest/api.js';
import { toErrorBody } from '../src/http/errors.js';
import type { Method, RouteDef } from '../src/http/router.js';
import { healthRoutes } from '../src/rest/routes/health.js';
import { identityRoutes } from '../src/rest/routes/identity.js';
import { passwordRoutes } from '../src/rest/routes/password.js';
import { siteRoutes } from '../src/site/routes.js';
import { startServer, type RunningServer } from '../src/server.js';
import { memoryLogger, type MemoryLog } from './helpers/logs.js';
import { connectMcp } from './helpers/mcp-client.js';
import { Browser, oauthClient } from './helpers/oauth.js';
import { ADMIN, ADMIN_PASSWORD, ON_PG, testConfig, type TestServer } from './helpers/server.js';

const NUL = 'a\u0000b';

interface Answer {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  json: any;
  headers: Headers;
}

let srv: RunningServer;
let log: MemoryLog;
let dataDir: string;
let token: string;
let demo: string;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-test-'));
  log = memoryLogger('warn');
  srv = await startServer(testConfig(dataDir, { URSA_LOG_LEVEL: 'warn' }), log.logger, false);
  token = await srv.engine.issueToken(ADMIN);
  demo = srv.bootstrap.demoProjectId!;
  // WebDAV over Basic needs the project's WebDAV token.
  const r = await call('PUT', `/api/v1/projects/${demo}`, {
    body: { webdavToken: 'dav-token-for-nul-1' },
  });
  expect(r.status, r.text).toBe(200);
});
afterAll(async () => {
  await srv?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(
  method: string,
  p: string,
  o: {
    body?: unknown;
    raw?: { type: string; data: string | Buffer };
    headers?: Record<string, string>;
    anonymous?: boolean;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
  if (!o.anonymous && !headers.authorization) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined;
  if (o.raw) {
    headers['content-type'] = o.raw.type;
    body = o.raw.data;
  } else if (o.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.body);
  }
  const res = await fetch(`${srv.url}${p}`, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, headers: res.headers };
}

/** A 400 in the spec's error shape whose message and context name `field`. */
function expectRefused(r: Answer, field: string, what = 'a NUL character (\\u0000)'): void {
  expect(r.status, r.text).toBe(400);
  expect(r.json, r.text).toMatchObject({ statusCode: 400, context: { field } });
  expect(typeof r.json.errorId).toBe('string');
  expect(r.json.message).toContain(`contains ${what}`);
}

/** Error lines the server wrote (level 50 and above) since the test began. */
function errorsLogged(): Record<string, unknown>[] {
  return log.lines().filter((l) => Number(l.level) >= 50);
}

/** The request path of a route with its parameters filled in; `nul` gets a NUL. */
function fill(prefix: string, def: RouteDef, nul?: string): string {
  const p = def.path.replace(/:(\w+)/g, (_all, name: string) =>
    name === nul ? 'a%00b' : name === 'project' ? demo : 'x',
  );
  return `${prefix}${p === '/' && prefix ? '' : p}`;
}

const TABLES: [string, RouteDef[]][] = [
  ['/api/v1', apiRoutes()],
  ['/auth', identityRoutes],
  ['/auth', passwordRoutes],
  ['', siteRoutes],
  ['', healthRoutes],
];
const OPS = TABLES.flatMap(([prefix, defs]) =>
  defs.flatMap((def) =>
    Object.entries(def.ops).map(([method, op]) => ({
      prefix,
      def,
      method: method as Method,
      raw: op!.body === 'raw',
    })),
  ),
);

describe('every route of the route table', () => {
  const withParams = OPS.flatMap((o) =>
    [...o.def.path.matchAll(/:(\w+)/g)].map((m) => ({ ...o, param: m[1]! })),
  );
  it.each(withParams.map((o) => [`${o.method} ${o.prefix}${o.def.path} (${o.param})`, o]))(
    'NUL in a path parameter: %s',
    async (_name, o) => {
      const r = await call(o.method, fill(o.prefix, o.def, o.param));
      expectRefused(r, 'path');
      expect(r.json.message).toContain('path segment "a%00b"');
    },
  );

  it.each(OPS.map((o) => [`${o.method} ${o.prefix}${o.def.path}`, o]))(
    'NUL in a query parameter: %s',
    async (_name, o) => {
      const r = await call(o.method, `${fill(o.prefix, o.def)}?types=${encodeURIComponent(NUL)}`);
      expectRefused(r, 'query.types');
    },
  );

  const withBody = OPS.filter((o) => o.method !== 'GET' && !o.raw);
  it.each(withBody.map((o) => [`${o.method} ${o.prefix}${o.def.path}`, o]))(
    'NUL in a JSON body field: %s',
    async (_name, o) => {
      const r = await call(o.method, fill(o.prefix, o.def), {
        body: { label: NUL, nested: { list: ['ok', NUL] } },
      });
      expectRefused(r, 'body.label');
    },
  );

  it('no route answered with an error in the log', () => {
    expect(errorsLogged()).toEqual([]);
  });
});

describe('the doors, each with what it writes', () => {
  it('sign-in: a NUL in the e-mail is 400 and starts no session', async () => {
    const r = await call('POST', '/auth/login', {
      anonymous: true,
      raw: {
        type: 'application/x-www-form-urlencoded',
        data: new URLSearchParams({ email: `${NUL}@example.com`, password: 'x' }).toString(),
      },
    });
    expectRefused(r, 'body.email');
    expect(r.headers.getSetCookie()).toEqual([]);
    // The password-reset form before sign-in, too.
    const forgot = await call('POST', '/auth/password/forgot', {
      anonymous: true,
      body: { email: `${NUL}@example.com` },
    });
    expectRefused(forgot, 'body.email');
  });

  it('a project label: 400, and no project is created', async () => {
    const before = (await call('GET', '/api/v1/projects')).json;
    expectRefused(await call('POST', '/api/v1/projects', { body: { label: NUL } }), 'body.label');
    // A lone surrogate would be stored as U+FFFD, not as sent: refused too.
    const lone = await call('POST', '/api/v1/projects', {
      raw: { type: 'application/json', data: '{"label":"x\\ud800"}' },
    });
    expectRefused(lone, 'body.label', 'a lone UTF-16 surrogate (\\ud800)');
    // YAML and form bodies are checked the same way.
    const yaml = await call('POST', '/api/v1/projects', {
      raw: { type: 'text/yaml', data: 'label: "a\\0b"\n' },
    });
    expectRefused(yaml, 'body.label');
    const form = await call('POST', '/api/v1/projects', {
      raw: { type: 'application/x-www-form-urlencoded', data: 'label=a%00b' },
    });
    expectRefused(form, 'body.label');
    expect((await call('GET', '/api/v1/projects')).json).toEqual(before);
  });

  it('a metric name: 400, and the model is unchanged', async () => {
    const list = `/api/v1/projects/${demo}/pmd/obj?rel=object.metric`;
    const before = (await call('GET', list)).json;
    const r = await call('POST', `/api/v1/projects/${demo}/pmd/obj`, {
      body: { ident: 'metric.nul', type: 'metric', name: NUL, def: { aql: 'SELECT 1' } },
    });
    expectRefused(r, 'body.name');
    expect((await call('GET', list)).json).toEqual(before);
  });

  it('a chat question: 400 before the AI is asked', async () => {
    const r = await call('POST', `/api/v1/projects/${demo}/app/ai/messages`, {
      body: { question: `how many ${NUL}?` },
    });
    expectRefused(r, 'body.question');
  });

  it('an AQL query: 400 saying where in the text, as a parse error does', async () => {
    const r = await call('POST', `/api/v1/projects/${demo}/app/aql/execute`, {
      body: { aql: `SELECT COUNT([flights])\nWHERE [Origin] = "A${NUL}"` },
    });
    expectRefused(r, 'body.aql');
    expect(r.json.context).toMatchObject({ character: '\\u0000', line: 2, column: 21 });
  });

  it('a path segment and a query parameter', async () => {
    expectRefused(await call('GET', '/api/v1/projects/a%00b'), 'path');
    expectRefused(
      await call('GET', `/api/v1/projects/${demo}/activity?types=a%00b`),
      'query.types',
    );
    // A NUL in a parameter's name, too.
    expectRefused(await call('GET', `/api/v1/projects?a%00b=1`), 'query.a\\u0000b (a field name)');
  });

  it('WebDAV: the path, the Destination header and the Basic user', async () => {
    const dav = `/api/v1/projects/${demo}/webdav`;
    expect(
      (await call('PUT', `${dav}/ok.csv`, { raw: { type: 'text/csv', data: 'a\n1\n' } })).status,
    ).toBe(201);
    const r = await call('PROPFIND', `${dav}/a%00b`, { headers: { depth: '0' } });
    expectRefused(r, 'path');
    const move = await call('MOVE', `${dav}/ok.csv`, {
      headers: { destination: `${srv.url}${dav}/a%00b.csv` },
    });
    expectRefused(move, 'Destination');
    const basic = Buffer.from(`${NUL}@example.com:dav-token-for-nul-1`).toString('base64');
    const b = await call('PROPFIND', `${dav}/`, {
      headers: { authorization: `Basic ${basic}`, depth: '0' },
    });
    expectRefused(b, 'Authorization');
    // File contents are data: a NUL byte in a file is stored as sent.
    const bytes = Buffer.from('a\u0000b\n');
    expect(
      (
        await call('PUT', `${dav}/bytes.bin`, {
          raw: { type: 'application/octet-stream', data: bytes },
        })
      ).status,
    ).toBe(201);
    const back = await fetch(`${srv.url}${dav}/bytes.bin`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await back.arrayBuffer())).toEqual(bytes);
    const names = (await call('PROPFIND', `${dav}/`, { headers: { depth: '1' } })).text;
    expect(names).toContain('ok.csv');
    expect(names).not.toContain('a%00b');
  });

  it('an upload: a NUL in the file name is 400 and nothing is stored', async () => {
    const list = `/api/v1/projects/${demo}/storage/list`;
    const before = (await call('GET', list)).json;
    const boundary = 'nulboundary';
    const multipart = (filename: string) =>
      [
        `--${boundary}`,
        `Content-Disposition: form-data; name="file"; filename*=UTF-8''${filename}`,
        'Content-Type: text/csv',
        '',
        'a,b\n1,2\n',
        `--${boundary}--`,
        '',
      ].join('\r\n');
    const r = await call('POST', `/api/v1/projects/${demo}/storage/upload`, {
      raw: { type: `multipart/form-data; boundary=${boundary}`, data: multipart('x%00y.csv') },
    });
    expectRefused(r, 'the file name of body.file');
    // resumable.js sends the name in the query too.
    const q = await call(
      'POST',
      `/api/v1/projects/${demo}/storage/upload?resumableFilename=x%00y.csv`,
      {
        raw: { type: 'application/octet-stream', data: 'a\n' },
      },
    );
    expectRefused(q, 'query.resumableFilename');
    expect((await call('GET', list)).json).toEqual(before);
    // A NUL byte inside the file is data and is kept.
    const ok = await call('POST', `/api/v1/projects/${demo}/storage/upload`, {
      raw: {
        type: `multipart/form-data; boundary=${boundary}`,
        data: multipart('fine.csv').replace('1,2', '1,\u0000'),
      },
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it('OAuth: the sign-in form, the token endpoint and client registration', async () => {
    const oauth = oauthClient(() => srv.url);
    const reg = await oauth.register({ client_name: NUL });
    expect(reg.status, JSON.stringify(reg.body)).toBe(400);
    expect(reg.body.error_description).toContain('NUL');
    const t = await oauth.token({ grant_type: 'authorization_code', code: NUL, client_id: NUL });
    expect(t.status, JSON.stringify(t.body)).toBe(400);
    expect(t.body.error_description).toContain('NUL');
    // The sign-in page of an authorization: its form posts the e-mail.
    const ok = await oauth.register();
    expect(ok.status).toBe(201);
    const { url } = await oauth.authorizationUrl(ok.body.client_id as string);
    const b = new Browser();
    let res = await b.request(url);
    while (res.status >= 300 && res.status < 400)
      res = await b.request(new URL(res.headers.get('location')!, url).href);
    const html = await res.text();
    const action = /<form method="post" action="([^"]+\/login)"/.exec(html)?.[1];
    expect(action, html).toBeTruthy();
    const login = await b.request(new URL(action!, url).href, 'POST', {
      email: `${NUL}@example.com`,
      password: ADMIN_PASSWORD,
    });
    expect(login.status).toBe(400);
    expect(await login.text()).toContain('body.email contains a NUL character');
  });

  it('no door answered with an error in the log', () => {
    expect(errorsLogged()).toEqual([]);
  });
});

describe('MCP', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp({ ...srv, demo } as unknown as TestServer, ADMIN);
  });
  afterAll(() => client?.close());

  const text = (r: CallToolResult) =>
    r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

  it('every tool refuses a NUL in a string argument, naming it', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(10);
    const missed: string[] = [];
    for (const tool of tools) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const required = new Set(tool.inputSchema.required ?? []);
      const args: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(props))
        if (required.has(name)) args[name] = sample(schema);
      const target =
        'project' in props
          ? 'project'
          : Object.keys(props).find((k) => props[k]!.type === 'string');
      if (!target) continue;
      args[target] = NUL;
      const r = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
      if (!r.isError || !text(r).includes(`arguments.${target} contains a NUL character`))
        missed.push(`${tool.name}(${target}): ${text(r).slice(0, 200)}`);
    }
    expect(missed).toEqual([]);
  });

  it('ask and run_aql name the argument', async () => {
    const ask = (await client.callTool({
      name: 'ask',
      arguments: { project: demo, question: `how many ${NUL}?` },
    })) as CallToolResult;
    expect(ask.isError).toBe(true);
    expect(text(ask)).toContain('arguments.question contains a NUL character');
  });

  it('resources and prompts', async () => {
    await expect(client.readResource({ uri: `ursa://projects/a%00b/model` })).rejects.toThrow(
      /NUL character/,
    );
    const { prompts } = await client.listPrompts();
    const p = prompts.find((x) => x.arguments?.length);
    expect(p).toBeTruthy();
    await expect(
      client.getPrompt({ name: p!.name, arguments: { [p!.arguments![0]!.name]: NUL } }),
    ).rejects.toThrow(/NUL character/);
  });

  it('no tool call was logged as an error', () => {
    expect(errorsLogged()).toEqual([]);
  });
});

// Defense in depth: were a door to miss a field, PostgreSQL's refusal is still the caller's
// 400, not an internal error (the store raises it as invalid input; drizzle wraps it).
describe.runIf(ON_PG)('the PostgreSQL store, when text slips past the doors', () => {
  /** The error `fn` rejects with, and how a door answers it. */
  async function refusal(fn: () => Promise<unknown>) {
    const err = await fn().then(
      () => expect.unreachable('PostgreSQL stored a NUL'),
      (e: unknown) => e,
    );
    return { kind: engineErrorOf(err)?.kind, answer: toErrorBody(err) };
  }

  it('NUL in text through the query builder (22021) answers 400', async () => {
    const r = await refusal(() => srv.engine.accounts.exists(`${NUL}@example.com`));
    expect(r.kind).toBe('invalid');
    expect(r.answer.internal).toBe(false);
    expect(r.answer.body).toMatchObject({ statusCode: 400, context: { sqlstate: '22021' } });
    expect(r.answer.body.message).toContain('NUL');
  });

  it('\\u0000 in jsonb (22P05) and raw statements answer 400, also inside a transaction', async () => {
    const jsonb = await refusal(() =>
      srv.engine.store.rows(sql`SELECT ${'{"a":"\\u0000"}'}::jsonb AS j`),
    );
    expect(jsonb.answer.body).toMatchObject({ statusCode: 400, context: { sqlstate: '22P05' } });
    const inTx = await refusal(() =>
      srv.engine.store.tx(() => srv.engine.store.run(sql`SELECT ${NUL}::text`)),
    );
    expect(inTx.answer.body).toMatchObject({ statusCode: 400, context: { sqlstate: '22021' } });
    // The connection is fine afterwards.
    expect(await srv.engine.store.rows(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
  });

  it('an MCP tool answers it as its error text, not an internal error', async () => {
    const err = await srv.engine.accounts.exists(NUL).catch((e: unknown) => e);
    const ctx = { engine: srv.engine, principal: { email: ADMIN }, exposeInternalErrors: false };
    expect(describeError(ctx, err)).toMatch(/^a value holds text that cannot be stored/);
  });
});

/** A value of a JSON-schema type that passes a tool's validation. */
interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
}

/** A valid value of a tool argument's JSON schema (objects with their required members). */
function sample(schema: Schema): unknown {
  if (schema.enum?.length) return schema.enum[0];
  if (schema.type === 'object')
    return Object.fromEntries(
      (schema.required ?? []).map((k) => [k, sample(schema.properties?.[k] ?? {})]),
    );
  switch (schema.type) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return 'x';
  }
}
