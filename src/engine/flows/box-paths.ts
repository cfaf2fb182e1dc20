// The path parameters of every box, checked on save in one place: a path names its file
// plainly, so a ".." segment is refused everywhere (a storage path or a path on an SFTP
// server); storage paths must also be what project storage accepts, so a flow that saves
// fails on its path at save time, not at the end of a run.
import { z } from 'zod';
import { EngineError } from '../errors.js';
import { normalizeStoragePath } from '../storage/paths.js';

const MAX_PATH = 4096;

/** False (with the issue) when `p` has a ".." segment. */
function noDotDot(p: string, ctx: z.RefinementCtx): boolean {
  if (!p.split('/').includes('..')) return true;
  ctx.addIssue({
    code: 'custom',
    message: 'must not contain a ".." segment: write the path itself',
  });
  return false;
}

/** An absolute path in project storage: `/in/sales.csv` (glob characters are plain ones). */
export const zStoragePath = z
  .string()
  .min(2)
  .max(MAX_PATH)
  .regex(/^\//, { error: 'must be an absolute storage path such as "/in/sales.csv"' })
  .superRefine((p, ctx) => {
    if (!noDotDot(p, ctx)) return;
    try {
      normalizeStoragePath(p);
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
      ctx.addIssue({ code: 'custom', message: err.message });
    }
  });

/** A path on a remote server (SFTP): absolute, or relative to the login directory. */
export const zRemotePath = z
  .string()
  .min(1)
  .max(MAX_PATH)
  .superRefine((p, ctx) => void noDotDot(p, ctx));
