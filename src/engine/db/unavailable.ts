// Whether an error means the metadata database is out of reach (no imports: the error shape
// of every front door uses it).
/** Connection classes (08), shutdown and start-up (57P0x) of PostgreSQL, and socket errors. */
const UNAVAILABLE = /^(08\d{3}|57P0[123]|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH)$/;

/**
 * Busy, not wrong: a statement past its timeout or cancelled (57014), a serialization failure
 * (40001), a deadlock PostgreSQL broke by failing one side (40P01), a lock not available
 * (55P03), insufficient resources such as too many connections (53xxx). The same request
 * succeeds a moment later.
 */
const BUSY = /^(57014|40001|40P01|55P03|53\d{3})$/;

/** The codes of `err` and its causes (drizzle wraps the driver's error). */
function* codes(err: unknown): Generator<{ code?: unknown; message?: unknown; syscall?: unknown }> {
  for (
    let e = err as
        { code?: unknown; cause?: unknown; message?: unknown; syscall?: unknown } | undefined,
      i = 0;
    e && i < 5;
    i++
  ) {
    yield e;
    e = e.cause as typeof e;
  }
}

/** Whether `err` says the metadata database is busy now (see BUSY): 503, retry shortly. */
export function isDatabaseBusy(err: unknown): boolean {
  for (const e of codes(err)) if (typeof e.code === 'string' && BUSY.test(e.code)) return true;
  return false;
}

/**
 * Whether `err` says the metadata database cannot be reached now (not that a statement was
 * wrong): front doors answer 503, retry later, instead of an internal error.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (const e of codes(err)) {
    if (typeof e.code === 'string' && UNAVAILABLE.test(e.code)) return true;
    // A Unix socket whose server is stopped is gone: connect fails with ENOENT.
    if (e.code === 'ENOENT' && e.syscall === 'connect') return true;
    if (
      typeof e.message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(
        e.message,
      )
    )
      return true;
  }
  return false;
}
