// The agent reports the tool call under way, with its AQL, before the tool runs (the chat
// shows "Running <query>" while it runs), then the tool that ran once it is done.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../src/engine/ai/agent.js';
import { parseAgentBudget } from '../src/engine/ai/config.js';
import { loadChatPrompts } from '../src/engine/ai/prompts.js';
import type { ChatProvider, ChatRequest, ChatResult } from '../src/engine/ai/provider.js';
import type { AgentTool, ToolContext } from '../src/engine/ai/tools.js';
import { createLogger } from '../src/engine/logger.js';

const AQL = 'SELECT [Region], SUM([Amount])';

describe('agent progress', () => {
  it('names the tool and its AQL while it runs, and the tool once it ran', async () => {
    const turns: ChatResult[] = [
      {
        text: '',
        toolCalls: [{ id: 'c1', name: 'run_aql', arguments: { aql: AQL } }],
        usage: { inputTokens: 10, outputTokens: 5 },
        stopReason: 'tool_use',
      },
      {
        text: 'Done.',
        toolCalls: [],
        usage: { inputTokens: 10, outputTokens: 5 },
        stopReason: 'end',
      },
    ];
    const provider: ChatProvider = {
      name: 'openai',
      model: 'stub',
      complete: async (_req: ChatRequest) => turns.shift()!,
    };
    const seen: unknown[] = [];
    let duringTool: unknown;
    const tool: AgentTool = {
      spec: { name: 'run_aql', description: 'runs AQL', input: { type: 'object' } },
      run: async () => {
        duringTool = seen[seen.length - 1];
        return '{"rows":[]}';
      },
    } as unknown as AgentTool;
    const out = await runAgent({
      provider,
      budget: parseAgentBudget({}),
      prompts: loadChatPrompts(),
      tools: [tool],
      system: 'system',
      history: [],
      historySources: [],
      question: 'Sales by region?',
      ctx: { queries: [], chart: null, links: [] } as unknown as ToolContext,
      log: createLogger('silent'),
      onProgress: (p) => seen.push(p),
    });
    expect(out.answer).toBe('Done.');
    expect(duringTool).toMatchObject({ running: { tool: 'run_aql', aql: AQL } });
    expect(seen.at(-2)).toMatchObject({ tool: 'run_aql' });
    expect(seen.at(-2)).not.toHaveProperty('running');
  });
});
