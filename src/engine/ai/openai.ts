// ChatProvider over OpenAI chat completions (`tools` / `tool_calls`); works with any
// OpenAI-compatible server (Ollama, vLLM, ...) through the base URL.
// The SDK is loaded on the first call: a process that never asks the model does not load it.
import type OpenAI from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import {
  parseToolArguments,
  toProviderError,
  type ChatProvider,
  type ChatRequest,
  type ChatResult,
  type ProviderOptions,
  type StopReason,
  type ToolCall,
} from './provider.js';

function toWireMessages(req: ChatRequest): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  if (req.system !== '') out.push({ role: 'system', content: req.system });
  for (const m of req.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'assistant') {
      const calls = m.toolCalls ?? [];
      out.push({
        role: 'assistant',
        content: m.content === '' && calls.length > 0 ? null : m.content,
        ...(calls.length > 0
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      });
    } else {
      out.push({ role: 'tool', tool_call_id: m.toolCallId, content: m.content });
    }
  }
  return out;
}

function stopReason(finish: string | null | undefined, toolCalls: number): StopReason {
  if (finish === 'length') return 'max_tokens';
  if (finish === 'tool_calls' || finish === 'function_call' || toolCalls > 0) return 'tool_use';
  return 'end';
}

export class OpenAiProvider implements ChatProvider {
  readonly name = 'openai' as const;
  readonly model: string;
  private readonly opts: ProviderOptions;
  private sdk?: Promise<{ Sdk: typeof OpenAI; client: OpenAI }>;
  private readonly timeoutMs: number;

  constructor(opts: ProviderOptions) {
    this.model = opts.model;
    this.timeoutMs = opts.timeoutMs;
    this.opts = opts;
  }

  private loaded(): Promise<{ Sdk: typeof OpenAI; client: OpenAI }> {
    const opts = this.opts;
    return (this.sdk ??= import('openai').then(({ default: Sdk }) => ({
      Sdk,
      client: new Sdk({
        // Local OpenAI-compatible servers need no key, but the SDK insists on one.
        apiKey: opts.apiKey ?? 'unused',
        baseURL: opts.baseUrl ?? null,
        // Settings come from URSA_AI_* only, never from the SDK's own OPENAI_* variables.
        organization: null,
        project: null,
        timeout: opts.timeoutMs,
        maxRetries: 0,
      }),
    })));
  }

  async complete(req: ChatRequest): Promise<ChatResult> {
    const tools: ChatCompletionTool[] = req.tools.map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
    const base: ChatCompletionCreateParamsBase = {
      model: this.model,
      messages: toWireMessages(req),
      max_tokens: req.maxTokens,
      ...(tools.length > 0 ? { tools } : {}),
      ...(tools.length > 0 && req.toolChoice === 'none' ? { tool_choice: 'none' as const } : {}),
    };
    const { Sdk, client } = await this.loaded();
    try {
      return req.stream
        ? await this.streamed(client, base, req.signal)
        : await this.plain(client, base, req.signal);
    } catch (err) {
      throw toProviderError(this.name, err, req.signal, this.timeoutMs, Sdk);
    }
  }

  private async plain(
    client: OpenAI,
    base: ChatCompletionCreateParamsBase,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const res = await client.chat.completions.create({ ...base, stream: false }, { signal });
    const choice = res.choices[0];
    const toolCalls: ToolCall[] = [];
    for (const c of choice?.message.tool_calls ?? []) {
      if (c.type !== 'function') continue;
      toolCalls.push({
        id: c.id,
        name: c.function.name,
        arguments: parseToolArguments(this.name, c.function.name, c.function.arguments),
      });
    }
    return {
      text: choice?.message.content ?? '',
      toolCalls,
      usage: {
        inputTokens: res.usage?.prompt_tokens ?? 0,
        outputTokens: res.usage?.completion_tokens ?? 0,
      },
      stopReason: stopReason(choice?.finish_reason, toolCalls.length),
    };
  }

  private async streamed(
    client: OpenAI,
    base: ChatCompletionCreateParamsBase,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const stream = await client.chat.completions.create(
      { ...base, stream: true, stream_options: { include_usage: true } },
      { signal },
    );
    let text = '';
    let finish: string | null = null;
    const usage = { inputTokens: 0, outputTokens: 0 };
    // Tool calls arrive in pieces keyed by index: id and name first, then argument fragments.
    const partial = new Map<number, { id: string; name: string; args: string }>();
    for await (const chunk of stream) {
      if (chunk.usage) {
        usage.inputTokens = chunk.usage.prompt_tokens;
        usage.outputTokens = chunk.usage.completion_tokens;
      }
      const choice = chunk.choices[0];
      if (!choice) continue;
      if (choice.delta.content) text += choice.delta.content;
      for (const d of choice.delta.tool_calls ?? []) {
        let p = partial.get(d.index);
        if (!p) {
          p = { id: '', name: '', args: '' };
          partial.set(d.index, p);
        }
        if (d.id) p.id = d.id;
        if (d.function?.name) p.name += d.function.name;
        if (d.function?.arguments) p.args += d.function.arguments;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    // The SDK's stream iterator ends quietly on abort; a cut-short answer must not pass as complete.
    signal.throwIfAborted();
    const toolCalls = [...partial.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, p]) => ({
        id: p.id,
        name: p.name,
        arguments: parseToolArguments(this.name, p.name, p.args),
      }));
    return { text, toolCalls, usage, stopReason: stopReason(finish, toolCalls.length) };
  }
}
