// Engine errors carry a kind, never an HTTP status: each front door maps kinds to its own
// vocabulary (REST status codes, MCP isError results).

export type ErrorKind =
  | 'invalid' // the request is wrong (bad field, bad value)
  | 'unauthenticated' // no identity, or no access to the project
  | 'limit' // a plan limit would be exceeded
  | 'forbidden' // identity known, permission level too low, or maintenance
  | 'not_found'
  | 'conflict'
  | 'gone' // existed once and is used up or expired for good (a one-time link)
  | 'unsupported' // a representation or media type the resource does not offer
  | 'unavailable' // a service the request needs is not configured or not reachable now
  | 'insufficient_storage'; // the disk is full (ENOSPC) or its quota used up: nothing was written

export class EngineError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly context: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export const invalid = (message: string, context?: Record<string, unknown>) =>
  new EngineError('invalid', message, context);
export const unauthenticated = (message: string, context?: Record<string, unknown>) =>
  new EngineError('unauthenticated', message, context);
export const forbidden = (message: string, context?: Record<string, unknown>) =>
  new EngineError('forbidden', message, context);
export const notFound = (message: string, context?: Record<string, unknown>) =>
  new EngineError('not_found', message, context);
export const conflict = (message: string, context?: Record<string, unknown>) =>
  new EngineError('conflict', message, context);
export const gone = (message: string, context?: Record<string, unknown>) =>
  new EngineError('gone', message, context);
export const limitExceeded = (message: string, context?: Record<string, unknown>) =>
  new EngineError('limit', message, context);
export const unavailable = (message: string, context?: Record<string, unknown>) =>
  new EngineError('unavailable', message, context);

/**
 * The EngineError `err` is or wraps: the query builder wraps what the metadata store raised
 * (drizzle keeps it as `cause`), and the caller must still get its kind (pg-store.ts).
 */
export function engineErrorOf(err: unknown): EngineError | undefined {
  let e = err;
  for (let i = 0; e && i < 5; i++) {
    if (e instanceof EngineError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
