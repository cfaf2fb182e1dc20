// AI provider settings from the environment (validated with zod; errors name the variable).
// The provider SDKs are not loaded here (src/engine/ai/providers.ts): reading the
// configuration, as every command line command does, stays cheap.
import { z } from 'zod';
import type { ProviderName } from './provider.js';

const optionalString = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.string().min(1).optional(),
);

const aiEnvSchema = z.object({
  URSA_AI_PROVIDER: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['openai', 'anthropic']).optional(),
  ),
  URSA_AI_BASE_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url().optional()),
  URSA_AI_API_KEY: optionalString,
  URSA_AI_MODEL: optionalString,
  URSA_AI_TIMEOUT_MS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(1).default(60000),
  ),
  URSA_AI_MAX_STEPS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(1).max(50).default(8),
  ),
  URSA_AI_MAX_TOKENS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(1000).default(60000),
  ),
  URSA_AI_MAX_OUTPUT_TOKENS: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(64).default(2048),
  ),
  URSA_AI_STREAM: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'])
      .default('true')
      .transform((v) => ['1', 'true', 'yes', 'on'].includes(v)),
  ),
  URSA_AI_CONCURRENCY: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.coerce.number().int().min(1).max(64).default(4),
  ),
});

export interface AiConfig {
  provider: ProviderName;
  baseUrl?: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  agent: AgentBudget;
}

/** How far one chat message may go, and how it talks to the provider. */
export interface AgentBudget {
  /** Model calls per message. */
  maxSteps: number;
  /** Input + output tokens per message, over all its model calls. */
  maxTokens: number;
  /** Output tokens of one model call. */
  maxOutputTokens: number;
  stream: boolean;
  /** AI messages answered at once (their own pool, beside loads and queries). */
  concurrency: number;
}

export class AiConfigError extends Error {
  override readonly name = 'AiConfigError';
}

function parseEnv(env: Record<string, string | undefined>) {
  const parsed = aiEnvSchema.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new AiConfigError(`invalid AI configuration: ${msg}`);
  }
  return parsed.data;
}

/** The agent's budget (read even without a provider: the job pool is sized from it). */
export function parseAgentBudget(env: Record<string, string | undefined>): AgentBudget {
  const e = parseEnv(env);
  return {
    maxSteps: e.URSA_AI_MAX_STEPS,
    maxTokens: e.URSA_AI_MAX_TOKENS,
    maxOutputTokens: e.URSA_AI_MAX_OUTPUT_TOKENS,
    stream: e.URSA_AI_STREAM,
    concurrency: e.URSA_AI_CONCURRENCY,
  };
}

/** Parse the AI settings; null when URSA_AI_PROVIDER is unset (no provider configured). */
export function parseAiConfig(env: Record<string, string | undefined>): AiConfig | null {
  const e = parseEnv(env);
  if (!e.URSA_AI_PROVIDER) return null;
  if (!e.URSA_AI_MODEL) {
    throw new AiConfigError(
      `invalid AI configuration: URSA_AI_MODEL: required when URSA_AI_PROVIDER=${e.URSA_AI_PROVIDER}`,
    );
  }
  return {
    provider: e.URSA_AI_PROVIDER,
    ...(e.URSA_AI_BASE_URL ? { baseUrl: e.URSA_AI_BASE_URL } : {}),
    ...(e.URSA_AI_API_KEY ? { apiKey: e.URSA_AI_API_KEY } : {}),
    model: e.URSA_AI_MODEL,
    timeoutMs: e.URSA_AI_TIMEOUT_MS,
    agent: parseAgentBudget(env),
  };
}
