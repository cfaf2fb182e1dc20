// Whether an error means the metadata database is out of reach (no imports: the error shape
// of every front door uses it).
/** Connection classes (08), shutdown and start-up (57P0x) of PostgreSQL, and socket errors. */
const UNAVAILABLE = /^(08\d{3}|57P0[123]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)$/;

/**
 * Whether `err` says the metadata database cannot be reached now (not that a statement was
 * wrong): front doors answer 503, retry later, instead of an internal error.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined, i = 0;
    e && i < 5;
    i++
  ) {
    if (typeof e.code === 'string' && UNAVAILABLE.test(e.code)) return true;
    if (
      typeof e.message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
        e.message,
      )
    )
      return true;
    e = e.cause as typeof e;
  }
  return false;
}
