// The product's logger (createLogger: level, request-id mixin) writing into memory, so
// tests can read what the server logged.
import { pino } from 'pino';
import { createLogger, type Logger } from '../../src/engine/logger.js';

export interface MemoryLog {
  logger: Logger;
  /** Every line written so far, parsed. */
  lines(): Record<string, unknown>[];
}

export function memoryLogger(level = 'info'): MemoryLog {
  const raw: string[] = [];
  const logger = createLogger(level);
  // Redirect the real logger (same options and mixin) instead of building a look-alike.
  (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] = {
    write: (s: string) => raw.push(s),
  };
  return {
    logger,
    lines: () =>
      raw
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
