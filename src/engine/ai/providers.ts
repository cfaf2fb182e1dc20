// The chat provider for a configuration: the OpenAI or Anthropic client (their SDKs load here).
import { AnthropicProvider } from './anthropic.js';
import { parseAiConfig, type AiConfig } from './config.js';
import { OpenAiProvider } from './openai.js';
import type { ChatProvider } from './provider.js';

export function providerFromConfig(cfg: AiConfig): ChatProvider {
  return cfg.provider === 'openai' ? new OpenAiProvider(cfg) : new AnthropicProvider(cfg);
}

/** The configured chat provider, or null when none is configured. */
export function createProvider(env: Record<string, string | undefined>): ChatProvider | null {
  const cfg = parseAiConfig(env);
  return cfg ? providerFromConfig(cfg) : null;
}
