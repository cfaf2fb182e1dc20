// Provider layer of the AI chat (issue 6): OpenAI and Anthropic over a scripted fake LLM.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../src/engine/ai/anthropic.js';
import { AiConfigError, parseAiConfig } from '../src/engine/ai/config.js';
import { createProvider } from '../src/engine/ai/providers.js';
import { OpenAiProvider } from '../src/engine/ai/openai.js';
import {
  AiProviderError,
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type ToolSpec,
} from '../src/engine/ai/provider.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
});

const queryTool: ToolSpec = {
  name: 'run_query',
  description: 'Run an AQL query',
  parameters: {
    type: 'object',
    properties: { aql: { type: 'string' }, limit: { type: 'integer' } },
    required: ['aql'],
  },
};

function makeProvider(kind: 'openai' | 'anthropic', timeoutMs = 5000): ChatProvider {
  return kind === 'openai'
    ? new OpenAiProvider({ baseUrl: `${fake.url}/v1`, apiKey: 'k-test', model: 'gpt-x', timeoutMs })
    : new AnthropicProvider({ baseUrl: fake.url, apiKey: 'k-test', model: 'claude-x', timeoutMs });
}

function request(over: Partial<ChatRequest> & { stream: boolean }): ChatRequest {
  return {
    system: 'You are Ursa.',
    messages: [{ role: 'user', content: 'How many rows?' }],
    tools: [],
    maxTokens: 256,
    signal: new AbortController().signal,
    ...over,
  };
}

async function rejection(p: Promise<unknown>): Promise<AiProviderError> {
  const err = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AiProviderError);
  return err as AiProviderError;
}

describe.each(['openai', 'anthropic'] as const)('%s provider', (kind) => {
  describe.each([false, true])('stream=%s', (stream) => {
    it('answers plain text with usage', async () => {
      fake.script({ text: 'There are 42 rows.', usage: { input: 17, output: 9 } });
      const res = await makeProvider(kind).complete(request({ stream }));
      expect(res).toEqual({
        text: 'There are 42 rows.',
        toolCalls: [],
        usage: { inputTokens: 17, outputTokens: 9 },
        stopReason: 'end',
      });
      const body = fake.requests[0]!.body;
      expect(fake.requests[0]!.path).toBe(
        kind === 'openai' ? '/v1/chat/completions' : '/v1/messages',
      );
      expect(body['stream'] === true).toBe(stream);
      expect(body['max_tokens']).toBe(256);
      if (kind === 'openai') {
        expect(fake.requests[0]!.headers['authorization']).toBe('Bearer k-test');
        expect(body['messages']).toEqual([
          { role: 'system', content: 'You are Ursa.' },
          { role: 'user', content: 'How many rows?' },
        ]);
      } else {
        // SDK 1.x sends the key as a bearer token; older versions used x-api-key.
        const h = fake.requests[0]!.headers;
        expect(h['x-api-key'] ?? h['authorization']).toMatch(/^(Bearer )?k-test$/);
        expect(body['system']).toBe('You are Ursa.');
        expect(body['messages']).toEqual([{ role: 'user', content: 'How many rows?' }]);
      }
    });

    it('returns a tool call and sends the tool result on the next turn', async () => {
      const args = { aql: 'FROM sales | COUNT()', limit: 10 };
      fake.script(
        {
          text: kind === 'anthropic' ? 'Let me check.' : '',
          toolCalls: [{ id: 'call_1', name: 'run_query', arguments: args }],
        },
        { text: 'There are 42 rows.', usage: { input: 30, output: 6 } },
      );
      const provider = makeProvider(kind);
      const first = await provider.complete(request({ stream, tools: [queryTool] }));
      expect(first.stopReason).toBe('tool_use');
      expect(first.toolCalls).toEqual([{ id: 'call_1', name: 'run_query', arguments: args }]);

      const messages: ChatMessage[] = [
        { role: 'user', content: 'How many rows?' },
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'call_1', content: '{"count":42}' },
      ];
      const second = await provider.complete(request({ stream, tools: [queryTool], messages }));
      expect(second.text).toBe('There are 42 rows.');
      expect(second.stopReason).toBe('end');
      expect(second.usage).toEqual({ inputTokens: 30, outputTokens: 6 });

      const [req1, req2] = fake.requests.map((r) => r.body);
      if (kind === 'openai') {
        expect(req1!['tools']).toEqual([
          {
            type: 'function',
            function: {
              name: 'run_query',
              description: 'Run an AQL query',
              parameters: queryTool.parameters,
            },
          },
        ]);
        const sent = req2!['messages'] as Record<string, unknown>[];
        expect(sent[2]).toEqual({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'run_query', arguments: JSON.stringify(args) },
            },
          ],
        });
        expect(sent[3]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '{"count":42}' });
      } else {
        expect(req1!['tools']).toEqual([
          {
            name: 'run_query',
            description: 'Run an AQL query',
            input_schema: queryTool.parameters,
          },
        ]);
        const sent = req2!['messages'] as Record<string, unknown>[];
        expect(sent[1]).toEqual({
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 'call_1', name: 'run_query', input: args },
          ],
        });
        expect(sent[2]).toEqual({
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '{"count":42}' }],
        });
        expect(req2!['system']).toBe('You are Ursa.');
      }
    });

    it('surfaces a provider 500 at once, naming the status', async () => {
      fake.script({ status: 500, message: 'boom' });
      const err = await rejection(makeProvider(kind).complete(request({ stream })));
      expect(err.kind).toBe('http');
      expect(err.status).toBe(500);
      expect(err.message).toMatch(/HTTP 500/);
      expect(fake.requests).toHaveLength(1); // no retries
    });

    it('times out', async () => {
      fake.script({ text: 'too late', delayMs: 2000 });
      const started = Date.now();
      const err = await rejection(makeProvider(kind, 300).complete(request({ stream })));
      expect(err.kind).toBe('timeout');
      expect(err.message).toMatch(/timed out after 300 ms/);
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('is cancelled through the AbortSignal mid-request', async () => {
      // Streaming: headers arrive, then the events trickle; plain: the answer never comes in time.
      fake.script(
        stream
          ? { text: 'a long answer', chunkDelayMs: 1000 }
          : { text: 'too late', delayMs: 3000 },
      );
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 150);
      const started = Date.now();
      const err = await rejection(
        makeProvider(kind).complete(request({ stream, signal: ac.signal })),
      );
      expect(err.kind).toBe('cancelled');
      expect(err.message).toMatch(/cancelled/);
      expect(Date.now() - started).toBeLessThan(800);
    });
  });

  it('maps max_tokens and assembles several tool calls', async () => {
    fake.script(
      { text: 'partial', stopReason: 'max_tokens' },
      {
        toolCalls: [
          { id: 'a', name: 'run_query', arguments: { aql: 'x' } },
          { id: 'b', name: 'run_query', arguments: {} },
        ],
      },
    );
    const provider = makeProvider(kind);
    expect((await provider.complete(request({ stream: true }))).stopReason).toBe('max_tokens');
    const res = await provider.complete(request({ stream: true, tools: [queryTool] }));
    expect(res.toolCalls).toEqual([
      { id: 'a', name: 'run_query', arguments: { aql: 'x' } },
      { id: 'b', name: 'run_query', arguments: {} },
    ]);
  });
});

describe('AI config', () => {
  it('returns null when no provider is configured', () => {
    expect(parseAiConfig({})).toBeNull();
    expect(createProvider({ URSA_AI_PROVIDER: '' })).toBeNull();
  });

  it('builds an OpenAI provider with defaults', () => {
    const env = {
      URSA_AI_PROVIDER: 'openai',
      URSA_AI_MODEL: 'llama3',
      URSA_AI_BASE_URL: 'http://localhost:11434/v1',
    };
    expect(parseAiConfig(env)).toEqual({
      provider: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      model: 'llama3',
      timeoutMs: 60000,
      agent: { maxSteps: 8, maxTokens: 60000, maxOutputTokens: 2048, stream: true, concurrency: 4 },
    });
    const p = createProvider(env);
    expect(p).toBeInstanceOf(OpenAiProvider);
    expect(p?.name).toBe('openai');
    expect(p?.model).toBe('llama3');
  });

  it('builds an Anthropic provider', () => {
    const env = {
      URSA_AI_PROVIDER: 'anthropic',
      URSA_AI_MODEL: 'claude-x',
      URSA_AI_API_KEY: 'sk',
      URSA_AI_TIMEOUT_MS: '1234',
      URSA_AI_MAX_STEPS: '3',
      URSA_AI_STREAM: 'false',
    };
    expect(parseAiConfig(env)).toEqual({
      provider: 'anthropic',
      apiKey: 'sk',
      model: 'claude-x',
      timeoutMs: 1234,
      agent: {
        maxSteps: 3,
        maxTokens: 60000,
        maxOutputTokens: 2048,
        stream: false,
        concurrency: 4,
      },
    });
    expect(createProvider(env)).toBeInstanceOf(AnthropicProvider);
  });

  it.each([
    [{ URSA_AI_PROVIDER: 'gemini', URSA_AI_MODEL: 'm' }, 'URSA_AI_PROVIDER'],
    [
      { URSA_AI_PROVIDER: 'openai', URSA_AI_MODEL: 'm', URSA_AI_TIMEOUT_MS: 'soon' },
      'URSA_AI_TIMEOUT_MS',
    ],
    [
      { URSA_AI_PROVIDER: 'openai', URSA_AI_MODEL: 'm', URSA_AI_BASE_URL: 'not a url' },
      'URSA_AI_BASE_URL',
    ],
    [{ URSA_AI_PROVIDER: 'anthropic' }, 'URSA_AI_MODEL'],
    [
      { URSA_AI_PROVIDER: 'openai', URSA_AI_MODEL: 'm', URSA_AI_MAX_STEPS: '0' },
      'URSA_AI_MAX_STEPS',
    ],
    [{ URSA_AI_PROVIDER: 'openai', URSA_AI_MODEL: 'm', URSA_AI_STREAM: 'maybe' }, 'URSA_AI_STREAM'],
  ])('rejects invalid settings naming the variable (%#)', (env, variable) => {
    expect(() => createProvider(env)).toThrow(AiConfigError);
    expect(() => createProvider(env)).toThrow(variable);
  });
});
