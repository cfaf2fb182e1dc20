// AI provider settings from the environment (validated with zod; errors name the variable).
import { z } from 'zod';
import { AnthropicProvider } from './anthropic.js';
import { OpenAiProvider } from './openai.js';
import type { ChatProvider, ProviderName } from './provider.js';

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
});

export interface AiConfig {
  provider: ProviderName;
  baseUrl?: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
}

export class AiConfigError extends Error {
  override readonly name = 'AiConfigError';
}

/** Parse the AI settings; null when URSA_AI_PROVIDER is unset (no provider configured). */
export function parseAiConfig(env: Record<string, string | undefined>): AiConfig | null {
  const parsed = aiEnvSchema.safeParse(env);
  if (!parsed.success) {
    const msg = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new AiConfigError(`invalid AI configuration: ${msg}`);
  }
  const e = parsed.data;
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
  };
}

export function providerFromConfig(cfg: AiConfig): ChatProvider {
  return cfg.provider === 'openai' ? new OpenAiProvider(cfg) : new AnthropicProvider(cfg);
}

/** The configured chat provider, or null when none is configured. */
export function createProvider(env: Record<string, string | undefined>): ChatProvider | null {
  const cfg = parseAiConfig(env);
  return cfg ? providerFromConfig(cfg) : null;
}
