// Errors of the SQL API, as PostgreSQL clients expect them: a SQLSTATE code beside the
// product's message, and a hint that shows what would work.
import { EngineError, type ErrorKind } from '../errors.js';

export class SqlError extends Error {
  constructor(
    /** SQLSTATE: 42601 syntax, 42703 column, 42P01 table, 0A000 not supported, … */
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export const notSupported = (what: string, hint?: string) =>
  new SqlError('0A000', `${what} is not supported by Ursa's SQL API`, hint);

/** An engine error as a SQLSTATE: the same message every other door gives. */
export function sqlErrorOf(err: unknown): SqlError {
  if (err instanceof SqlError) return err;
  if (err instanceof EngineError) {
    const code: Record<ErrorKind, string> = {
      invalid: '42601',
      unauthenticated: '28000',
      limit: '53400',
      forbidden: '42501',
      not_found: '42704',
      conflict: '40001',
      gone: '42704',
      unsupported: '0A000',
      unavailable: '57P03',
      insufficient_storage: '53100',
    };
    // AQL's message names the object and the fix; its suggestions ride along as the hint.
    const s = (err.context as { suggestions?: unknown }).suggestions;
    const hint = Array.isArray(s) && s.length ? `did you mean ${s.join(', ')}?` : undefined;
    return new SqlError(code[err.kind], err.message, hint);
  }
  // A statement deep enough to exhaust the stack is the statement's fault, not the server's.
  if (err instanceof RangeError && /call stack/i.test(err.message))
    return new SqlError('54001', 'the statement is nested too deeply');
  return new SqlError('XX000', `internal error: ${(err as Error)?.message ?? String(err)}`);
}
