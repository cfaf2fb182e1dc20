// AI chat over real HTTP: the real OpenAI and Anthropic SDK clients talk to a scripted fake
// LLM on loopback (JSON and SSE), the agent runs real AQL on a loaded dataset.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { mcpAudience } from '../src/engine/config.js';
import { jobs } from '../src/engine/db/schema.js';
import { startFakeLlm, type FakeLlm, type FakeToolCall } from './helpers/fake-llm.js';
import { createProject, loadDataset, writePlansFile } from './helpers/fixtures.js';
import { isFinal, jobPath, pollJob, type JobJson } from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const SALES_CSV = 'order_id,region,amount\n1,EU,100\n2,EU,250\n3,US,400\n4,US,50\n5,APAC,75\n';
const MEMBER = 'ai-member@example.com';
const EU_ONLY = 'ai-eu@example.com';

const loadSales = (s: TestServer, project: string) =>
  loadDataset(s, project, 'sales', SALES_CSV, 'order_id', [
    ['order_id', 'A', 'integer', 'Order'],
    ['region', 'A', 'string', 'Region'],
    ['amount', 'F', 'integer', 'Amount'],
  ]);

interface Setup {
  s: TestServer;
  llm: FakeLlm;
  project: string;
}

async function setup(provider: 'openai' | 'anthropic', env: Record<string, string> = {}) {
  const llm = await startFakeLlm();
  const s = await startTestServer({
    URSA_AI_PROVIDER: provider,
    URSA_AI_BASE_URL: provider === 'openai' ? `${llm.url}/v1` : llm.url,
    URSA_AI_API_KEY: 'k-test',
    URSA_AI_MODEL: provider === 'openai' ? 'gpt-test' : 'claude-test',
    URSA_AI_TIMEOUT_MS: '3000',
    URSA_DEFAULT_PLAN: 'enterprise',
    ...env,
  });
  const project = await createProject(s, 'aichat');
  await loadSales(s, project);
  await invite(s, project, MEMBER);
  await invite(s, project, EU_ONLY, { filter: '[Region] = "EU"' });
  return { s, llm, project };
}

const call = (name: string, args: Record<string, unknown>, id = `call-${name}`): FakeToolCall => ({
  id,
  name,
  arguments: args,
});

async function ask(
  t: Setup,
  question: string,
  opts: { as?: string; conversation?: string } = {},
): Promise<{ job: JobJson; conversation: string; message: string }> {
  const r = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
    as: opts.as,
    body: { question, ...(opts.conversation ? { conversation: opts.conversation } : {}) },
  });
  expect(r.status, r.text).toBe(202);
  const job = await pollJob(t.s.api, t.project, r.json.link[0].id, isFinal, {
    as: opts.as,
    timeoutMs: 20_000,
  });
  return { job, conversation: r.json.conversation, message: r.json.message };
}

/**
 * The activity event of an AI message's job. The job's finish listener records it just after
 * the final status is stored, so a poll can see the job end a moment before its event.
 */
async function activityOf(t: Setup, job: string): Promise<unknown> {
  for (const deadline = Date.now() + 10_000; ;) {
    const r = await t.s.api('GET', `/projects/${t.project}/activity?types=user_action`);
    const ev = r.json.activity.find((e: { detail: { job?: string } }) => e.detail.job === job);
    if (ev || Date.now() > deadline) return ev;
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** The chat messages the provider received in request `i`, whatever its wire format. */
function wire(t: Setup, i: number): string {
  return JSON.stringify(t.llm.requests[i]!.body);
}

describe.each([
  ['openai', true],
  ['openai', false],
  ['anthropic', true],
  ['anthropic', false],
] as const)('%s (stream=%s)', (provider, stream) => {
  let t: Setup;
  beforeAll(async () => {
    t = await setup(provider, { URSA_AI_STREAM: String(stream) });
  });
  afterAll(async () => {
    await t.s.close();
    await t.llm.close();
  });
  beforeEach(() => {
    t.llm.requests.length = 0;
  });

  it('tool call → wrong field → corrected call → grounded answer', async () => {
    t.llm.script(
      {
        toolCalls: [call('run_aql', { aql: 'SELECT [Regoin], SUM([Amount])' }, 'c1')],
        usage: { input: 100, output: 10 },
      },
      {
        toolCalls: [
          call(
            'run_aql',
            { aql: 'SELECT [Region], SUM([Amount]) AS "Sales" ORDER BY 2 DESC' },
            'c2',
          ),
        ],
        usage: { input: 150, output: 12 },
      },
      {
        text: 'The **US** leads with 450 in sales, then EU with 350 and APAC with 75.',
        usage: { input: 200, output: 20 },
      },
    );
    const { job, conversation } = await ask(t, 'Which region sells the most?');
    expect(job.status, job.message).toBe('OK');
    const result = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({
      conversation,
      question: 'Which region sells the most?',
      answer: 'The **US** leads with 450 in sales, then EU with 350 and APAC with 75.',
      steps: 3,
      complete: true,
      unverifiedNumbers: [],
      usage: { inputTokens: 450, outputTokens: 42 },
      provider,
      chart: null,
    });
    const queries = result.queries as { id: string; rows: string[][]; error?: string }[];
    expect(queries).toHaveLength(2);
    expect(queries[0]!.error).toMatch(/Regoin/);
    expect(queries[1]).toMatchObject({
      id: 'q2',
      rows: [
        ['US', 450],
        ['EU', 350],
        ['APAC', 75],
      ],
      totalRows: 3,
      truncated: false,
    });

    expect(t.llm.requests).toHaveLength(3);
    const first = t.llm.requests[0]!.body;
    expect(first['stream'] === true).toBe(stream);
    const tools = first['tools'] as { name?: string; function?: { name: string } }[];
    expect(tools.map((x) => x.name ?? x.function?.name).sort()).toEqual([
      'aql_help',
      'compatible_objects',
      'explain_aql',
      'find_dashboards',
      'get_attribute_values',
      'get_model',
      'make_chart',
      'run_aql',
      'search_objects',
    ]);
    // The system prompt (from prompts/chat/system.md) carries the model overview.
    expect(wire(t, 0)).toContain('Ground every number');
    expect(wire(t, 0)).toContain('[Region]');
    // The failed query's error went back to the model, with the suggestion to fix it.
    const second = wire(t, 1);
    expect(second).toMatch(/AQL error/);
    expect(second).toMatch(/Region/);
    if (provider === 'anthropic') expect(second).toContain('"is_error":true');
    // The corrected query's rows reached the model, typed: numbers are numbers.
    expect(wire(t, 2)).toContain('[\\"US\\",450]');
  });
});

describe.each(['openai', 'anthropic'] as const)('AI chat behaviour (%s, streaming)', (provider) => {
  let t: Setup;
  beforeAll(async () => {
    // One common job slot: AI answers have their own pool and must not take it.
    // URSA_MCP_ASK_WAIT_MS: the earlier name of URSA_MCP_WAIT_MS, still read.
    t = await setup(provider, { URSA_JOB_CONCURRENCY: '1', URSA_MCP_ASK_WAIT_MS: '2000' });
  });
  afterAll(async () => {
    await t.s.close();
    await t.llm.close();
  });
  beforeEach(() => {
    t.llm.requests.length = 0;
  });

  it('says it is configured, to any member', async () => {
    const r = await t.s.api('GET', `/projects/${t.project}/app/ai`, { as: MEMBER });
    expect(r.status, r.text).toBe(200);
    expect(r.json.configured).toBe(true);
    expect(r.json.message).toBeUndefined();
  });

  it('answers as the asking member: their row filter applies to every tool', async () => {
    t.llm.script(
      { toolCalls: [call('get_attribute_values', { attribute: 'Region' })] },
      { toolCalls: [call('run_aql', { aql: 'SELECT [Region], SUM([Amount])' })] },
      { text: 'EU sold 350.' },
    );
    const { job } = await ask(t, 'Sales by region?', { as: EU_ONLY });
    expect(job.status, job.message).toBe('OK');
    const r = (job as JobJson & { result: { queries: { rows: unknown[][] }[] } }).result;
    expect(r.queries[0]!.rows).toEqual([['EU', 350]]);
    // The values and the rows the model saw hold no other region.
    for (const i of [1, 2]) {
      expect(wire(t, i)).toContain('EU');
      expect(wire(t, i)).not.toMatch(/\\"US\\"|APAC/);
    }
    // The answer is the member's own: an Admin sees the job, not what it answered.
    const asAdmin = await t.s.api('GET', jobPath(t.project, job.id));
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.json.result).toBeUndefined();
    const asOwner = await t.s.api('GET', jobPath(t.project, job.id), { as: EU_ONLY });
    expect(asOwner.json.result.answer).toBe('EU sold 350.');
    // Nor does the model overview: no examples, no row count over every row.
    expect(wire(t, 0)).toContain('- dataset sales\\n');
    // The system prompt tells the model the filter exists.
    expect(wire(t, 0)).toContain('[Region] = \\"EU\\"');
  });

  it('sends an answer with numbers found in no result back once, then flags them', async () => {
    t.llm.script({ text: 'Total sales were 9,999.' }, { text: 'Total sales were 9,999 for sure.' });
    const { job, conversation } = await ask(t, 'What were total sales?');
    expect(job.status, job.message).toBe('OK');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(wire(t, 1)).toContain('appear in no query result: 9,999');
    expect(r.unverifiedNumbers).toEqual(['9,999']);
    expect(r.answer).toMatch(/not found in the query results: 9,999/);
    expect(r.steps).toBe(2);
    // Repeating it later does not make it true: an unverified answer is no source.
    t.llm.script({ text: 'Again: 9999.' }, { text: 'Again: 9999.' });
    const next = await ask(t, 'Sure?', { conversation });
    const r2 = (next.job as JobJson & { result: Record<string, unknown> }).result;
    expect(r2.unverifiedNumbers).toEqual(['9999']);
    // Figures of earlier results, and of the question, stay sources (with separators too).
    t.llm.script(
      { toolCalls: [call('run_aql', { aql: 'SELECT SUM([Amount])' })] },
      { text: 'Sales were 875.' },
    );
    const third = await ask(t, 'Real total, over 1,500 orders?', { conversation });
    t.llm.script({ text: 'Yes: 875 in all, not 1,500.' });
    const fourth = await ask(t, 'Sure?', { conversation: third.conversation });
    const r4 = (fourth.job as JobJson & { result: Record<string, unknown> }).result;
    expect(r4.unverifiedNumbers).toEqual([]);
  });

  it('accepts figures that round a result: no nudge', async () => {
    t.llm.script(
      { toolCalls: [call('run_aql', { aql: 'SELECT AVG([Amount])' })] },
      { text: 'The average order is 175.0, about 0.2K.' },
    );
    const { job } = await ask(t, 'Average order?');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(r.unverifiedNumbers).toEqual([]);
    expect(t.llm.requests).toHaveLength(2);
  });

  it('draws a chart of a query as SVG, served with the answer', async () => {
    t.llm.script(
      {
        toolCalls: [
          call('run_aql', { aql: 'SELECT [Region], SUM([Amount]) AS "Sales" ORDER BY 1' }),
        ],
      },
      { toolCalls: [call('make_chart', { query: 'q9', mark: 'bar', x: 'Region', y: 'Sales' })] },
      {
        toolCalls: [
          call('make_chart', { query: 'q1', mark: 'bar', x: 'Region', y: 'Sales', title: 'Sales' }),
        ],
      },
      { text: 'Sales by region: APAC 75, EU 350, US 450.' },
    );
    const { job, conversation, message } = await ask(t, 'Chart sales by region');
    expect(job.status, job.message).toBe('OK');
    // The wrong query id was explained to the model.
    expect(wire(t, 2)).toContain('no query \\"q9\\"; queries with results: q1');
    const r = (job as JobJson & { result: { chart: { queryId: string; svg: string } } }).result;
    expect(r.chart.queryId).toBe('q1');
    expect(r.chart.svg).toMatch(/^<svg/);
    const view = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${conversation}`,
    );
    const chartLink = view.json.conversation.messages[0].link.find(
      (l: { rel: string }) => l.rel === 'chart',
    );
    expect(chartLink.href).toContain(`/messages/${message}/chart`);
    // Result rows read by a client (the job, the conversation) type their number columns.
    const sales = [
      ['APAC', 75],
      ['EU', 350],
      ['US', 450],
    ];
    expect(
      (job as unknown as { result: { queries: { rows: unknown }[] } }).result.queries[0]!.rows,
    ).toEqual(sales);
    expect(view.json.conversation.messages[0].answer.queries[0].rows).toEqual(sales);
    // Each column says whether it is a measure (a client formats those) or a dimension.
    const columns = [
      { title: 'Region', kind: 'dimension', dataType: 'string' },
      { title: 'Sales', kind: 'measure', dataType: expect.any(String) },
    ];
    expect(
      (job as unknown as { result: { queries: { columns: unknown }[] } }).result.queries[0]!
        .columns,
    ).toEqual(columns);
    expect(view.json.conversation.messages[0].answer.queries[0].columns).toEqual(columns);
    const svg = await t.s.api('GET', chartLink.href.replace('/api/v1', ''), { accept: '*/*' });
    expect(svg.status).toBe(200);
    expect(svg.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(svg.text).toContain('EU');
    expect(svg.text).toContain('APAC');
  });

  it('continues a conversation with its history; one question at a time; private', async () => {
    t.llm.script({ text: 'There are 5 orders.' });
    const first = await ask(t, 'How many orders?');
    expect(first.job.status).toBe('OK');
    // The next answer waits, so the conversation is busy meanwhile.
    t.llm.script({ text: 'None were refunded.', delayMs: 800 });
    const r2 = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      body: { question: 'And refunds?', conversation: first.conversation },
    });
    expect(r2.status, r2.text).toBe(202);
    const busy = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      body: { question: 'Hello?', conversation: first.conversation },
    });
    expect(busy.status, busy.text).toBe(409);
    expect(busy.json.message).toMatch(/still answering/);
    const done = await pollJob(t.s.api, t.project, r2.json.link[0].id, isFinal);
    expect(done.status, done.message).toBe('OK');
    // The history went to the model: the first question and its answer.
    const hist = wire(t, 1);
    expect(hist).toContain('How many orders?');
    expect(hist).toContain('There are 5 orders.');

    const view = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${first.conversation}`,
    );
    expect(view.status, view.text).toBe(200);
    expect(view.json.conversation).toMatchObject({
      id: first.conversation,
      title: 'How many orders?',
    });
    expect(
      view.json.conversation.messages.map((m: { question: string; status: string }) => [
        m.question,
        m.status,
      ]),
    ).toEqual([
      ['How many orders?', 'OK'],
      ['And refunds?', 'OK'],
    ]);
    expect(view.json.conversation.messages[1].answer.answer).toBe('None were refunded.');

    const list = await t.s.api('GET', `/projects/${t.project}/app/ai/conversations`);
    expect(list.json.conversations[0]).toMatchObject({ id: first.conversation, messages: 2 });
    // Another member — even with more rights — sees nothing of it.
    const other = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${first.conversation}`,
      { as: MEMBER },
    );
    expect(other.status).toBe(404);
    const theirs = await t.s.api('GET', `/projects/${t.project}/app/ai/conversations`, {
      as: MEMBER,
    });
    expect(theirs.json.conversations).toEqual([]);
    const foreign = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      as: MEMBER,
      body: { question: 'x', conversation: first.conversation },
    });
    expect(foreign.status).toBe(404);

    // Deleting removes the conversation and the answers its jobs held.
    const del = await t.s.api(
      'DELETE',
      `/projects/${t.project}/app/ai/conversations/${first.conversation}`,
    );
    expect(del.status, del.text).toBe(204);
    const gone = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${first.conversation}`,
    );
    expect(gone.status).toBe(404);
    const j = await t.s.api('GET', jobPath(t.project, first.job.id));
    expect(j.json.result).toBeUndefined();
  });

  it('a question whose job a restart ended shows that, and frees the conversation', async () => {
    // What a crash leaves: the message still says RUNNING, recoverInterrupted() ended its job.
    const e = t.s.engine;
    const a = await e.actor({ email: ADMIN }, t.project);
    const r = await e.ai.conversations.add(a, 'Before the crash', undefined, async (ids) => ({
      ...(await e.jobs.recordFinished(a, 'ai', ids, null)),
      status: 'RUNNING' as const,
    }));
    await e.db
      .update(jobs)
      .set({ status: 'ERROR', message: 'interrupted by restart' })
      .where(eq(jobs.id, r.job.id));
    const view = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${r.conversation}`,
    );
    expect(view.json.conversation.messages[0]).toMatchObject({
      status: 'ERROR',
      error: 'interrupted by restart',
    });
    t.llm.script({ text: 'Back.' });
    const next = await ask(t, 'Are you there?', { conversation: r.conversation });
    expect(next.job.status, next.job.message).toBe('OK');
  });

  it('a message read between its job ending and its settling already has the answer', async () => {
    // The job is OK and holds the answer; the message row is settled by a listener just after.
    const e = t.s.engine;
    const a = await e.actor({ email: ADMIN }, t.project);
    const answer = { answer: 'Just **done**.', queries: [] };
    const r = await e.ai.conversations.add(a, 'Done yet?', undefined, async (ids) => ({
      ...(await e.jobs.recordFinished(a, 'ai', ids, null)),
      status: 'RUNNING' as const,
    }));
    await e.db.update(jobs).set({ status: 'OK', result: answer }).where(eq(jobs.id, r.job.id));
    const view = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${r.conversation}`,
    );
    expect(view.json.conversation.messages[0]).toMatchObject({ status: 'OK', answer });
  });

  it('records each message with its token counts in the activity log', async () => {
    t.llm.script({ text: 'Hello.', usage: { input: 321, output: 12 } });
    const { job, conversation } = await ask(t, 'Say hello');
    const ev = await activityOf(t, job.id);
    expect(ev).toMatchObject({
      type: 'user_action',
      user: ADMIN,
      object: conversation,
      detail: {
        action: 'ai_message',
        status: 'OK',
        inputTokens: 321,
        outputTokens: 12,
        provider,
        model: provider === 'openai' ? 'gpt-test' : 'claude-test',
      },
    });
  });

  it('a provider error ends the job in ERROR with the reason', async () => {
    t.llm.script({ status: 500, message: 'model overloaded' });
    const { job } = await ask(t, 'Anything?');
    expect(job.status).toBe('ERROR');
    expect(job.message).toContain(`AI provider failed: ${provider}: provider returned HTTP 500`);
    expect(job.message).toMatch(/model overloaded/);
  });

  it('a provider timeout ends the job in ERROR saying so', async () => {
    t.llm.script({ text: 'late', delayMs: 5000 });
    const { job } = await ask(t, 'Slow?');
    expect(job.status).toBe('ERROR');
    expect(job.message).toMatch(/timed out after 3000 ms/);
  });

  it('cancelling the job stops the model call', async () => {
    t.llm.script({ text: 'never', delayMs: 20_000 });
    const r = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      body: { question: 'Take your time' },
    });
    const id = r.json.link[0].id as string;
    const started = Date.now();
    while (t.llm.requests.length === 0) await new Promise((res) => setTimeout(res, 20));
    const c = await t.s.api('POST', `${jobPath(t.project, id)}/cancel`);
    expect(c.status, c.text).toBe(202);
    const job = await pollJob(t.s.api, t.project, id, isFinal);
    expect(job.status).toBe('CANCELLED');
    expect(Date.now() - started).toBeLessThan(5000);
    const view = await t.s.api(
      'GET',
      `/projects/${t.project}/app/ai/conversations/${r.json.conversation}`,
    );
    expect(view.json.conversation.messages[0].status).toBe('CANCELLED');
    // Recorded like every message, with what it cost until then.
    const ev = (await activityOf(t, id)) as { detail: unknown };
    expect(ev.detail).toMatchObject({ action: 'ai_message', status: 'CANCELLED', steps: 0 });
  });

  it('answers in a pool of their own: queries and loads do not wait behind them', async () => {
    t.llm.script(
      { text: 'one', delayMs: 1500 },
      { text: 'two', delayMs: 1500 },
      { text: 'three', delayMs: 1500 },
    );
    const asked = await Promise.all(
      ['one?', 'two?', 'three?'].map((question) =>
        t.s.api('POST', `/projects/${t.project}/app/ai/messages`, { body: { question } }),
      ),
    );
    while (t.llm.requests.length < 3) await new Promise((res) => setTimeout(res, 20));
    const q = await t.s.api('POST', `/projects/${t.project}/app/aql/execute`, {
      body: { aql: 'SELECT COUNT([Order]) AS "n" WHERE [Amount] > 60' },
    });
    expect(q.status, q.text).toBe(201);
    const query = await pollJob(t.s.api, t.project, q.json.link[0].id, isFinal);
    expect(query.status).toBe('OK');
    // The query finished while every answer was still being written.
    for (const r of asked) {
      const j = await t.s.api('GET', jobPath(t.project, r.json.link[0].id));
      expect(j.json.status).toBe('RUNNING');
    }
    for (const r of asked)
      expect((await pollJob(t.s.api, t.project, r.json.link[0].id, isFinal)).status).toBe('OK');
  });

  it('says plainly when the model gave no answer', async () => {
    t.llm.script({ text: '' });
    const { job } = await ask(t, 'Weather in Paris?');
    expect(job.status).toBe('OK');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(r.answer).toMatch(/^The model returned no answer/);
    expect(r.complete).toBe(false);
  });

  it('deleting a conversation while it answers cancels the answer', async () => {
    t.llm.script({ text: 'too late', delayMs: 20_000 });
    const r = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      body: { question: 'Long one' },
    });
    while (t.llm.requests.length === 0) await new Promise((res) => setTimeout(res, 20));
    const del = await t.s.api(
      'DELETE',
      `/projects/${t.project}/app/ai/conversations/${r.json.conversation}`,
    );
    expect(del.status, del.text).toBe(204);
    const job = await pollJob(t.s.api, t.project, r.json.link[0].id, isFinal);
    expect(job.status).toBe('CANCELLED');
    expect((job as JobJson & { result?: unknown }).result).toBeUndefined();
  });

  it('refuses bad input with 400 and unknown conversations with 404', async () => {
    const post = (body: unknown) =>
      t.s.api('POST', `/projects/${t.project}/app/ai/messages`, { body });
    expect((await post({ question: '   ' })).status).toBe(400);
    expect((await post({ question: 'x'.repeat(4001) })).status).toBe(400);
    expect((await post({ question: 'ok', extra: 1 })).status).toBe(400);
    expect((await post({})).status).toBe(400);
    const r = await post({ question: 'ok', conversation: 'nope' });
    expect(r.status).toBe(404);
    expect(r.json.message).toMatch(/conversation "nope" not found/);
    expect(t.llm.requests).toHaveLength(0);
  });

  it('the MCP ask tool runs the same agent and returns the answer with its queries', async () => {
    t.llm.script(
      { toolCalls: [call('run_aql', { aql: 'SELECT COUNT([Order])' })] },
      { text: 'There are 5 orders.' },
    );
    const token = await t.s.engine.issueToken(ADMIN, {
      audience: mcpAudience(t.s.engine.config),
    });
    const client = new Client({ name: 'ai-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.s.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const res = (await client.callTool({
        name: 'ask',
        arguments: { project: t.project, question: 'How many orders?' },
      })) as CallToolResult;
      expect(res.isError, JSON.stringify(res.content)).toBeFalsy();
      expect(res.structuredContent).toMatchObject({
        status: 'OK',
        answer: 'There are 5 orders.',
        // A count is a JSON number, as in every MCP tool's rows.
        queries: [{ id: 'q1', aql: 'SELECT COUNT([Order])', rows: [[5]], totalRows: 1 }],
        complete: true,
      });
      // MCP's columns stay the titles (the kinds are the app's, not part of this tool's output).
      const queries = (res.structuredContent as { queries: { columns: unknown[] }[] }).queries;
      expect(queries[0]!.columns).toEqual([expect.any(String)]);
      const conversation = (res.structuredContent as { conversation: string }).conversation;
      const list = await t.s.api('GET', `/projects/${t.project}/app/ai/conversations`);
      expect(list.json.conversations.map((c: { id: string }) => c.id)).toContain(conversation);
      // An answer slower than the wait comes back RUNNING with its job, to collect later.
      // Meanwhile a client that sent a progressToken hears from it.
      t.llm.script({ text: 'Slowly: 5.', delayMs: 2500 });
      const progress: Progress[] = [];
      const slow = (await client.callTool(
        { name: 'ask', arguments: { project: t.project, question: 'Slowly?', conversation } },
        undefined,
        { onprogress: (p) => progress.push(p) },
      )) as CallToolResult;
      expect(slow.structuredContent).toMatchObject({ status: 'RUNNING', answer: '', conversation });
      const job = (slow.structuredContent as { job: string }).job;
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress[0]!.message).toContain(job);
      // The job collects its own question's answer only.
      const other = (await client.callTool({
        name: 'ask',
        arguments: { project: t.project, job, question: 'Something else?' },
      })) as CallToolResult;
      expect(other.isError).toBe(true);
      expect(JSON.stringify(other.content)).toMatch(/answers a different question/);
      const later = (await client.callTool({
        name: 'ask',
        arguments: { project: t.project, job },
      })) as CallToolResult;
      expect(later.structuredContent).toMatchObject({ status: 'OK', answer: 'Slowly: 5.', job });
    } finally {
      await client.close();
    }
  });
});

describe('AI chat budgets and plan limits', () => {
  let t: Setup;
  let plans: { file: string; remove: () => void };
  beforeAll(async () => {
    plans = writePlansFile({ aiMessagesPerDay: 4 });
    t = await setup('anthropic', {
      URSA_PLANS_FILE: plans.file,
      URSA_DEFAULT_PLAN: 'free',
      URSA_AI_MAX_STEPS: '3',
      URSA_AI_MAX_TOKENS: '1000',
      URSA_AI_STREAM: 'false',
    });
  });
  afterAll(async () => {
    await t.s.close();
    await t.llm.close();
    plans.remove();
  });

  it('stops after the step budget: the last call may not use tools', async () => {
    const loop = () => ({
      toolCalls: [call('get_model', {})],
      usage: { input: 10, output: 5 },
    });
    t.llm.script(loop(), loop(), loop());
    const { job } = await ask(t, 'Loop forever');
    expect(job.status, job.message).toBe('OK');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(r).toMatchObject({ complete: false, steps: 3 });
    expect(r.answer).toMatch(/limit of 3 steps/);
    expect(t.llm.requests).toHaveLength(3);
    expect(t.llm.requests[2]!.body['tool_choice']).toEqual({ type: 'none' });
    expect(wire(t, 2)).toContain('used every tool call');
  });

  it('stops when the token budget is spent', async () => {
    t.llm.script({ toolCalls: [call('get_model', {})], usage: { input: 900, output: 200 } });
    const { job } = await ask(t, 'Expensive');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(r).toMatchObject({ complete: false, steps: 1 });
    expect(r.answer).toMatch(/limit of 1000 tokens/);
  });

  it('estimates the tokens of a provider that reports none, and still stops', async () => {
    t.llm.script({ toolCalls: [call('get_model', {})], usage: { input: 0, output: 0 } });
    const { job } = await ask(t, 'No usage reported');
    const r = (job as JobJson & { result: Record<string, unknown> }).result;
    expect(r).toMatchObject({ complete: false, steps: 1, usage: { estimated: true } });
    expect((r.usage as { inputTokens: number }).inputTokens).toBeGreaterThan(1000);
    expect(r.answer).toMatch(/limit of 1000 tokens/);
  });

  it('counts messages per day: usage in limitadherence, 402 over the plan', async () => {
    t.llm.script({ text: 'ok' });
    await ask(t, 'Fourth');
    const usage = await t.s.api('GET', `/projects/${t.project}/limitadherence`);
    expect(usage.json.aiMessagesPerDay).toEqual({
      limit: 4,
      value: 4,
    });
    const r = await t.s.api('POST', `/projects/${t.project}/app/ai/messages`, {
      body: { question: 'Fifth' },
    });
    expect(r.status, r.text).toBe(402);
    expect(r.json.message).toMatch(/aiMessagesPerDay/);
  });
});

describe('AI chat without a provider', () => {
  let s: TestServer;
  let project: string;
  beforeAll(async () => {
    s = await startTestServer();
    project = await createProject(s, 'noai');
  });
  afterAll(() => s.close());

  it('says so before anyone asks: configured false, with how to configure one', async () => {
    const r = await s.api('GET', `/projects/${project}/app/ai`);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ configured: false, configure: 'URSA_AI_PROVIDER' });
    expect(r.json.message).toMatch(/URSA_AI_PROVIDER/);
    expect(r.json.link.map((l: { rel: string }) => l.rel)).toEqual(['messages', 'conversations']);
    // Only members of the project (anyone else is told it is no project of theirs).
    await invite(s, await createProject(s, 'other-noai'), 'outsider@example.com');
    const outsider = await s.api('GET', `/projects/${project}/app/ai`, {
      as: 'outsider@example.com',
    });
    expect(outsider.status, outsider.text).toBe(401);
  });

  it('answers 503 saying how to configure one; the rest keeps working', async () => {
    const r = await s.api('POST', `/projects/${project}/app/ai/messages`, {
      body: { question: 'Hello?' },
    });
    expect(r.status, r.text).toBe(503);
    expect(r.json.message).toMatch(/URSA_AI_PROVIDER/);
    expect(r.json.message).toMatch(/docs\/ai\.md/);
    const list = await s.api('GET', `/projects/${project}/app/ai/conversations`);
    expect(list.status).toBe(200);
    expect(list.json.conversations).toEqual([]);
    const q = await s.api('GET', `/projects/${project}`);
    expect(q.status).toBe(200);
  });
});
