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
