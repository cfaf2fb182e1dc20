// ask: the AI chat's agent behind one tool, for assistants without a reasoning loop of their
// own. It is the same `ai` job as the REST chat (plan limit, activity, conversations).
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import type { AiAnswer } from '../../engine/ai/types.js';
import { jsonRows } from '../../engine/aql/format.js';
import { invalid } from '../../engine/errors.js';
import { FINAL_STATUSES, type Job } from '../../engine/jobs/jobs.js';
import type { Reply } from '../limits.js';
import { waitForJob, type ToolExtra } from '../wait.js';
import { cellShape, CELLS_NOTE, exactArg } from './aql-results.js';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';

/** Rows of each query shown (the full tables are on the conversation over REST). */
const ROWS_SHOWN = 20;

const output = {
  status: z.enum(['OK', 'RUNNING']).describe('RUNNING: call ask again with job for the answer'),
  job: z.string(),
  conversation: z.string().describe('Pass it with the next question to continue'),
  answer: z.string().describe('Markdown; empty while RUNNING'),
  queries: z.array(
    z.object({
      id: z.string(),
      aql: z.string(),
      columns: z.array(z.string()),
      rows: z.array(z.array(cellShape)).describe(CELLS_NOTE),
      totalRows: z.number(),
      error: z.string().optional(),
    }),
  ),
  chart: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("Ursa's chart spec (ursa-chart/1), data inline"),
  links: z
    .array(
      z.object({
        kind: z.enum(['dashboard', 'report']),
        ident: z.string(),
        name: z.string(),
        url: z.string(),
      }),
    )
    .describe('Dashboards and reports the answer links to (pages the caller can open)'),
  usage: z.object({
    inputTokens: z.number(),
    outputTokens: z.number(),
    estimated: z.boolean().optional().describe('The provider reported no usage: estimated'),
    steps: z.number(),
  }),
  complete: z.boolean().describe('False when the step or token budget cut the work short'),
};
type Out = z.infer<z.ZodObject<typeof output>>;

function reply(job: Job, conversation: string, rows: number, exact: boolean): Out {
  const r = job.result as AiAnswer | undefined;
  if (job.status !== 'OK' || !r)
    return {
      status: 'RUNNING',
      job: job.id,
      conversation,
      answer: '',
      queries: [],
      chart: null,
      links: [],
      usage: { inputTokens: 0, outputTokens: 0, steps: 0 },
      complete: false,
    };
  return {
    status: 'OK',
    job: job.id,
    conversation: r.conversation,
    answer: r.answer,
    queries: r.queries.map((q) => ({
      id: q.id,
      aql: q.aql,
      columns: q.columns.map((c) => c.title),
      rows: jsonRows(q.columns, q.rows.slice(0, rows), exact),
      totalRows: q.totalRows,
      ...(q.error ? { error: q.error } : {}),
    })),
    chart: r.chart ? { ...r.chart.spec } : null,
    // Answers stored before links existed have none.
    links: (r.links ?? []).map(({ kind, ident, name, url }) => ({ kind, ident, name, url })),
    usage: { ...r.usage, steps: r.steps },
    complete: r.complete,
  };
}

async function settle(
  ctx: McpContext,
  a: ProjectActor,
  job: Job,
  extra: ToolExtra,
  exact: boolean,
): Promise<Reply<Out>> {
  const conversation = String((job.params as { conversation?: string }).conversation ?? '');
  const done = await waitForJob(ctx, a, job, extra, 'the answer');
  if (!FINAL_STATUSES.includes(done.status))
    return { data: reply(done, conversation, ROWS_SHOWN, exact) };
  if (done.status === 'ERROR') throw invalid(`the question could not be answered: ${done.message}`);
  if (done.status === 'CANCELLED') throw invalid('answering was cancelled; ask again');
  if (!done.result) throw invalid('this answer was deleted with its conversation');
  return {
    data: reply(done, conversation, ROWS_SHOWN, exact),
    // Fewer rows per query, then none: the answer text always fits.
    shrink: (d) => {
      const most = Math.max(0, ...d.queries.map((q) => q.rows.length));
      if (most === 0) return d.chart ? { ...d, chart: null } : null;
      return reply(done, conversation, Math.floor(most / 2), exact);
    },
  };
}

export function registerAsk(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'ask',
    input: {
      project: projectArg,
      question: z.string().optional().describe('The question; not needed with job'),
      conversation: z.string().optional().describe('Conversation id of an earlier answer'),
      job: z.string().optional().describe('job of a RUNNING answer: waits for it'),
      exact: exactArg,
    },
    output,
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    narrow: 'ask a narrower question',
    run: async ({ project, question, conversation, job, exact }, extra) => {
      const a = await actorFor(ctx, project);
      if (job) {
        const j = await ctx.engine.jobs.get(a, job);
        if (j.type !== 'ai' || j.createdBy !== a.email)
          throw invalid(`job "${job}" is not an answer of yours to collect with ask`);
        // The job answers its own question only: never another question's answer.
        const p = j.params as { conversation?: string; message?: string };
        if (conversation !== undefined && conversation !== p.conversation)
          throw invalid(
            `job "${job}" belongs to conversation "${p.conversation}", not "${conversation}"; pass job alone to collect its answer`,
          );
        const asked = await ctx.engine.ai.questionOf(a, j.id);
        if (question !== undefined && question.trim() !== (asked ?? '').trim())
          throw invalid(
            `job "${job}" answers a different question (${JSON.stringify(asked ?? '')}); pass job alone to collect its answer, or question alone to ask a new one`,
          );
        return settle(ctx, a, j, extra, exact === true);
      }
      if (!question?.trim()) throw invalid('pass question (to ask) or job (to collect an answer)');
      const r = await ctx.engine.ai.ask(a, {
        question,
        ...(conversation ? { conversation } : {}),
      });
      return settle(ctx, a, r.job, extra, exact === true);
    },
  });
}
