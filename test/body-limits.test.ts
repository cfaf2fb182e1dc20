// Request bodies are held to limits whatever their format (issue 10, item 2): YAML alias
// bombs, documents nested too deep or holding too many values are refused with 400 in the
// error shape, before anything is stored, and the server keeps answering. YAML follows the
// 1.2 core schema, so an unquoted date arrives as the string the schemas expect.
import * as yaml from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpAudience } from '../src/engine/config.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const UUID = /^[0-9a-f-]{36}$/;

function expect400(r: { status: number; json: unknown; text: string }, limit: string) {
  expect(r.status, r.text.slice(0, 300)).toBe(400);
  const body = r.json as { statusCode: number; message: string; context: Record<string, unknown> };
  expect(Object.keys(body).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
  expect((body as unknown as { errorId: string }).errorId).toMatch(UUID);
  expect(body.context.limit, body.message).toBe(limit);
  return body;
}

// An HTTP box keeps the JSON body it sends as given, so whatever a request holds there is
// stored: the place where an expanded bomb or a deep document did its damage.
const OUT = { id: 'b', type: 'output.storage', path: '/b.csv', format: 'csv' };
const HTTP = { id: 'a', type: 'input.http', url: 'https://example.org/x', method: 'POST' };
const flowJson = (payload: unknown, name = 'Payload') => ({
  type: 'flow',
  name,
  def: { boxes: [OUT, { ...HTTP, body: payload }], edges: [{ from: 'a', to: 'b' }] },
});

const flowYaml = (payloadYaml: string, name = 'Payload') =>
  `type: flow\nname: ${name}\ndef:\n  edges:\n    - from: a\n      to: b\n  boxes:\n    - id: b\n      type: output.storage\n      path: /b.csv\n      format: csv\n    - id: a\n      type: input.http\n      url: https://example.org/x\n      method: POST\n${payloadYaml}`;

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

// Billion laughs: each level repeats the previous one nine times (9^6 "lol"s here).
const LAUGHS = ['a', 'b', 'c', 'd', 'e', 'f']
  .map((k, i, all) => {
    const items = i === 0 ? Array(9).fill('lol') : Array(9).fill(`*${all[i - 1]}`);
    return `      ${k}: &${k} [${items.join(', ')}]\n`;
  })
  .join('');

describe('request body limits', () => {
  let s: TestServer;
  let objects: string;

  beforeAll(async () => {
    s = await startTestServer();
    objects = `/projects/${s.demo}/pmd/obj`;
  });
  afterAll(() => s?.close());

  const post = (body: { json?: unknown; yaml?: string; form?: string }) =>
    s.api('POST', objects, {
      ...(body.json !== undefined ? { body: body.json } : {}),
      ...(body.yaml !== undefined ? { raw: { type: 'text/yaml', data: body.yaml } } : {}),
      ...(body.form !== undefined
        ? { raw: { type: 'application/x-www-form-urlencoded', data: body.form } }
        : {}),
    });

  const flowNames = async (): Promise<string[]> => {
    const r = await s.api('GET', `${objects}?rel=object.flow`);
    expect(r.status, r.text).toBe(200);
    return r.json.objects.map((o: { name: string }) => o.name);
  };

  it('refuses a YAML alias bomb (billion laughs), stores nothing and keeps serving', async () => {
    const r = await post({ yaml: flowYaml(LAUGHS, 'Bomb') });
    const body = expect400(r, 'aliases');
    expect(body.message).toMatch(/^the YAML body repeats anchored content through aliases/);
    expect(body.context).toMatchObject({ type: 'yaml', max: 100 });
    expect(await flowNames()).not.toContain('Bomb');
    const health = await s.api('GET', '/projects');
    expect(health.status).toBe(200);
  });

  it('counts values as if aliases were copies: one big anchor repeated is too many', async () => {
    const anchor = `      big: &big [${Array(2000).fill(1).join(',')}]\n`;
    const uses = `      copies: [${Array(60).fill('*big').join(', ')}]\n`;
    const body = expect400(await post({ yaml: flowYaml(anchor + uses, 'Copies') }), 'nodes');
    expect(body.message).toBe('the YAML body holds more than 100000 values');
    expect(await flowNames()).not.toContain('Copies');
  });

  it('refuses JSON nested 100,000 deep, and one level past the limit', async () => {
    const deep = `{"type":"flow","name":"Deep","def":{"boxes":[{"id":"a","type":"input.http","url":"https://example.org/x","body":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}}`;
    const r = await s.api('POST', objects, { raw: { type: 'application/json', data: deep } });
    const body = expect400(r, 'depth');
    expect(body.message).toBe('the JSON body nests deeper than 64 levels');
    expect(body.context).toEqual({ type: 'json', limit: 'depth', max: 64 });
    // body, def, boxes and the box are four levels: a payload 60 deep is the most allowed.
    expect400(await post({ json: flowJson(nested(61), 'Deep61') }), 'depth');
    const ok = await post({ json: flowJson(nested(60), 'Deep60') });
    expect(ok.status, ok.text).toBe(201);
    expect(await flowNames()).toEqual(expect.arrayContaining(['Deep60']));
    expect(await flowNames()).not.toContain('Deep61');
  });

  it('refuses YAML nested too deep, in flow and in block style', async () => {
    const flow = `      body: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(expect400(await post({ yaml: flowYaml(flow, 'DeepFlow') }), 'depth').message).toBe(
      'the YAML body nests deeper than 64 levels',
    );
    const block =
      '      body:\n' +
      Array.from({ length: 200 }, (_, i) => `${' '.repeat(8 + 2 * i)}- `).join('\n') +
      'x\n';
    expect400(await post({ yaml: flowYaml(block, 'DeepBlock') }), 'depth');
    const ok = await post({ yaml: flowYaml(`      body: ${JSON.stringify(nested(60))}\n`) });
    expect(ok.status, ok.text).toBe(201);
    expect(await flowNames()).not.toContain('DeepFlow');
    expect(await flowNames()).not.toContain('DeepBlock');
  });

  it('refuses a JSON body holding more than 100,000 values', async () => {
    const many = flowJson(Array(150_000).fill(0), 'Many');
    const body = expect400(await post({ json: many }), 'nodes');
    expect(body.message).toBe('the JSON body holds more than 100000 values');
    expect(await flowNames()).not.toContain('Many');
  });

  it('refuses a YAML body with more tokens than 100,000 values could need', async () => {
    const many = `      body: [${Array(400_000).fill(0).join(',')}]\n`;
    const body = expect400(await post({ yaml: flowYaml(many, 'ManyYaml') }), 'tokens');
    expect(body.message).toMatch(/^the YAML body has more than \d+ tokens/);
  });

  it('refuses form fields nested too deep, and too many of them, with clear messages', async () => {
    const deep = `name=x&def${'[a]'.repeat(70)}=1`;
    const body = expect400(await post({ form: deep }), 'depth');
    expect(body.message).toBe('the form body nests deeper than 64 levels');
    const fields = Array.from({ length: 10_001 }, (_, i) => `f${i}=1`).join('&');
    const r = await post({ form: fields });
    expect(r.status, r.text).toBe(413);
    expect(r.json.message).toBe('the form body has more than 10000 fields');
  });

  it('reads YAML as 1.2 core: the announcement example with an unquoted date is accepted', async () => {
    // docs/api.md, PUT /projects/{project}/announce
    const data = 'title: Maintenance\nmessage: Down at 22:00\nendDate: 2026-12-01';
    const put = await s.api('PUT', `/projects/${s.demo}/announce`, {
      raw: { type: 'text/yaml', data },
    });
    expect(put.status, put.text).toBe(200);
    const get = await s.api('GET', `/projects/${s.demo}/announce`);
    expect(get.json.announcement).toMatchObject({
      title: 'Maintenance',
      message: 'Down at 22:00',
      endDate: '2026-12-01',
    });
    // YAML out quotes it, so YAML 1.1 readers (dates as timestamps) read a string too.
    const y = await s.api('GET', `/projects/${s.demo}/announce?format=yaml`);
    expect(y.text).toContain('endDate: "2026-12-01"');
    expect(yaml.parse(y.text)).toEqual(get.json);
  });

  it('still refuses malformed YAML and duplicate keys with the position', async () => {
    const r = await post({ yaml: 'type: flow\nname: a\nname: b\n' });
    expect(r.status).toBe(400);
    expect(r.json.message).toBe(
      'the YAML body does not parse: duplicate key "name" (line 3, column 1)',
    );
    expect(r.json.context).toEqual({ type: 'yaml', line: 3, column: 1 });
    const two = await post({ yaml: 'a: 1\n---\nb: 2\n' });
    expect(two.status).toBe(400);
    expect(two.json.message).toBe(
      'the YAML body does not parse: 2 documents where one is expected',
    );
  });
});

describe('MCP request bodies', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('refuses JSON nested too deep with a JSON-RPC parse error, before it is built', async () => {
    const token = await s.engine.issueToken('admin@example.com', {
      audience: mcpAudience(s.engine.config),
    });
    const r = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '['.repeat(100_000) + ']'.repeat(100_000),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32700);
    expect(body.error.message).toMatch(/nest/i);
    // The server still answers.
    expect((await s.api('GET', '/projects')).status).toBe(200);
  });
});
