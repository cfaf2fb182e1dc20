// Provider-neutral chat interface for the AI assistant: one request shape, one result shape,
// implemented by openai.ts (chat completions) and anthropic.ts (messages).

export type ProviderName = 'openai' | 'anthropic';

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  /** The result of the tool call `toolCallId`, as text (JSON-encode structured results). */
  | { role: 'tool'; toolCallId: string; content: string; isError?: boolean };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments; must be an object schema. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  /** 'none': the model must answer in text (the tools stay declared for the history). */
  toolChoice?: 'auto' | 'none';
  maxTokens: number;
  signal: AbortSignal;
  stream?: boolean;
}

export type StopReason = 'end' | 'tool_use' | 'max_tokens';

export interface ChatResult {
  text: string;
  toolCalls: ToolCall[];
  usage: { inputTokens: number; outputTokens: number };
  stopReason: StopReason;
}

export interface ChatProvider {
  name: ProviderName;
  model: string;
  complete(req: ChatRequest): Promise<ChatResult>;
}

export interface ProviderOptions {
  baseUrl?: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

export type AiProviderErrorKind =
  'timeout' | 'http' | 'cancelled' | 'connection' | 'invalid_response';

export class AiProviderError extends Error {
  override readonly name = 'AiProviderError';
  constructor(
    readonly provider: ProviderName,
    readonly kind: AiProviderErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Parse tool-call arguments (a JSON object as text); an empty string means no arguments. */
export function parseToolArguments(
  provider: ProviderName,
  name: string,
  raw: string,
): Record<string, unknown> {
  if (raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new AiProviderError(
      provider,
      'invalid_response',
      `${provider}: arguments of tool call '${name}' are not valid JSON`,
      undefined,
      { cause: err },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AiProviderError(
      provider,
      'invalid_response',
      `${provider}: arguments of tool call '${name}' are not a JSON object`,
    );
  }
  return parsed as Record<string, unknown>;
}

interface SdkErrorClasses {
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
  APIConnectionError: abstract new (...args: never[]) => Error;
  APIError: abstract new (...args: never[]) => Error & { status?: number | undefined };
}

/** Turn whatever an SDK threw into an AiProviderError with a clear message. */
export function toProviderError(
  provider: ProviderName,
  err: unknown,
  signal: AbortSignal,
  timeoutMs: number,
  sdk: SdkErrorClasses,
): AiProviderError {
  if (err instanceof AiProviderError) return err;
  if (signal.aborted || err instanceof sdk.APIUserAbortError) {
    return new AiProviderError(provider, 'cancelled', `${provider}: request cancelled`, undefined, {
      cause: err,
    });
  }
  if (err instanceof sdk.APIConnectionTimeoutError) {
    return new AiProviderError(
      provider,
      'timeout',
      `${provider}: request timed out after ${timeoutMs} ms`,
      undefined,
      { cause: err },
    );
  }
  if (err instanceof sdk.APIConnectionError) {
    return new AiProviderError(
      provider,
      'connection',
      `${provider}: connection failed: ${err.message}`,
      undefined,
      { cause: err },
    );
  }
  if (err instanceof sdk.APIError && typeof err.status === 'number') {
    return new AiProviderError(
      provider,
      'http',
      `${provider}: provider returned HTTP ${err.status}: ${err.message}`,
      err.status,
      { cause: err },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AiProviderError(provider, 'invalid_response', `${provider}: ${message}`, undefined, {
    cause: err,
  });
}
