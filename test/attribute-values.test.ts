// get_attribute_values through every door — MCP, the AI chat agent's tool, and over REST the
// AQL it runs — for a dataset without a primary key (the trap: every value counted 1, in
// alphabetical order): each value's count is the number of rows of its dataset that hold
// it, most frequent first, ties by value, under the caller's row-level filter.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { createProject, loadDataset } from './helpers/fixtures.js';
import { isFinal, pollJob } from './helpers/jobs.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

// Bird strikes: no primary key, several rows per state and species, ties between CA and FL.
const STRIKES = [
  'state,species,height',
  'TX,Gull,10',
  'CA,Hawk,20',
  'TX,Goose,5',
  'FL,Gull,3',
  'TX,Gull,7',
  'CA,Gull,1',
  'NY,Hawk,2',
  'FL,Hawk,4',
  'TX,Hawk,9',
  'CA,Goose,8',
  'FL,Goose,6',
  'TX,Duck,1',
].join('\n');
const MEMBER = 'west-south@example.com';
const FILTER = '[State] IN ("CA", "FL")';

/** The expected listing, counted from the file: rows per value, most first, ties by value. */
function expected(column: 'state' | 'species', keep: (row: string[]) => boolean = () => true) {
  const [head, ...rows] = STRIKES.split('\n').map((l) => l.split(','));
  const i = head!.indexOf(column);
  const counts = new Map<string, number>();
  for (const r of rows.filter(keep)) counts.set(r[i]!, (counts.get(r[i]!) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
}
const inFilter = (r: string[]) => r[0] === 'CA' || r[0] === 'FL';

let s: TestServer;
let llm: FakeLlm;
let project: string;
let admin: Client;
let member: Client;

beforeAll(async () => {
  llm = await startFakeLlm();
  s = await startTestServer({
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_API_KEY: 'k-test',
    URSA_AI_MODEL: 'gpt-test',
    URSA_AI_STREAM: 'false',
    URSA_DEFAULT_PLAN: 'enterprise',
  });
  project = await createProject(s, 'strikes');
  await loadDataset(s, project, 'strikes', STRIKES, '', [
    ['state', 'A', 'string', 'State'],
    ['species', 'A', 'string', 'Species'],
    ['height', 'F', 'integer', 'Height'],
  ]);
  await invite(s, project, MEMBER, { filter: FILTER });
  admin = await connectMcp(s, ADMIN, 'values-admin');
  member = await connectMcp(s, MEMBER, 'values-member');
});
afterAll(async () => {
  await admin?.close();
  await member?.close();
  await s?.close();
  await llm?.close();
});

/** The REST door: GET pmd/obj/{id}/values, as `as`. */
async function restValues(as: string, attribute: string, query = '') {
  const r = await s.api(
    'GET',
    `/projects/${project}/pmd/obj/${encodeURIComponent(attribute)}/values${query}`,
    { as },
  );
  expect(r.status, r.text).toBe(200);
  return r.json as { values: { value: string; count: number }[]; truncated: boolean };
}

async function mcpValues(client: Client, attribute: string) {
  const r = (await client.callTool({
    name: 'get_attribute_values',
    arguments: { project, attribute },
  })) as CallToolResult;
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return (r.structuredContent as { values: { value: string; count: number }[] }).values;
}

/** The values the chat agent's tool handed the model, as the model received them. */
async function chatValues(as: string, attribute: string) {
  llm.requests.length = 0;
  llm.script(
    { toolCalls: [{ id: 'v1', name: 'get_attribute_values', arguments: { attribute } }] },
    { text: 'Listed.' },
  );
  const r = await s.api('POST', `/projects/${project}/app/ai/messages`, {
    as,
    body: { question: `Which values does ${attribute} have?` },
  });
  expect(r.status, r.text).toBe(202);
  const job = await pollJob(s.api, project, r.json.link[0].id, isFinal, { as, timeoutMs: 20_000 });
  expect(job.status, job.message).toBe('OK');
  const messages = llm.requests[1]!.body.messages as { role: string; content: string }[];
  const tool = messages.find((m) => m.role === 'tool')!;
  return (JSON.parse(tool.content) as { values: { value: string; count: number }[] }).values;
}

describe('attribute values of a dataset without a primary key', () => {
  it('MCP counts rows per value, most frequent first, ties by value', async () => {
    expect(await mcpValues(admin, 'State')).toEqual(expected('state'));
    expect(await mcpValues(admin, 'Species')).toEqual(expected('species'));
  });

  it("the chat agent's tool hands the model the same counts", async () => {
    expect(await chatValues(ADMIN, 'State')).toEqual(expected('state'));
    expect(await chatValues(ADMIN, 'Species')).toEqual(expected('species'));
  });

  it('both doors answer what the one engine function answers, which REST gets from AQL', async () => {
    const a = await s.engine.actor({ email: ADMIN }, project);
    const engine = await s.engine.catalog.attributeValues(a, 'Species', {});
    expect(engine.values).toEqual(await mcpValues(admin, 'Species'));
    expect(engine.values).toEqual(await chatValues(ADMIN, 'Species'));
    const r = await s.api('POST', `/projects/${project}/app/aql/execute`, {
      body: { aql: 'SELECT [Species], COUNT([strikes]) ORDER BY 2 DESC, 1' },
      headers: { Prefer: 'wait=10' },
    });
    expect(r.status, r.text).toBe(200);
    const rows = (r.json.data.values as string).split('\n').map((l) => l.split('\t'));
    expect(rows.map(([value, count]) => ({ value, count: Number(count) }))).toEqual(engine.values);
  });

  it("a member's row-level filter applies to the values and their counts, at every door", async () => {
    expect(await mcpValues(member, 'State')).toEqual(expected('state', inFilter));
    expect(await mcpValues(member, 'Species')).toEqual(expected('species', inFilter));
    expect(await chatValues(MEMBER, 'Species')).toEqual(expected('species', inFilter));
    expect((await restValues(MEMBER, 'attr.strikes.species')).values).toEqual(
      expected('species', inFilter),
    );
  });

  it('REST lists the same values, by prefix in any case and with a limit; bad input is a 400', async () => {
    expect(await restValues(ADMIN, 'attr.strikes.state')).toMatchObject({
      values: expected('state'),
      truncated: false,
    });
    expect((await restValues(ADMIN, 'attr.strikes.species', '?prefix=g')).values).toEqual(
      expected('species').filter((v) => v.value.startsWith('G')),
    );
    expect(await restValues(ADMIN, 'attr.strikes.state', '?limit=2')).toMatchObject({
      values: expected('state').slice(0, 2),
      truncated: true,
    });
    const path = (id: string, q = '') => `/projects/${project}/pmd/obj/${id}/values${q}`;
    const bad = await s.api('GET', path('attr.strikes.state', '?limit=0'));
    expect(bad.status).toBe(400);
    expect(bad.json.context.field).toBe('limit');
    const fact = await s.api('GET', path('fact.strikes.height'));
    expect(fact.status).toBe(400);
    expect(fact.json.message).toMatch(/is a fact/);
    expect((await s.api('GET', path('attr.strikes.nothing'))).status).toBe(404);
  });
});
