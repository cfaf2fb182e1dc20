// ChatProvider over the Anthropic messages API (`tools` / `tool_use` / `tool_result`).
// The SDK is loaded on the first call: a process that never asks the model does not load it.
import type Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
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

function toWireMessages(req: ChatRequest): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of req.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.content });
    } else if (m.role === 'assistant') {
      const blocks: ContentBlockParam[] = [];
      if (m.content !== '') blocks.push({ type: 'text', text: m.content });
      for (const c of m.toolCalls ?? []) {
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments });
      }
      out.push({ role: 'assistant', content: blocks });
    } else {
      // Tool results travel in a user turn; consecutive results share one turn.
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: m.toolCallId,
        content: m.content,
        ...(m.isError ? { is_error: true } : {}),
      };
      const last = out[out.length - 1];
      if (
        last?.role === 'user' &&
        Array.isArray(last.content) &&
        last.content.every((b) => b.type === 'tool_result')
      ) {
        last.content.push(block);
      } else {
        out.push({ role: 'user', content: [block] });
      }
    }
  }
  return out;
}

function stopReason(reason: string | null | undefined, toolCalls: number): StopReason {
  if (reason === 'max_tokens') return 'max_tokens';
  if (reason === 'tool_use' || toolCalls > 0) return 'tool_use';
  return 'end';
}

export class AnthropicProvider implements ChatProvider {
  readonly name = 'anthropic' as const;
  readonly model: string;
  private readonly opts: ProviderOptions;
  private sdk?: Promise<{ Sdk: typeof Anthropic; client: Anthropic }>;
  private readonly timeoutMs: number;

  constructor(opts: ProviderOptions) {
    this.model = opts.model;
    this.timeoutMs = opts.timeoutMs;
    this.opts = opts;
  }

  private loaded(): Promise<{ Sdk: typeof Anthropic; client: Anthropic }> {
    const opts = this.opts;
    return (this.sdk ??= import('@anthropic-ai/sdk').then(({ default: Sdk }) => ({
      Sdk,
      client: new Sdk({
        // Settings come from URSA_AI_* only, never from the SDK's own ANTHROPIC_* variables.
        apiKey: opts.apiKey ?? null,
        authToken: null,
        baseURL: opts.baseUrl ?? null,
        timeout: opts.timeoutMs,
        maxRetries: 0,
      }),
    })));
  }

  async complete(req: ChatRequest): Promise<ChatResult> {
    const tools: Tool[] = req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: { ...t.parameters, type: 'object' },
    }));
    const base: MessageCreateParamsBase = {
      model: this.model,
      max_tokens: req.maxTokens,
      messages: toWireMessages(req),
      ...(req.system !== '' ? { system: req.system } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(tools.length > 0 && req.toolChoice === 'none'
        ? { tool_choice: { type: 'none' as const } }
        : {}),
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
    client: Anthropic,
    base: MessageCreateParamsBase,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const res = await client.messages.create({ ...base, stream: false }, { signal });
    let text = '';
    const toolCalls: ToolCall[] = [];
    for (const block of res.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'tool_use') {
        const input = block.input;
        toolCalls.push({
          id: block.id,
          name: block.name,
          arguments:
            input !== null && typeof input === 'object' && !Array.isArray(input)
              ? (input as Record<string, unknown>)
              : {},
        });
      }
    }
    return {
      text,
      toolCalls,
      usage: { inputTokens: res.usage.input_tokens, outputTokens: res.usage.output_tokens },
      stopReason: stopReason(res.stop_reason, toolCalls.length),
    };
  }

  private async streamed(
    client: Anthropic,
    base: MessageCreateParamsBase,
    signal: AbortSignal,
  ): Promise<ChatResult> {
    const stream = await client.messages.create({ ...base, stream: true }, { signal });
    let text = '';
    let reason: string | null = null;
    const usage = { inputTokens: 0, outputTokens: 0 };
    // Content blocks by index; a tool_use block's input arrives as JSON fragments.
    const blocks = new Map<number, { id: string; name: string; json: string }>();
    for await (const ev of stream) {
      switch (ev.type) {
        case 'message_start':
          usage.inputTokens = ev.message.usage.input_tokens;
          usage.outputTokens = ev.message.usage.output_tokens;
          break;
        case 'content_block_start':
          if (ev.content_block.type === 'tool_use') {
            blocks.set(ev.index, {
              id: ev.content_block.id,
              name: ev.content_block.name,
              json: '',
            });
          } else if (ev.content_block.type === 'text') {
            text += ev.content_block.text;
          }
          break;
        case 'content_block_delta':
          if (ev.delta.type === 'text_delta') text += ev.delta.text;
          else if (ev.delta.type === 'input_json_delta') {
            const b = blocks.get(ev.index);
            if (b) b.json += ev.delta.partial_json;
          }
          break;
        case 'message_delta':
          if (ev.delta.stop_reason) reason = ev.delta.stop_reason;
          if (ev.usage.input_tokens != null) usage.inputTokens = ev.usage.input_tokens;
          usage.outputTokens = ev.usage.output_tokens;
          break;
        default:
          break;
      }
    }
    // The SDK's stream iterator ends quietly on abort; a cut-short answer must not pass as complete.
    signal.throwIfAborted();
    const toolCalls = [...blocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, b]) => ({
        id: b.id,
        name: b.name,
        arguments: parseToolArguments(this.name, b.name, b.json),
      }));
    return { text, toolCalls, usage, stopReason: stopReason(reason, toolCalls.length) };
  }
}
