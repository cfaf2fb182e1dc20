// Jobs (the spec's scache): long work persisted in the metadata DB and run by one
// in-process runner. PREPARED → EXPANDING → RUNNING → OK | ERROR | CANCELLED.
// Other areas register a handler per job type; the runner owns every status change.
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { hasLevel, type ProjectActor } from '../access/actor.js';
import { type Db, first } from '../db/index.js';
import { jobs } from '../db/tables.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso, uuid } from '../ids.js';

export const JOB_TYPES = ['transform', 'flow', 'report', 'ai'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export const JOB_STATUSES = [
  'PREPARED',
  'EXPANDING',
  'RUNNING',
  'OK',
  'ERROR',
  'CANCELLED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ['OK', 'ERROR', 'CANCELLED'];

export interface Job {
  id: string;
  projectId: string;
  type: JobType;
  status: JobStatus;
  message?: string;
  params: Record<string, unknown>;
  result?: unknown;
  progress?: Record<string, unknown>;
  createdBy: string;
  created: string;
  started?: string;
  finished?: string;
}

export interface JobContext {
  job: Job;
  /** Aborted when the job is cancelled or the server stops; handlers must honour it. */
  signal: AbortSignal;
  log: Logger;
  progress(p: Record<string, unknown>): void;
}

export interface JobHandler {
  /** Planning phase (status EXPANDING): resolve inputs, fail early. */
  expand?(ctx: JobContext): Promise<void>;
  /** The work itself (status RUNNING); its return value is the job's result. */
  run(ctx: JobContext): Promise<unknown>;
}

/** Thrown by a handler for an expected failure: its message becomes the job message. */
export class JobFailure extends Error {}

type Row = typeof jobs.$inferSelect;

export class JobRunner {
  private handlers = new Map<JobType, JobHandler>();
  private queue: { id: string; type: JobType }[] = [];
  private running = new Map<string, AbortController>();
  /** Types with a pool of their own (AI answers wait on a provider, not on this machine). */
  private pools = new Map<JobType, number>();
  private runningOf = new Map<string, JobType>();
  private waiters = new Map<string, Array<(j: Job) => void>>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly concurrency: number,
  ) {}

  private finishListeners: Array<(job: Job) => void | Promise<void>> = [];

  /**
   * Called with every job that reaches a final status (after the status is stored, in the
   * same turn: no request sees the status before the listeners ran). Returns the way to stop.
   */
  onFinish(listener: (job: Job) => void | Promise<void>): () => void {
    this.finishListeners.push(listener);
    return () => {
      this.finishListeners = this.finishListeners.filter((l) => l !== listener);
    };
  }

  /** Types whose result only the member who started the job may read (AI answers). */
  private privateResults = new Set<JobType>();

  /**
   * `concurrency` gives the type its own pool; otherwise it shares the common one.
   * `privateResult`: Admins and MD Admins still see the job, but not its result.
   */
  register(
    type: JobType,
    handler: JobHandler,
    opts: { concurrency?: number; privateResult?: boolean } = {},
  ): void {
    this.handlers.set(type, handler);
    if (opts.concurrency) this.pools.set(type, opts.concurrency);
    else this.pools.delete(type);
    if (opts.privateResult) this.privateResults.add(type);
    else this.privateResults.delete(type);
  }

  /** A job left unfinished by a previous process cannot be resumed safely: end it. */
  async recoverInterrupted(): Promise<number> {
    const r = await this.db
      .update(jobs)
      .set({ status: 'ERROR', message: 'interrupted by restart', finished: nowIso() })
      .where(inArray(jobs.status, ['PREPARED', 'EXPANDING', 'RUNNING']))
      .returning({ id: jobs.id });
    return r.length;
  }

  async submit(a: ProjectActor, type: JobType, params: Record<string, unknown>): Promise<Job> {
    if (!this.handlers.has(type)) throw invalid(`no handler for job type "${type}"`);
    const id = uuid();
    await this.db.insert(jobs).values({
      id,
      projectId: a.projectId,
      type,
      status: 'PREPARED',
      params,
      createdBy: a.email,
      created: nowIso(),
    });
    this.queue.push({ id, type });
    queueMicrotask(() => this.pump());
    return (await this.load(id))!;
  }

  /** A job whose result is already known (e.g. a cache hit) is recorded straight as OK. */
  async recordFinished(
    a: ProjectActor,
    type: JobType,
    params: Record<string, unknown>,
    result: unknown,
  ): Promise<Job> {
    const id = uuid();
    const now = nowIso();
    await this.db.insert(jobs).values({
      id,
      projectId: a.projectId,
      type,
      status: 'OK',
      params,
      result,
      createdBy: a.email,
      created: now,
      started: now,
      finished: now,
    });
    return (await this.load(id))!;
  }

  /** A job as stored, without rights (engine-internal: recovery, listeners). */
  peek(id: string): Promise<Job | undefined> {
    return this.load(id);
  }

  /** Members see their own jobs; Admins and MD Admins see every job of the project. */
  async get(a: ProjectActor, id: string): Promise<Job> {
    const job = await this.load(id);
    if (!job || job.projectId !== a.projectId || !this.visible(a, job)) {
      throw notFound(`job "${id}" not found in project "${a.projectId}"`, { id });
    }
    if (this.privateResults.has(job.type) && job.createdBy !== a.email)
      return { ...job, result: undefined };
    return job;
  }

  async list(
    a: ProjectActor,
    q: { type?: string; status?: string; limit: number; offset: number },
  ): Promise<{ items: Job[]; total: number }> {
    const types = splitFilter(q.type, JOB_TYPES, 'type');
    const statuses = splitFilter(q.status, JOB_STATUSES, 'status');
    const where = and(
      eq(jobs.projectId, a.projectId),
      types ? inArray(jobs.type, types) : undefined,
      statuses ? inArray(jobs.status, statuses) : undefined,
      hasLevel(a, 'mdadmin') ? undefined : eq(jobs.createdBy, a.email),
    );
    const rows = await this.db
      .select()
      .from(jobs)
      .where(where)
      .orderBy(desc(jobs.created), desc(jobs.id))
      .limit(q.limit)
      .offset(q.offset);
    const total =
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(jobs)
          .where(where)
          .then(first)
      )?.n ?? 0;
    // Lists stay small: results are read from the job itself.
    return { items: rows.map((r) => ({ ...toJob(r), result: undefined })), total };
  }

  /**
   * Cancels a job. A job not started yet ends CANCELLED at once; a running one is signalled
   * and ends CANCELLED when its handler stops (OK if it had already finished its work).
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
    const ctrl = this.running.get(id);
    if (ctrl) ctrl.abort(new Error('cancelled'));
    else {
      this.queue = this.queue.filter((q) => q.id !== id);
      await this.finish(id, 'CANCELLED', 'cancelled before it started');
    }
    return (await this.load(id))!;
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

  /** Resolves when the job reaches a final status (the engine's own waits, and tests). */
  async waitFor(id: string, timeoutMs = 60_000): Promise<Job> {
    const job = await this.load(id);
    if (!job) return Promise.reject(notFound(`job "${id}" not found`));
    if (FINAL_STATUSES.includes(job.status)) return Promise.resolve(job);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.load(id).then(
          (j) => reject(new Error(`job ${id} still ${j?.status} after ${timeoutMs} ms`)),
          reject,
        );
      }, timeoutMs);
      const list = this.waiters.get(id) ?? [];
      list.push((j) => {
        clearTimeout(timer);
        resolve(j);
      });
      this.waiters.set(id, list);
    });
  }

  /** Stops taking work; queued jobs and running ones (once they stop) end CANCELLED. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const { id } of this.queue.splice(0))
      await this.finish(id, 'CANCELLED', 'server stopping before the job started');
    const ids = [...this.running.keys()];
    for (const ctrl of this.running.values()) ctrl.abort(new Error('server stopping'));
    await Promise.allSettled(ids.map((id) => this.waitFor(id, 10_000)));
  }

  private visible(a: ProjectActor, job: Job): boolean {
    return job.createdBy === a.email || hasLevel(a, 'mdadmin');
  }

  private async load(id: string): Promise<Job | undefined> {
    const row = await this.db.select().from(jobs).where(eq(jobs.id, id)).limit(1).then(first);
    return row ? toJob(row) : undefined;
  }

  private pump(): void {
    if (this.stopped) return;
    const busy = new Map<JobType | 'common', number>();
    for (const t of this.runningOf.values()) {
      const pool = this.pools.has(t) ? t : 'common';
      busy.set(pool, (busy.get(pool) ?? 0) + 1);
    }
    // First come, first served within each pool; a full pool does not hold up the others.
    for (let i = 0; i < this.queue.length;) {
      const { id, type } = this.queue[i]!;
      const pool = this.pools.has(type) ? type : 'common';
      const size = this.pools.get(type) ?? this.concurrency;
      if ((busy.get(pool) ?? 0) >= size) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      busy.set(pool, (busy.get(pool) ?? 0) + 1);
      this.runningOf.set(id, type);
      void this.execute(id);
    }
  }

  private async setStatus(id: string, status: JobStatus, extra: Partial<Row> = {}): Promise<void> {
    await this.db
      .update(jobs)
      .set({ status, ...extra })
      .where(eq(jobs.id, id));
  }

  private async finish(
    id: string,
    status: JobStatus,
    message: string | null,
    result?: unknown,
  ): Promise<void> {
    await this.setStatus(id, status, {
      message,
      finished: nowIso(),
      ...(result !== undefined ? { result } : {}),
    });
    const job = (await this.load(id))!;
    for (const l of this.finishListeners) {
      try {
        await l(job);
      } catch (err) {
        this.log.error({ err, jobId: id }, 'job finish listener failed');
      }
    }
    for (const w of this.waiters.get(id) ?? []) w(job);
    this.waiters.delete(id);
  }

  private async execute(id: string): Promise<void> {
    const job = await this.load(id);
    if (!job || job.status !== 'PREPARED') {
      this.runningOf.delete(id);
      return;
    }
    const handler = this.handlers.get(job.type)!;
    const ctrl = new AbortController();
    this.running.set(id, ctrl);
    const log = this.log.child({ jobId: id, jobType: job.type, project: job.projectId });
    const ctx: JobContext = {
      job,
      signal: ctrl.signal,
      log,
      // Progress is advisory: written in the background, a failed write only logged.
      progress: (p) =>
        void this.db
          .update(jobs)
          .set({ progress: p })
          .where(eq(jobs.id, id))
          .catch((err: unknown) => log.warn({ err }, 'job progress not stored')),
    };
    try {
      // A job without a planning phase goes straight to RUNNING: one status write, not two.
      if (handler.expand) {
        await this.setStatus(id, 'EXPANDING', { started: nowIso() });
        await handler.expand(ctx);
        ctrl.signal.throwIfAborted();
        await this.setStatus(id, 'RUNNING');
      } else await this.setStatus(id, 'RUNNING', { started: nowIso() });
      const result = await handler.run(ctx);
      // A handler that finished did its work (a load may have committed as the cancel came):
      // the job is OK. Handlers honour a cancel by throwing.
      await this.finish(id, 'OK', null, result ?? null);
    } catch (err) {
      if (ctrl.signal.aborted) await this.finish(id, 'CANCELLED', abortMessage(ctrl.signal));
      else if (err instanceof JobFailure || (err as { kind?: string } | null)?.kind)
        await this.finish(id, 'ERROR', reasonOf(err));
      else {
        log.error({ err }, 'job failed unexpectedly');
        await this.finish(id, 'ERROR', `internal error: ${reasonOf(err)}`);
      }
    } finally {
      this.running.delete(id);
      this.runningOf.delete(id);
      this.pump();
    }
  }
}

/** A handler may throw anything (a string, undefined): the job still gets a message. */
function reasonOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return err === undefined || err === null ? 'the handler failed without a reason' : String(err);
}

function abortMessage(signal: AbortSignal): string {
  const reason = signal.reason as Error | undefined;
  return reason?.message ?? 'cancelled';
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

function toJob(r: Row): Job {
  return {
    id: r.id,
    projectId: r.projectId,
    type: r.type as JobType,
    status: r.status as JobStatus,
    ...(r.message ? { message: r.message } : {}),
    params: r.params,
    ...(r.result !== null && r.result !== undefined ? { result: r.result } : {}),
    ...(r.progress ? { progress: r.progress } : {}),
    createdBy: r.createdBy,
    created: r.created,
    ...(r.started ? { started: r.started } : {}),
    ...(r.finished ? { finished: r.finished } : {}),
  };
}
