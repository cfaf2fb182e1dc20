// AI chat: a question becomes a message of a conversation and an `ai` job; the job runs the
// agent as the member who asked (their roles and row filter apply to every tool), and its
// result is the answer with the queries behind it and an optional chart.
import { eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import type { Catalog } from '../catalog/catalog.js';
import { type Db, first, tablesOf, tx } from '../db/index.js';
import { aiAskLock } from '../db/lock-names.js';
import { conflict, unavailable } from '../errors.js';
import { JobFailure, type Job, type JobContext, type JobRunner } from '../jobs/jobs.js';
import type { Limits } from '../limits/limits.js';
import { shownFilter } from '../aql/saved-refs.js';
import { parseInput } from '../validate.js';
import { runAgent } from './agent.js';
import type { AgentBudget } from './config.js';
import { Conversations, type ConversationSummary, type ConversationView } from './conversations.js';
import { linksIn } from './dashboards.js';
import { fill, loadChatPrompts, type ChatPrompts } from './prompts.js';
import { AiProviderError, type ChatMessage, type ChatProvider } from './provider.js';
import { agentTools, type AgentDeps, type AgentTool, type ToolContext } from './tools.js';
import type { AiProgress } from '../../contract/chat.js';
import type { AiAnswer, AiUsage } from './types.js';

export const MAX_QUESTION_CHARS = 4000;
/** Earlier questions and answers given to the model with a new question. */
const HISTORY_TURNS = 10;
/** The model overview in the system prompt stays under this; get_model has the rest. */
const OVERVIEW_CHARS = 6000;

const askSchema = z
  .object({
    question: z
      .string()
      .trim()
      .min(1, 'the question is empty')
      .max(MAX_QUESTION_CHARS, `a question has at most ${MAX_QUESTION_CHARS} characters`),
    conversation: z.string().min(1).optional(),
  })
  .strict();

export const NOT_CONFIGURED =
  'AI chat is not configured on this server: set URSA_AI_PROVIDER (openai or anthropic), URSA_AI_MODEL and URSA_AI_API_KEY (and URSA_AI_BASE_URL for an OpenAI-compatible server such as Ollama or vLLM), then restart; see docs/ai.md';

export interface AiServiceDeps extends AgentDeps {
  db: Db;
  jobs: JobRunner;
  limits: Limits;
  activity: ActivityLog;
  log: Logger;
  provider: ChatProvider | null;
  budget: AgentBudget;
  /** The member who asked, resolved again when the job runs (rights may have changed). */
  actorOf(email: string, projectId: string): Promise<ProjectActor>;
}

/** What a message has cost so far (read when its job ends, however it ends). */
interface Spent {
  usage: AiUsage;
  steps: number;
  queries: number;
}

export class AiService {
  readonly conversations: Conversations;
  private readonly spent = new Map<string, Spent>();
  private readonly prompts: ChatPrompts;
  private readonly tools: AgentTool[];

  constructor(private readonly d: AiServiceDeps) {
    this.conversations = new Conversations(d.db);
    this.prompts = loadChatPrompts();
    this.tools = agentTools(d);
    d.jobs.register(
      'ai',
      { run: (ctx) => this.answer(ctx) },
      { concurrency: d.budget.concurrency, privateResult: true },
    );
    d.jobs.onFinish(async (job) => {
      if (job.type !== 'ai') return;
      // A message deleted while its job ran leaves no answer behind on the job either.
      if (!(await this.conversations.settle(job)) && job.result)
        await this.conversations.scrubJob(job.id);
      await this.recordActivity(job);
    });
  }

  /** Whether questions can be answered here: a chat says so before anyone types. */
  status(): { configured: true } | { configured: false; message: string; configure: string } {
    return this.d.provider
      ? { configured: true }
      : { configured: false, message: NOT_CONFIGURED, configure: 'URSA_AI_PROVIDER' };
  }

  /** Starts answering a question: 400 bad input, 503 no provider, 404/409 conversation, 402 plan. */
  async ask(
    a: ProjectActor,
    body: unknown,
  ): Promise<{ job: Job; conversation: string; message: string }> {
    const input = parseInput(askSchema, body, 'question');
    if (!this.d.provider) throw unavailable(NOT_CONFIGURED, { configure: 'URSA_AI_PROVIDER' });
    // The checks and the new message in one transaction under the project's lock: two
    // questions at once (perhaps through two processes) cannot both pass them.
    return tx(
      this.d.db,
      async () => {
        if (input.conversation) {
          const busy = await this.conversations.pending(a, input.conversation);
          if (busy)
            throw conflict(
              `conversation "${input.conversation}" is still answering a question (job ${busy.jobId}); wait for it or cancel that job`,
              { conversation: input.conversation, job: busy.jobId },
            );
        }
        await this.d.limits.check(a.projectId, 'aiMessagesPerDay', 1);
        return this.conversations.add(a, input.question, input.conversation, (ids) =>
          this.d.jobs.submit(a, 'ai', ids),
        );
      },
      { lock: [aiAskLock(a.projectId)] },
    );
  }

  async list(a: ProjectActor, page: { limit: number; offset: number }) {
    return (await this.conversations.list(a, page)) satisfies {
      items: ConversationSummary[];
      total: number;
    };
  }

  get(a: ProjectActor, id: string): Promise<ConversationView> {
    return this.conversations.get(a, id);
  }

  /** The question an `ai` job answers, for the user who asked it; null for anyone else. */
  async questionOf(a: ProjectActor, jobId: string): Promise<string | null> {
    const job = await this.d.jobs.get(a, jobId);
    if (job.type !== 'ai' || job.createdBy !== a.email) return null;
    const { message } = job.params as { message?: string };
    return message ? ((await this.conversations.question(message))?.question ?? null) : null;
  }

  /** Deletes a conversation; a question it is still answering is cancelled first. */
  async delete(a: ProjectActor, id: string): Promise<void> {
    const running = await this.conversations.delete(a, id);
    for (const jobId of running) {
      try {
        await this.d.jobs.cancel(a, jobId);
      } catch {
        // it finished meanwhile: settle() finds no message and clears its answer
      }
    }
  }

  // ---- the job ----

  private async answer(job: JobContext): Promise<AiAnswer> {
    const { conversation, message } = job.job.params as { conversation: string; message: string };
    const provider = this.d.provider;
    if (!provider) throw new JobFailure(NOT_CONFIGURED);
    const a = await this.d.actorOf(job.job.createdBy, job.job.projectId);
    const msg = await this.conversations.question(message);
    if (!msg) throw new JobFailure('the conversation was deleted before the question was answered');
    const ctx: ToolContext = {
      actor: a,
      signal: job.signal,
      queries: [],
      chart: null,
      links: [],
    };
    const spent: Spent = { usage: { inputTokens: 0, outputTokens: 0 }, steps: 0, queries: 0 };
    this.spent.set(job.job.id, spent);
    try {
      const outcome = await runAgent({
        provider,
        budget: this.d.budget,
        prompts: this.prompts,
        tools: this.tools,
        system: await this.systemPrompt(a),
        ...(await this.history(conversation, msg.seq)),
        question: msg.question,
        ctx,
        log: job.log,
        onProgress: (p) => {
          Object.assign(spent, { usage: p.usage, steps: p.steps, queries: ctx.queries.length });
          job.progress({
            steps: p.steps,
            ...p.usage,
            queries: ctx.queries.length,
            tool: p.tool ?? null,
            running: p.running ?? null,
          } satisfies AiProgress);
        },
      });
      return {
        conversation,
        message,
        question: msg.question,
        answer: outcome.answer,
        queries: ctx.queries,
        chart: ctx.chart,
        links: linksIn(outcome.answer, ctx.links),
        usage: outcome.usage,
        steps: outcome.steps,
        provider: provider.name,
        model: provider.model,
        complete: outcome.complete,
        unverifiedNumbers: outcome.unverifiedNumbers,
      };
    } catch (err) {
      if (err instanceof AiProviderError && !job.signal.aborted)
        throw new JobFailure(`the AI provider failed: ${err.message}`);
      throw err;
    }
  }

  /** Every message, however it ended (even cancelled before it started), with its tokens. */
  private async recordActivity(job: Job): Promise<void> {
    // Ended elsewhere (its process died and another one reaped the job): the job's last
    // recorded progress holds what it spent.
    const spent = this.spent.get(job.id) ?? spentIn(job.progress);
    this.spent.delete(job.id);
    const { conversation, message } = job.params as { conversation: string; message: string };
    const tokens = spent.usage.inputTokens + spent.usage.outputTokens;
    await this.d.activity.record(job.projectId, 'user_action', {
      user: job.createdBy,
      object: conversation,
      message: `AI message ${job.status}: ${tokens} tokens, ${spent.queries} queries`,
      detail: {
        action: 'ai_message',
        conversation,
        message,
        job: job.id,
        status: job.status,
        provider: this.d.provider?.name ?? null,
        model: this.d.provider?.model ?? null,
        steps: spent.steps,
        inputTokens: spent.usage.inputTokens,
        outputTokens: spent.usage.outputTokens,
        queries: spent.queries,
        ...(job.status !== 'OK' && job.message ? { error: job.message } : {}),
      },
    });
  }

  /**
   * Earlier answered questions of the conversation, newest last, and what they established
   * for grounding: questions, query results, and answers that had nothing unverified.
   */
  private async history(
    conversation: string,
    beforeSeq: number,
  ): Promise<{ history: ChatMessage[]; historySources: string[] }> {
    const turns = (await this.conversations.messages(conversation))
      .filter((m) => m.seq < beforeSeq && m.status === 'OK' && m.answer)
      .slice(-HISTORY_TURNS);
    const history: ChatMessage[] = [];
    const historySources: string[] = [];
    for (const m of turns) {
      const a = m.answer as AiAnswer;
      history.push({ role: 'user', content: m.question }, { role: 'assistant', content: a.answer });
      historySources.push(m.question, ...a.queries.map((q) => JSON.stringify(q.rows)));
      if (!a.unverifiedNumbers.length) historySources.push(a.answer);
    }
    return { history, historySources };
  }

  private async systemPrompt(a: ProjectActor): Promise<string> {
    const { projects } = tablesOf(this.d.db);
    const label =
      (
        await this.d.db
          .select({ label: projects.label })
          .from(projects)
          .where(eq(projects.id, a.projectId))
          .then(first)
      )?.label ?? a.projectId;
    const catalog = await this.d.catalog.catalog(a, { limit: 50 });
    return fill(this.prompts.system, {
      project: label,
      user: a.email,
      today: new Date().toISOString().slice(0, 10),
      row_filter: a.filter
        ? fill(this.prompts.nudges.row_filter_set, {
            filter: shownFilter(await this.d.aql.snapshot(a.projectId), a)!,
          })
        : this.prompts.nudges.row_filter_none,
      aql_guide: this.prompts.aqlGuide,
      model: overview(catalog),
    });
  }
}

/** The model in a few lines per dataset: what the model needs to pick objects by title. */
export function overview(c: Catalog): string {
  const lines: string[] = [];
  for (const d of c.datasets) {
    const cols = (type: string) =>
      d.columns
        .filter((col) => col.type === type)
        .map((col) => {
          const ex =
            col.examples?.length && (col.cardinality ?? 0) <= 50
              ? ` (${col.cardinality} values, e.g. ${col.examples.slice(0, 3).join(', ')})`
              : '';
          return `[${col.title}]${col.dataType === 'string' ? '' : ` ${col.dataType}`}${ex}`;
        });
    lines.push(
      `- dataset ${d.name}${d.rows === null ? '' : ` (${d.rows} rows)`}${d.description ? `: ${d.description}` : ''}`,
    );
    for (const [type, title] of [
      ['attribute', 'attributes'],
      ['label', 'labels'],
      ['fact', 'facts'],
    ] as const) {
      const list = cols(type);
      if (list.length) lines.push(`  ${title}: ${list.join('; ')}`);
    }
  }
  if (c.metrics.length) lines.push(`- metrics: ${c.metrics.map((m) => `[${m.title}]`).join(', ')}`);
  if (c.filters.length)
    lines.push(`- saved filters: ${c.filters.map((f) => `[${f.title}]`).join(', ')}`);
  if (!c.datasets.length) lines.push('- (no data loaded yet: the project has no datasets)');
  let text = lines.join('\n');
  if (text.length > OVERVIEW_CHARS || c.nextCursor)
    text = `${text.slice(0, OVERVIEW_CHARS)}\n- … more: use get_model with search or dataset`;
  return text;
}

/** What a job's recorded progress says it spent (zero for what it does not say). */
function spentIn(progress: Record<string, unknown> | undefined): Spent {
  const n = (k: string) => (typeof progress?.[k] === 'number' ? (progress[k] as number) : 0);
  return {
    usage: { inputTokens: n('inputTokens'), outputTokens: n('outputTokens') },
    steps: n('steps'),
    queries: n('queries'),
  };
}
