// The AI chat answers "show me the ops dashboard" with a link: find_dashboards lists what the
// asking member may open (their roles, or a share) with each one's URL, the system prompt
// says to link those URLs and never invent one, and the answer's `links` holds the ones used.
// A scripted fake LLM (OpenAI wire format) plays the model, over real HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadChatPrompts } from '../src/engine/ai/prompts.js';
import { mcpAudience } from '../src/engine/config.js';
import { TOOLS } from '../src/engine/tools/catalog.js';
import { startFakeLlm, type FakeLlm, type FakeToolCall } from './helpers/fake-llm.js';
import { createProject, loadDataset } from './helpers/fixtures.js';
import { isFinal, pollJob, type JobJson } from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const MEMBER = 'dash-member@example.com'; // no role
const FINANCE = 'dash-finance@example.com'; // role "finance"
const SHARED = 'dash-shared@example.com'; // no role; the finance dashboard is shared with them

let s: TestServer;
let llm: FakeLlm;
let p: string;

interface Item {
  kind: string;
  ident: string;
  name: string;
  description: string;
  url: string;
}
interface Answer {
  answer: string;
  links: Array<{ kind: string; ident: string; name: string; url: string }>;
}

/** The final answer the fake model writes, from the tool results it was sent. */
let answerFrom: (results: string[]) => string = () => 'Done.';

const call = (args: Record<string, unknown>, id = 'c1'): FakeToolCall => ({
  id,
  name: 'find_dashboards',
  arguments: args,
});

/** The tool results (OpenAI `role: tool` messages) of a request the fake model received. */
const toolResults = (body: Record<string, unknown>): string[] =>
  ((body.messages ?? []) as Array<{ role: string; content: string }>)
    .filter((m) => m.role === 'tool')
    .map((m) => m.content);

/** The items of the last find_dashboards result. */
const itemsOf = (results: string[]): Item[] =>
  (JSON.parse(results[results.length - 1]!) as { items: Item[] }).items;

const url = (kind: 'dashboards' | 'reports', ident: string) =>
  `${s.engine.config.siteUrl}/api/v1/projects/${p}/app/${kind}/${ident}`;

async function ask(question: string, as = ADMIN): Promise<Answer> {
  const r = await s.api('POST', `/projects/${p}/app/ai/messages`, { as, body: { question } });
  expect(r.status, r.text).toBe(202);
  const job = await pollJob(s.api, p, r.json.link[0].id, isFinal, { as, timeoutMs: 20_000 });
  expect(job.status, job.message).toBe('OK');
  return (job as JobJson & { result: Answer }).result;
}

beforeAll(async () => {
  llm = await startFakeLlm([], {
    respond: (body) => ({ text: answerFrom(toolResults(body)) }),
  });
  s = await startTestServer({
    URSA_AI_PROVIDER: 'openai',
    URSA_AI_BASE_URL: `${llm.url}/v1`,
    URSA_AI_API_KEY: 'k-test',
    URSA_AI_MODEL: 'gpt-test',
    URSA_DEFAULT_PLAN: 'enterprise',
  });
  p = await createProject(s, 'aidash', 'AI dashboards');
  await loadDataset(s, p, 'sales', 'order_id,region,amount\n1,EU,100\n2,US,400\n', 'order_id', [
    ['order_id', 'A', 'integer', 'Order'],
    ['region', 'A', 'string', 'Region'],
    ['amount', 'F', 'integer', 'Amount'],
  ]);
  await invite(s, p, MEMBER);
  await invite(s, p, FINANCE, { roles: ['finance'] });
  await invite(s, p, SHARED);
  const report = (ident: string, name: string, acl: unknown[] = []) => ({
    ident,
    type: 'report',
    name,
    acl,
    def: { aql: 'SELECT [Region], SUM([Amount])', visualization: { type: 'bar' } },
  });
  const dashboard = (ident: string, name: string, reportIdent: string, extra = {}) => ({
    ident,
    type: 'dashboard',
    name,
    def: { items: [{ id: 'a', report: reportIdent }], layout: [], filters: [] },
    ...extra,
  });
  const FIN = [{ userrole: 'finance', acl: 'r----' }];
  const r = await s.api('POST', `/projects/${p}/pmd/obj`, {
    body: [
      report('report.ops_delays', 'Ops delays'),
      report('report.margins', 'Margins', FIN),
      dashboard('dashboard.ops', 'Ops dashboard', 'report.ops_delays', {
        description: 'Operations overview: delays by region',
      }),
      dashboard('dashboard.ops_archive', 'Old ops', 'report.ops_delays'),
      dashboard('dashboard.finance', 'Finance board', 'report.margins', {
        description: 'Margins for the board',
        acl: FIN,
      }),
    ],
  });
  expect(r.status, r.text).toBe(201);
  const shared = await s.api('POST', `/projects/${p}/pmd/share`, {
    body: { type: 'private', object: 'dashboard.finance', users: [SHARED] },
  });
  expect(shared.status, shared.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await s?.close();
  await llm?.close();
});

beforeEach(() => {
  llm.requests.length = 0;
  answerFrom = () => 'Done.';
});

describe('find_dashboards in the AI chat', () => {
  it('gives the MCP ask tool the links of its answer', async () => {
    llm.script({ toolCalls: [call({ query: 'ops dashboard' })] });
    answerFrom = (results) => {
      const [best] = itemsOf(results);
      return `Open [${best!.name}](${best!.url}).`;
    };
    const token = await s.engine.issueToken(ADMIN, { audience: mcpAudience(s.engine.config) });
    const client = new Client({ name: 'ai-dashboards-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const res = (await client.callTool({
        name: 'ask',
        arguments: { project: p, question: 'Show me the ops dashboard' },
      })) as CallToolResult;
      expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
      const expected = url('dashboards', 'dashboard.ops');
      expect(res.structuredContent).toMatchObject({
        status: 'OK',
        answer: `Open [Ops dashboard](${expected}).`,
        links: [
          { kind: 'dashboard', ident: 'dashboard.ops', name: 'Ops dashboard', url: expected },
        ],
      });
    } finally {
      await client.close();
    }
  });

  it('answers "show me the ops dashboard" with its link', async () => {
    llm.script({ toolCalls: [call({ query: 'ops dashboard' })] });
    answerFrom = (results) => {
      const [best] = itemsOf(results);
      return `Here it is: [${best!.name}](${best!.url}).`;
    };
    const r = await ask('Show me the ops dashboard');
    const expected = url('dashboards', 'dashboard.ops');
    expect(r.answer).toBe(`Here it is: [Ops dashboard](${expected}).`);
    expect(r.links).toEqual([
      { kind: 'dashboard', ident: 'dashboard.ops', name: 'Ops dashboard', url: expected },
    ]);
    // What the model read: the best match first, with its description and URL.
    const items = itemsOf(toolResults(llm.requests[1]!.body));
    expect(items[0]).toEqual({
      kind: 'dashboard',
      ident: 'dashboard.ops',
      name: 'Ops dashboard',
      description: 'Operations overview: delays by region',
      url: expected,
    });
    expect(items.map((i) => i.ident)).toEqual([
      'dashboard.ops',
      'dashboard.ops_archive',
      'report.ops_delays',
    ]);
    // The link opens the dashboard for the member who asked.
    const page = await s.api('GET', expected);
    expect(page.status, page.text).toBe(200);
    expect(page.json.items).toHaveLength(1);
  });

  it('a member is never given what they may not open', async () => {
    llm.script({ toolCalls: [call({})] });
    await ask('Which dashboards are there?', MEMBER);
    const seen = toolResults(llm.requests[1]!.body)[0]!;
    // Dashboards, then reports, each by title.
    expect(itemsOf([seen]).map((i) => i.ident)).toEqual([
      'dashboard.ops_archive',
      'dashboard.ops',
      'report.ops_delays',
    ]);
    expect(seen).not.toMatch(/finance|Finance|margins|Margins/);

    // Asked by name, nothing: the model reads that nothing matches.
    llm.script({ toolCalls: [call({ query: 'finance' })] });
    await ask('Show me the finance board', MEMBER);
    const none = JSON.parse(toolResults(llm.requests[3]!.body)[0]!);
    expect(none).toMatchObject({ total: 0, items: [] });
    expect(none.note).toMatch(/none of the dashboards or reports you may open matches "finance"/);
  });

  it('a member whose role reads it, or with whom it is shared, gets it', async () => {
    for (const who of [FINANCE, SHARED]) {
      llm.requests.length = 0;
      llm.script({ toolCalls: [call({ query: 'finance' })] });
      answerFrom = (results) =>
        itemsOf(results)
          .map((i) => `[${i.name}](${i.url})`)
          .join('\n');
      const r = await ask('Show me the finance board', who);
      expect(r.links, who).toEqual([
        {
          kind: 'dashboard',
          ident: 'dashboard.finance',
          name: 'Finance board',
          url: url('dashboards', 'dashboard.finance'),
        },
      ]);
    }
    // Reports of a shared dashboard open through the share too.
    llm.requests.length = 0;
    llm.script({ toolCalls: [call({ kind: 'report' })] });
    await ask('Which reports are there?', SHARED);
    expect(itemsOf(toolResults(llm.requests[1]!.body)).map((i) => [i.ident, i.url])).toEqual([
      ['report.margins', url('reports', 'report.margins')],
      ['report.ops_delays', url('reports', 'report.ops_delays')],
    ]);
  });

  it('links keeps only URLs the tool returned, not ones the model made up', async () => {
    llm.script({ toolCalls: [call({ query: 'ops' })] });
    const madeUp = url('dashboards', 'dashboard.ops_overview');
    answerFrom = (results) =>
      `See [Ops](${madeUp}) and [the archive](${itemsOf(results).find((i) => i.name === 'Old ops')!.url}).`;
    const r = await ask('Show me the ops dashboard');
    expect(r.answer).toContain(madeUp);
    expect(r.links.map((l) => l.ident)).toEqual(['dashboard.ops_archive']);
  });

  it('the prompt and the tool list tell the model to link what find_dashboards returns', async () => {
    const system = loadChatPrompts().system;
    expect(system).toContain('`find_dashboards`');
    expect(system).toMatch(/Never invent, guess, build or change a URL/);
    expect(TOOLS.find_dashboards.doors).toEqual(['chat']);

    llm.script({ toolCalls: [call({ query: 'nothing like this' })] });
    await ask('Show me the sales dashboard');
    const sent = llm.requests[0]!.body;
    expect(JSON.stringify(sent.messages)).toContain('link only URLs `find_dashboards` returned');
    const tool = (sent.tools as Array<{ function: { name: string; description: string } }>).find(
      (t) => t.function.name === 'find_dashboards',
    );
    expect(tool?.function.description).toBe(TOOLS.find_dashboards.description);
    const result = JSON.parse(toolResults(llm.requests[1]!.body)[0]!);
    expect(result.items).toEqual([]);
  });
});
