// One pino logger; every line written while serving a request carries its request id,
// including lines the engine writes deep inside, through AsyncLocalStorage.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger } from 'pino';

interface LogContext {
  reqId: string;
}

export const logContext = new AsyncLocalStorage<LogContext>();

export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      base: undefined,
      mixin: () => {
        const ctx = logContext.getStore();
        return ctx ? { reqId: ctx.reqId } : {};
      },
    },
    // Asynchronous writes coalesce lines under load: a write(2) per request line costs more
    // than the request. pino flushes what is pending when the process exits.
    pino.destination({ dest: 1, sync: false }),
  );
}

export type { Logger };
