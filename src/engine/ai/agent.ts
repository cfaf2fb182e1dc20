// The chat agent: a tool-calling loop between a provider and the engine's tools, bounded by
// a step and a token budget. Tool mistakes go back to the model as error results so it can
// fix its call (a failed AQL is retried with the error message); an answer quoting numbers
// found in no result is sent back once to be grounded.
import type { Logger } from 'pino';
import { describeEngineError } from '../describe-error.js';
import { engineErrorOf } from '../errors.js';
import { uuid } from '../ids.js';
import type { AgentBudget } from './config.js';
import { sourceNumbers, unverifiedNumbers } from './grounding.js';
import { fill, type ChatPrompts } from './prompts.js';
import type { ChatMessage, ChatProvider, ToolCall } from './provider.js';
import { isToolMistake, type AgentTool, type ToolContext } from './tools.js';
import type { AiUsage } from './types.js';

export interface AgentRun {
  provider: ChatProvider;
  budget: AgentBudget;
  prompts: ChatPrompts;
  tools: AgentTool[];
  system: string;
  /** Earlier turns of the conversation (questions and answers). */
  history: ChatMessage[];
  /** What earlier turns established: their questions, query results and verified answers. */
  historySources: string[];
  question: string;
  ctx: ToolContext;
  log: Logger;
  /**
   * After each model call and each tool call (job progress), and as a tool call starts:
   * `running` names it (and its AQL), so a person watching sees the query being run.
   */
  onProgress?(p: {
    steps: number;
    usage: AiUsage;
    tool?: string;
    running?: { tool: string; aql?: string };
  }): void;
}

export interface AgentOutcome {
  answer: string;
  usage: AiUsage;
  steps: number;
  complete: boolean;
  unverifiedNumbers: string[];
}

export async function runAgent(r: AgentRun): Promise<AgentOutcome> {
  const { provider, budget, prompts, ctx } = r;
  const messages: ChatMessage[] = [...r.history, { role: 'user', content: r.question }];
  // What an answer may quote: the question, what earlier turns established, the prompt's
  // model overview and every tool answer.
  const sources = [r.question, r.system, ...r.historySources];
  const usage: AiUsage = { inputTokens: 0, outputTokens: 0 };
  const specs = r.tools.map((t) => t.spec);
  let steps = 0;
  let nudged = false;
  const used = () => usage.inputTokens + usage.outputTokens;
  const done = (answer: string, complete: boolean, unverified: string[] = []): AgentOutcome => ({
    answer,
    usage,
    steps,
    complete,
    unverifiedNumbers: unverified,
  });
  const outOfBudget = (limit: string) => done(fill(prompts.nudges.out_of_budget, { limit }), false);

  for (;;) {
    if (used() >= budget.maxTokens) return outOfBudget(`${budget.maxTokens} tokens`);
    const last = steps === budget.maxSteps - 1;
    if (last) messages.push({ role: 'user', content: prompts.nudges.last_step });
    steps++;
    const res = await provider.complete({
      system: r.system,
      messages,
      tools: specs,
      toolChoice: last ? 'none' : 'auto',
      maxTokens: Math.max(1, Math.min(budget.maxOutputTokens, budget.maxTokens - used())),
      signal: ctx.signal,
      stream: budget.stream,
    });
    if (res.usage.inputTokens + res.usage.outputTokens > 0) {
      usage.inputTokens += res.usage.inputTokens;
      usage.outputTokens += res.usage.outputTokens;
    } else {
      // Some OpenAI-compatible servers report no usage: estimate it, so the token budget
      // still bounds the message.
      usage.estimated = true;
      usage.inputTokens += estimateTokens(
        r.system,
        JSON.stringify(messages),
        JSON.stringify(specs),
      );
      usage.outputTokens += estimateTokens(res.text, JSON.stringify(res.toolCalls));
    }
    r.onProgress?.({ steps, usage });

    if (res.toolCalls.length > 0) {
      // A model that still calls tools with none left, or past the token budget, is stopped.
      if (last) return outOfBudget(`${budget.maxSteps} steps`);
      if (used() >= budget.maxTokens) return outOfBudget(`${budget.maxTokens} tokens`);
      messages.push({ role: 'assistant', content: res.text, toolCalls: res.toolCalls });
      for (const call of res.toolCalls) {
        const aql = (call.arguments as { aql?: unknown } | undefined)?.aql;
        r.onProgress?.({
          steps,
          usage,
          running: {
            tool: call.name,
            ...(typeof aql === 'string' ? { aql: aql.slice(0, 2000) } : {}),
          },
        });
        const out = await callTool(r, call);
        if (!out.isError) sources.push(out.content);
        messages.push({ role: 'tool', toolCallId: call.id, ...out });
        r.onProgress?.({ steps, usage, tool: call.name });
      }
      continue;
    }

    const text = res.text.trim();
    if (!text) return done(prompts.nudges.no_answer, false);
    const unverified = unverifiedNumbers(text, sourceNumbers(sources));
    if (unverified.length > 0 && !nudged && steps < budget.maxSteps - 1) {
      nudged = true;
      messages.push({ role: 'assistant', content: text });
      messages.push({
        role: 'user',
        content: fill(prompts.nudges.ungrounded, { numbers: unverified.join(', ') }),
      });
      continue;
    }
    const answer = unverified.length
      ? `${text}\n\n${fill(prompts.nudges.unverified_note, { numbers: unverified.join(', ') })}`
      : text;
    return done(answer, !last && res.stopReason !== 'max_tokens', unverified);
  }
}

/** About four characters a token: close enough for a budget, never for billing. */
function estimateTokens(...texts: string[]): number {
  return Math.ceil(texts.reduce((n, t) => n + t.length, 0) / 4);
}

async function callTool(
  r: AgentRun,
  call: ToolCall,
): Promise<{ content: string; isError?: boolean }> {
  const tool = r.tools.find((t) => t.spec.name === call.name);
  if (!tool)
    return {
      content: `unknown tool "${call.name}"; the tools are ${r.tools.map((t) => t.spec.name).join(', ')}`,
      isError: true,
    };
  try {
    return { content: await tool.run(call.arguments, r.ctx) };
  } catch (err) {
    r.ctx.signal.throwIfAborted();
    const engineErr = engineErrorOf(err);
    if (engineErr) return { content: describeEngineError(engineErr), isError: true };
    if (isToolMistake(err)) return { content: err.message, isError: true };
    // A bug must not end the conversation; it is logged with an id the model may quote.
    const errorId = uuid();
    r.log.error({ err, errorId, tool: call.name }, 'AI agent tool failed unexpectedly');
    return {
      content: `internal error in ${call.name} (errorId ${errorId}); try another way`,
      isError: true,
    };
  }
}
