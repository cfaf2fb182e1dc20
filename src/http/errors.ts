// Every error answers { statusCode, message, context, errorId }. Unknown errors are 500s
// whose errorId is logged with the stack; the body never carries a stack trace.
import type { ErrorKind } from '../engine/errors.js';
import { engineErrorOf } from '../engine/errors.js';
import { uuid } from '../engine/ids.js';
import { isDatabaseBusy, isDatabaseUnavailable } from '../engine/db/unavailable.js';
import { diskFullOf } from '../engine/disk-full.js';

export const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  limit: 402,
  forbidden: 403,
  not_found: 404,
  unsupported: 406,
  conflict: 409,
  gone: 410,
  unavailable: 503,
  insufficient_storage: 507,
};

export interface ErrorBody {
  statusCode: number;
  message: string;
  context: Record<string, unknown>;
  errorId: string;
}

/** An error raised by the HTTP layer itself (405, 413, 415…), outside the engine's kinds. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly context: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function toErrorBody(raw: unknown): {
  body: ErrorBody;
  headers: Record<string, string>;
  internal: boolean;
} {
  const errorId = uuid();
  // A full disk met by a write the engine did not name (metadata, WebDAV properties): 507.
  const err = diskFullOf(raw) ?? raw;
  const engineErr = engineErrorOf(err);
  if (engineErr) {
    return {
      body: {
        statusCode: STATUS_OF[engineErr.kind],
        message: engineErr.message,
        context: engineErr.context,
        errorId,
      },
      headers: {},
      internal: false,
    };
  }
  if (err instanceof HttpError) {
    return {
      body: { statusCode: err.statusCode, message: err.message, context: err.context, errorId },
      headers: err.headers,
      internal: false,
    };
  }
  // Body parsers and other middleware raise errors with an HTTP status of 4xx.
  const status =
    (err as { status?: number; statusCode?: number }).status ??
    (err as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const e = err as { message?: string; type?: string };
    return {
      body: {
        statusCode: status,
        message: e.message ?? 'bad request',
        context: e.type ? { type: e.type } : {},
        errorId,
      },
      headers: {},
      internal: false,
    };
  }
  // The metadata database's trouble is a moment's, not a bug: 503, retry after a while.
  const retryLater = (message: string, seconds: number) => ({
    body: { statusCode: 503, message, context: { retryAfterSeconds: seconds }, errorId },
    headers: { 'Retry-After': String(seconds) },
    internal: false,
  });
  if (isDatabaseUnavailable(err))
    return retryLater('the metadata database cannot be reached; retry in a few seconds', 5);
  if (isDatabaseBusy(err))
    return retryLater('the metadata database is busy; retry in a few seconds', 2);
  return {
    body: {
      statusCode: 500,
      message: `internal error; quote errorId ${errorId} when reporting it`,
      context: {},
      errorId,
    },
    headers: {},
    internal: true,
  };
}
