// Jobs (the spec's scache): long work persisted in the metadata DB and run by whichever
// process claims it. PREPARED → EXPANDING → RUNNING → OK | ERROR | CANCELLED. Other areas
// register a handler per job type; the runner (runner.ts) owns every status change, the queue
// (queue.ts) every statement on the jobs table and the claim across processes.
//
// This module is what members do with jobs, each call with the caller's ProjectActor: submit,
// read, list, cancel, wait. Members see their own jobs; Admins and MD Admins every job of the
// project (a private result and row counts under a row-level filter withheld).
import { hasLevel, type ProjectActor } from '../access/actor.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso, uuid } from '../ids.js';
import { JobRunnerCore } from './runner.js';
import { FINAL_STATUSES, JOB_STATUSES, JOB_TYPES, toJob, type Job, type JobType } from './types.js';

export {
  FINAL_STATUSES,
  JOB_STATUSES,
  JOB_TYPES,
  JobFailure,
  type Job,
  type JobContext,
  type JobHandler,
  type JobRunnerOptions,
  type JobStatus,
  type JobType,
  type RowFilteredView,
} from './types.js';

export class JobRunner extends JobRunnerCore {
  async submit(a: ProjectActor, type: JobType, params: Record<string, unknown>): Promise<Job> {
    if (!this.handlers.has(type)) throw invalid(`no handler for job type "${type}"`);
    return this.enqueue(a.projectId, a.email, type, params);
  }

  /** A job whose result is already known (e.g. a cache hit) is recorded straight as OK. */
  async recordFinished(
    a: ProjectActor,
    type: JobType,
    params: Record<string, unknown>,
    result: unknown,
  ): Promise<Job> {
    const row = await this.queue.insertFinished({
      id: uuid(),
      projectId: a.projectId,
      type,
      params,
      result,
      createdBy: a.email,
      now: nowIso(),
    });
    return toJob(row);
  }

  /** Members see their own jobs; Admins and MD Admins see every job of the project. */
  async get(a: ProjectActor, id: string): Promise<Job> {
    const job = await this.load(id);
    if (!job || job.projectId !== a.projectId || !this.visible(a, job)) {
      throw notFound(`job "${id}" not found in project "${a.projectId}"`, { id });
    }
    return this.view(a, job);
  }

  async list(
    a: ProjectActor,
    q: { type?: string; status?: string; limit: number; offset: number },
  ): Promise<{ items: Job[]; total: number }> {
    const { rows, total } = await this.queue.list({
      projectId: a.projectId,
      types: splitFilter(q.type, JOB_TYPES, 'type'),
      statuses: splitFilter(q.status, JOB_STATUSES, 'status'),
      createdBy: hasLevel(a, 'mdadmin') ? undefined : a.email,
      limit: q.limit,
      offset: q.offset,
    });
    // Lists stay small: results are read from the job itself.
    const items = rows.map((r) => ({ ...toJob(r), result: undefined }));
    return { items: await Promise.all(items.map((j) => this.view(a, j))), total };
  }

  /**
   * Cancels a job. A job not started yet ends CANCELLED at once; a running one is signalled
   * (in whichever process runs it) and ends CANCELLED when its handler stops (OK if it had
   * already finished its work).
   */
  async cancel(a: ProjectActor, id: string): Promise<Job> {
    const job = await this.get(a, id);
    if (job.createdBy !== a.email && !hasLevel(a, 'mdadmin')) {
      throw notFound(`job "${id}" not found in project "${a.projectId}"`, { id });
    }
    if (FINAL_STATUSES.includes(job.status))
      throw conflict(`job "${id}" has already finished with status ${job.status}`, {
        id,
        status: job.status,
      });
    await this.cancelById(id);
    return this.view(a, (await this.load(id))!);
  }

  /**
   * The caller's view of a job (as get() shows it) once it reaches a final status; rejects
   * when it is still running after `timeoutMs`. What front doors wait with.
   */
  async finished(a: ProjectActor, id: string, timeoutMs: number): Promise<Job> {
    await this.get(a, id);
    await this.waitFor(id, timeoutMs);
    return this.get(a, id);
  }

  /**
   * `finished` for the member who just submitted `job` (it is theirs to see): a job this
   * process runs is not read back from the store, before or after.
   */
  async finishedOwn(a: ProjectActor, job: Job, timeoutMs: number): Promise<Job> {
    if (job.createdBy !== a.email || job.projectId !== a.projectId)
      return this.finished(a, job.id, timeoutMs);
    return this.view(a, await this.waitFor(job.id, timeoutMs));
  }

  private visible(a: ProjectActor, job: Job): boolean {
    return job.createdBy === a.email || hasLevel(a, 'mdadmin');
  }

  /** The job as `a` may see it: a private result, row counts under a row-level filter. */
  private async view(a: ProjectActor, job: Job): Promise<Job> {
    let out = job;
    if (this.privateResults.has(job.type) && job.createdBy !== a.email)
      out = { ...out, result: undefined };
    const filtered = a.filter ? this.rowFiltered.get(job.type) : undefined;
    return filtered ? filtered(a, out) : out;
  }
}

function splitFilter<T extends string>(
  raw: string | undefined,
  allowed: readonly T[],
  field: string,
): T[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const values = raw
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  const bad = values.filter(
    (v) =>
      !(allowed as readonly string[]).includes(v) &&
      !(allowed as readonly string[]).includes(v.toUpperCase()),
  );
  if (bad.length)
    throw invalid(`unknown job ${field} ${bad.map((b) => `"${b}"`).join(', ')}`, {
      field,
      invalid: bad,
      allowed: [...allowed],
    });
  return values.map((v) =>
    (allowed as readonly string[]).includes(v) ? v : v.toUpperCase(),
  ) as T[];
}
