// Secrets of flows over real HTTP (issue 20): a credentials object's stored secret goes only
// where it was set for (a write that changes where it goes must send it again, by every
// door); a flow's URL query values, header values and body values are hidden from members
// below MD Admin on every read (pmd/obj in each format, revisions, bulkobj, flowlist, MCP),
// and the mark they see is refused on save; http credentials can carry an API key in a
// header or a query parameter, and keep to their host and port.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/http-api.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const READER = 'flow-reader@example.com';
const MD = 'flow-md@example.com';
const TOKEN = 'TOKEN-never-elsewhere-5b1c';

let s: TestServer;
let p: string;
let api: TestApi;

const obj = (ident: string) => `/projects/${p}/pmd/obj/${ident}`;

async function create(body: Record<string, unknown>) {
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, { body });
  expect(r.status, r.text).toBe(201);
  return r.json.objects[0];
}

async function run(ident: string) {
  const r = await s.api('POST', `/projects/${p}/kodiak/transform/execute`, {
    body: { type: 'flow', id: ident },
  });
  expect(r.status, r.text).toBe(201);
  return s.engine.jobs.waitFor(r.json.link[0].id, 60_000);
}

/** A flow reading one input.http box into a storage file. */
const httpFlow = (ident: string, input: Record<string, unknown>) => ({
  ident,
  type: 'flow',
  name: ident,
  def: {
    boxes: [
      { id: 'api', type: 'input.http', ...input },
      { id: 'out', type: 'output.storage', path: `/out/${ident}.csv`, format: 'csv' },
    ],
    edges: [{ from: 'api', to: 'out' }],
  },
});

beforeAll(async () => {
  api = await startTestApi();
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team', URSA_CONNECTOR_ALLOW_HOSTS: '127.0.0.1' });
  p = s.demo;
  await invite(s, p, READER);
  await invite(s, p, MD, { mdadmin: true });
});
afterAll(async () => {
  await s?.close();
  await api?.close();
});

describe('credentials: a stored secret goes only where it was set for', () => {
  it('an MD Admin cannot point http credentials at another host and have the token sent there', async () => {
    await create({
      ident: 'cred.crm',
      type: 'credentials',
      name: 'CRM token',
      def: { kind: 'http', host: 'crm.example.com', secret: TOKEN },
    });
    await create(httpFlow('flow.crm', { url: `${api.url}/echo`, credentials: 'cred.crm' }));
    const moved = await s.api('PUT', obj('cred.crm'), {
      as: MD,
      body: { name: 'CRM token', def: { kind: 'http', host: '127.0.0.1' } },
    });
    expect(moved.status, moved.text).toBe(400);
    expect(moved.json.context).toMatchObject({ field: 'def.secret', changed: ['host'] });
    expect(moved.json.message).toContain('def.secret: required: the change of host');
    const kept = await s.api('GET', obj('cred.crm'));
    expect(kept.json.object).toMatchObject({
      revision: 1,
      def: { kind: 'http', host: 'crm.example.com', secretSet: true },
    });
    api.reset();
    const job = await run('flow.crm');
    expect(job.status).toBe('ERROR');
    expect(job.message).toBe(
      'box "api" (credentials): credentials "cred.crm" are for host crm.example.com, not 127.0.0.1',
    );
    expect(api.total).toBe(0);
    // The same change with the secret sent again is an ordinary edit.
    const resent = await s.api('PUT', obj('cred.crm'), {
      as: MD,
      body: { name: 'CRM token', def: { kind: 'http', host: '127.0.0.1', secret: TOKEN } },
    });
    expect(resent.status, resent.text).toBe(200);
    expect((await run('flow.crm')).status).toBe('OK');
    expect(api.lastHeaders.get('/echo')!.authorization).toBe(`Bearer ${TOKEN}`);
  });

  const base = {
    http: { kind: 'http', host: 'api.example.com' },
    postgres: {
      kind: 'postgres',
      host: 'db.example.com',
      port: 5432,
      user: 'reporting',
      database: 'shop',
    },
    sftp: { kind: 'sftp', host: 'sftp.example.com', port: 22, user: 'ursa' },
  } as const;
  const moves: Array<[keyof typeof base, string, unknown]> = [
    ['http', 'host', 'evil.example.net'],
    ['http', 'port', 8443],
    ['http', 'user', 'someone'],
    ['http', 'apiKey', { in: 'query', name: 'key' }],
    ['http', 'kind', 'postgres'],
    ['postgres', 'host', 'evil.example.net'],
    ['postgres', 'port', 6432],
    ['postgres', 'user', 'postgres'],
    ['postgres', 'kind', 'http'],
    ['sftp', 'host', 'evil.example.net'],
    ['sftp', 'port', 2222],
    ['sftp', 'user', 'root'],
    ['sftp', 'hostKey', `SHA256:${'B'.repeat(43)}`],
    ['sftp', 'kind', 'http'],
  ];
  it.each(moves)(
    '%s credentials: a new %s without the secret is refused',
    async (kind, field, value) => {
      const ident = `cred.move_${kind}_${field}`;
      await create({
        ident,
        type: 'credentials',
        name: ident,
        def: { ...base[kind], secret: 'pw-1' },
      });
      const def = { ...base[kind], [field]: value };
      const r = await s.api('PUT', obj(ident), { body: { name: ident, def } });
      expect(r.status, r.text).toBe(400);
      expect(r.json.context).toMatchObject({ field: 'def.secret', changed: [field] });
      expect((await s.api('GET', obj(ident))).json.object.revision).toBe(1);
      const ok = await s.api('PUT', obj(ident), {
        body: { name: ident, def: { ...def, secret: 'pw-2' } },
      });
      expect(ok.status, ok.text).toBe(200);
    },
  );

  it('keeps the secret when nothing about where it goes changes (name, database, a GET sent back)', async () => {
    await create({
      ident: 'cred.shop',
      type: 'credentials',
      name: 'Shop',
      def: { ...base.postgres, secret: 'pw-1' },
    });
    const got = (await s.api('GET', obj('cred.shop'))).json.object;
    const back = await s.api('PUT', obj('cred.shop'), {
      body: { ...got, name: 'Shop DB', def: { ...got.def, database: 'shop_archive' } },
    });
    expect(back.status, back.text).toBe(200);
    expect(back.json.object.def).toMatchObject({ database: 'shop_archive', secretSet: true });
  });

  it('a YAML body meets the same rule', async () => {
    await create({
      ident: 'cred.yaml',
      type: 'credentials',
      name: 'Yaml',
      def: { ...base.sftp, secret: 'pw' },
    });
    const r = await s.api('PUT', obj('cred.yaml'), {
      raw: {
        type: 'application/yaml',
        data: 'name: Yaml\ndef:\n  kind: sftp\n  host: evil.example.net\n  port: 22\n  user: ursa\n',
      },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.context.field).toBe('def.secret');
  });
});

describe('flow definitions: values that may carry secrets are hidden below MD Admin', () => {
  const SECRETS = ['QUERY-SECRET-1', 'HEADER-SECRET-2', 'BODY-SECRET-3', 'FRAG-SECRET-4'];
  const input = {
    url: `http://api.example.com/v1/orders?api_key=${SECRETS[0]}&page=1#${SECRETS[3]}`,
    method: 'POST',
    headers: { 'X-Key': SECRETS[1] },
    body: { token: SECRETS[2], n: 5, on: true },
  };
  const hidden = {
    url: 'http://api.example.com/v1/orders?api_key=***&page=***#***',
    headers: { 'X-Key': '***' },
    body: { token: '***', n: '***', on: true },
  };
  let mcp: Client;
  beforeAll(async () => {
    await create(httpFlow('flow.secretive', input));
    mcp = await connectMcp(s, READER);
  });
  afterAll(async () => {
    await mcp?.close();
  });
  const noSecret = (text: string) => {
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  };

  it('shows them as *** to a member, through every door', async () => {
    const get = await s.api('GET', obj('flow.secretive'), { as: READER });
    expect(get.status).toBe(200);
    expect(get.json.object.def.boxes[0]).toMatchObject(hidden);
    for (const accept of ['application/json', 'text/yaml', 'text/html']) {
      const r = await s.api('GET', obj('flow.secretive'), { as: READER, accept });
      expect(r.status, `${accept}: ${r.text}`).toBe(200);
      expect(r.text).toContain('api_key=***');
      noSecret(r.text);
    }
    for (const path of [
      `/projects/${p}/pmd/obj?rel=object.flow`,
      `${obj('flow.secretive')}/history/1`,
      `/projects/${p}/pmd/bulkobj?idents=flow.secretive`,
      `/projects/${p}/inflow/flowlist?fullLoad=true`,
    ]) {
      const r = await s.api('GET', path, { as: READER });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      noSecret(r.text);
    }
    const list = await s.api('GET', `/projects/${p}/inflow/flowlist?fullLoad=true`, { as: READER });
    const f = list.json.flows.find((x: { id: string }) => x.id === 'flow.secretive');
    expect(f.inputs[0].source).toBe(hidden.url);
    const csv = await s.api('GET', `/projects/${p}/inflow/flowlist`, {
      as: READER,
      accept: 'text/csv',
    });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain('api_key=***');
    noSecret(csv.text);
    const tool = (await mcp.callTool({
      name: 'list_flows',
      arguments: { project: p, fullLoad: true },
    })) as CallToolResult;
    expect(tool.isError).toBeFalsy();
    noSecret(JSON.stringify(tool));
    const viaMcp = (
      tool.structuredContent as { flows: Array<{ id: string; def: { boxes: unknown[] } }> }
    ).flows.find((x) => x.id === 'flow.secretive')!;
    expect(viaMcp.def.boxes[0]).toMatchObject(hidden);
  });

  it('shows them as saved to MD Admins and Admins', async () => {
    for (const who of [MD, ADMIN]) {
      const r = await s.api('GET', obj('flow.secretive'), { as: who });
      expect(r.json.object.def.boxes[0]).toMatchObject(input);
    }
  });

  it('a redacted def sent back overwrites nothing: members cannot write, the mark is refused', async () => {
    const seen = (await s.api('GET', obj('flow.secretive'), { as: READER })).json.object;
    const asReader = await s.api('PUT', obj('flow.secretive'), { as: READER, body: seen });
    expect(asReader.status).toBe(403);
    const asMd = await s.api('PUT', obj('flow.secretive'), { as: MD, body: seen });
    expect(asMd.status, asMd.text).toBe(400);
    expect(asMd.json.context.field).toBe('def.boxes.0.url');
    expect(asMd.json.message).toContain('the mark of a value hidden from members below MD Admin');
    const headerOnly = structuredClone(
      (await s.api('GET', obj('flow.secretive'), { as: MD })).json.object,
    );
    headerOnly.def.boxes[0].headers['X-Key'] = '***';
    const h = await s.api('PUT', obj('flow.secretive'), { as: MD, body: headerOnly });
    expect(h.status, h.text).toBe(400);
    expect(h.json.context.field).toBe('def.boxes.0.headers.X-Key');
    const after = await s.api('GET', obj('flow.secretive'), { as: MD });
    expect(after.json.object.revision).toBe(1);
    expect(after.json.object.def.boxes[0]).toMatchObject(input);
  });

  it('refuses a user and password in the URL on save', async () => {
    const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: httpFlow('flow.userinfo', { url: 'https://me:pw@api.example.com/v1' }),
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json.context.field).toBe('def.boxes.0.url');
    expect(r.json.message).toContain('must not contain a user or password');
  });
});

describe('http credentials: an API key in a header or a query parameter', () => {
  const KEY = 'KEY-abc-123';

  it('sends the key in the named header, and no Authorization', async () => {
    await create({
      ident: 'cred.hkey',
      type: 'credentials',
      name: 'Header key',
      def: {
        kind: 'http',
        host: '127.0.0.1',
        apiKey: { in: 'header', name: 'X-Key' },
        secret: KEY,
      },
    });
    await create(httpFlow('flow.hkey', { url: `${api.url}/echo`, credentials: 'cred.hkey' }));
    const job = await run('flow.hkey');
    expect(job.status, job.message).toBe('OK');
    const seen = api.lastHeaders.get('/echo')!;
    expect(seen['x-key']).toBe(KEY);
    expect(seen.authorization).toBeUndefined();
    const read = await s.api('GET', obj('cred.hkey'));
    expect(read.json.object.def).toEqual({
      kind: 'http',
      host: '127.0.0.1',
      apiKey: { in: 'header', name: 'X-Key' },
      secretSet: true,
    });
  });

  it('sends the key in the named query parameter, beside the URL’s own', async () => {
    await create({
      ident: 'cred.qkey',
      type: 'credentials',
      name: 'Query key',
      def: { kind: 'http', apiKey: { in: 'query', name: 'api_key' }, secret: KEY },
    });
    await create(
      httpFlow('flow.qkey', { url: `${api.url}/echo?lang=en`, credentials: 'cred.qkey' }),
    );
    const job = await run('flow.qkey');
    expect(job.status, job.message).toBe('OK');
    const target = new URL(api.lastTarget.get('/echo')!, api.url);
    expect(target.searchParams.get('api_key')).toBe(KEY);
    expect(target.searchParams.get('lang')).toBe('en');
    expect(api.lastHeaders.get('/echo')!.authorization).toBeUndefined();
    const flow = await s.api('GET', obj('flow.qkey'));
    expect(flow.text).not.toContain(KEY);
  });

  it('refuses auth beside an API key, an API key on other kinds, and reserved header names', async () => {
    const auth = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: httpFlow('flow.keyauth', {
        url: `${api.url}/echo`,
        credentials: 'cred.hkey',
        auth: 'basic',
      }),
    });
    expect(auth.status, auth.text).toBe(400);
    expect(auth.json.context.field).toBe('def.boxes.0.auth');
    expect(auth.json.message).toContain(
      'send their secret as an API key (header "X-Key"); leave auth out',
    );
    const pg = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        type: 'credentials',
        name: 'PG key',
        def: {
          kind: 'postgres',
          host: 'db',
          user: 'u',
          apiKey: { in: 'query', name: 'k' },
          secret: 'x',
        },
      },
    });
    expect(pg.status).toBe(400);
    expect(pg.json.message).toMatch(/^invalid object: def\.apiKey: only credentials of kind http/);
    const reserved = await s.api('POST', `/projects/${p}/pmd/obj`, {
      body: {
        type: 'credentials',
        name: 'Host key',
        def: { kind: 'http', apiKey: { in: 'header', name: 'Host' }, secret: 'x' },
      },
    });
    expect(reserved.status).toBe(400);
    expect(reserved.json.message).toMatch(
      /^invalid object: def\.apiKey\.name: must not be one of host/,
    );
  });

  it('credentials that name a port are sent to that port only', async () => {
    await create({
      ident: 'cred.port',
      type: 'credentials',
      name: 'Port bound',
      def: { kind: 'http', host: '127.0.0.1', port: 1, secret: TOKEN },
    });
    await create(httpFlow('flow.port', { url: `${api.url}/echo`, credentials: 'cred.port' }));
    api.reset();
    const job = await run('flow.port');
    expect(job.status).toBe('ERROR');
    expect(job.message).toBe(
      `box "api" (credentials): credentials "cred.port" are for port 1, not ${api.port}`,
    );
    expect(api.total).toBe(0);
  });
});
