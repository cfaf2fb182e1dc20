// Errors of a flow run: each names the box (and the field) it comes from, so a failed run
// says exactly what to fix. A BoxError is a JobFailure: its message becomes the job message.
import { JobFailure } from '../jobs/jobs.js';

export class BoxError extends JobFailure {
  constructor(
    readonly box: string,
    readonly field: string | null,
    message: string,
  ) {
    super(`box "${box}"${field ? ` (${field})` : ''}: ${message}`);
  }
}

/** An error's own text, without the `box "…" (field): ` prefix of a BoxError. */
export function boxErrorDetail(err: unknown): string {
  if (err instanceof BoxError) {
    const prefix = `box "${err.box}"${err.field ? ` (${err.field})` : ''}: `;
    return err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
