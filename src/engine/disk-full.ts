// A full disk, wherever a write meets it: the data directory (ENOSPC, or EDQUOT when the
// filesystem's quota is used up), DuckDB writing a dataset version or spilling, SQLite's
// metadata file (SQLITE_FULL), PostgreSQL's disk (53100). It is the operator's to fix, not the
// caller's: an 'insufficient_storage' error (507 at the REST and WebDAV doors), never a stack.
import { EngineError } from './errors.js';

const CODES = /^(ENOSPC|EDQUOT|SQLITE_FULL|53100)$/;
/** DuckDB reports the system's error in its message only. */
const MESSAGES = /No space left on device|Disk quota exceeded|database or disk is full/i;

/** The code that says the disk is full, of `err` or one of its causes; null otherwise. */
function fullCode(err: unknown): string | null {
  let e = err as { code?: unknown; cause?: unknown; message?: unknown } | undefined;
  for (let i = 0; e && typeof e === 'object' && i < 5; i++, e = e.cause as typeof e) {
    if (e instanceof EngineError) return null;
    if (typeof e.code === 'string' && CODES.test(e.code)) return e.code;
    if (typeof e.message === 'string' && MESSAGES.test(e.message))
      return /quota/i.test(e.message) ? 'EDQUOT' : 'ENOSPC';
  }
  return null;
}

/** The 'insufficient_storage' error `err` amounts to, or null when it is not a full disk. */
export function diskFullOf(err: unknown): EngineError | null {
  const code = fullCode(err);
  if (!code) return null;
  const where =
    code === 'SQLITE_FULL' || code === '53100' ? 'the metadata database' : 'the data directory';
  return new EngineError(
    'insufficient_storage',
    `disk full: the server has no space left for ${where} (${code}); nothing was written. ` +
      'Retry once the operator has freed space',
    { code },
  );
}

/** `err`, or the 'insufficient_storage' error it amounts to: for a write's catch. */
export function asDiskFull(err: unknown): unknown {
  return diskFullOf(err) ?? err;
}
