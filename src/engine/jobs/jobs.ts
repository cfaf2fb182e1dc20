// Jobs (the spec's scache): long work persisted in the metadata DB and run by whichever
// process claims it. PREPARED → EXPANDING → RUNNING → OK | ERROR | CANCELLED.
// Other areas register a handler per job type; the runner owns every status change.
//
// Across processes (SCALE.md, "Jobs across processes"): the job row is the queue. A process
// claims a queued row (PostgreSQL: `FOR UPDATE SKIP LOCKED`) and holds it with a lease its
// heartbeat renews; new work, finished jobs and cancels are announced as signals (LISTEN/
// NOTIFY), with a short poll behind them for a signal lost with a connection. A lease that runs
// out means its process died: a query (or a job never started) is queued again, anything else
// ends ERROR "interrupted" (its writes publish atomically, so nothing half-written remains).
import { and, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import { hasLevel, type ProjectActor } from '../access/actor.js';
import { type Db, first, prepared, storeOf, tx } from '../db/index.js';
import { jobs } from '../db/tables.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso, randomId, uuid } from '../ids.js';
import { diskFullOf } from '../disk-full.js';
import { deadOnThisHost, PROCESS_ID, processOf } from '../process-id.js';

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

/**
 * A job as a reader with a row-level filter may see it: counts made over every row (a load's
 * rows, a query result's row count computed under another filter) are withheld.
 */
export type RowFilteredView = (reader: ProjectActor, job: Job) => Job | Promise<Job>;

/** Thrown by a handler for an expected failure: its message becomes the job message. */
// Job polls and cached answers are on the request path: built once (see prepared()).
const loadJob = prepared('job', (db) =>
  db
    .select()
    .from(jobs)
    .where(eq(jobs.id, sql.placeholder('id')))
    .limit(1),
);
const insertFinished = prepared('job_finished', (db) =>
  db
    .insert(jobs)
    .values({
      id: sql.placeholder('id'),
      projectId: sql.placeholder('projectId'),
      type: sql.placeholder('type'),
      status: 'OK',
      params: sql.placeholder('params'),
      result: sql.placeholder('result'),
      createdBy: sql.placeholder('createdBy'),
      created: sql.placeholder('now'),
      started: sql.placeholder('now'),
      finished: sql.placeholder('now'),
    })
    .returning(),
);

let lastCreated = 0;
/**
 * Now, and strictly after the last job this process queued: the queue is claimed in order of
 * `created` (then the random id), so two jobs submitted within one millisecond would otherwise
 * run in either order.
 */
function createdNow(): string {
  lastCreated = Math.max(Date.now(), lastCreated + 1);
  return new Date(lastCreated).toISOString();
}

export class JobFailure extends Error {}

type Row = typeof jobs.$inferSelect;

const ACTIVE: JobStatus[] = ['PREPARED', 'EXPANDING', 'RUNNING'];
/** Types run again when their process died mid-run: they only read (a query). */
const RERUN: readonly JobType[] = ['report'];
const MAX_ATTEMPTS = 2;
const CH_QUEUED = 'ursa_job_queued';
const CH_DONE = 'ursa_job_done';
const CH_CANCEL = 'ursa_job_cancel';

export interface JobRunnerOptions {
  /** Jobs of the common pool this process runs at once. */
  concurrency: number;
  /** Which types this process runs (URSA_ROLE); the others it only queues. Default: all. */
  runs?: (type: JobType) => boolean;
  /** How long a claim holds without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** How often queued work, waits and dead processes' jobs are looked at (default 1 s). */
  pollMs?: number;
  /** Called with the process id of a job ended because its process died (its write locks go). */
  onDeadProcess?: (processId: string) => Promise<void>;
}

export class JobRunner {
  private handlers = new Map<JobType, JobHandler>();
  private running = new Map<string, AbortController>();
  /** Types with a pool of their own (AI answers wait on a provider, not on this machine). */
  private pools = new Map<JobType, number>();
  /** Jobs this process holds (claimed, starting or running), by type. */
  private runningOf = new Map<string, JobType>();
  private waiters = new Map<string, Array<(j: Job) => void>>();
  private stopped = false;
  private started = false;
  private pumping = false;
  private pumpAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: Array<() => void> = [];
  /** This runner in claims: the process, and which runner of it (a test restarts in place). */
  private readonly me = `${PROCESS_ID}:${randomId(4)}`;
  /** Jobs submitted here that waited for room (SQLite: cancelled when this runner stops). */
  private queuedHere = new Set<string>();
  private readonly concurrency: number;
  private readonly runs: (type: JobType) => boolean;
  private readonly leaseMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    opts: JobRunnerOptions | number,
  ) {
    const o = typeof opts === 'number' ? { concurrency: opts } : opts;
    this.concurrency = o.concurrency;
    this.runs = o.runs ?? (() => true);
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? Math.min(1_000, this.leaseMs / 3);
    this.onDeadProcess = o.onDeadProcess;
  }

  private readonly onDeadProcess?: (processId: string) => Promise<void>;
  private finishListeners: Array<(job: Job) => void | Promise<void>> = [];

  /** Whether other processes may share the jobs (PostgreSQL); SQLite serves one process. */
  private get shared(): boolean {
    return storeOf(this.db).dialect === 'postgres';
  }

  /**
   * Called with every job that reaches a final status (after the status is stored, in the
   * same turn: no request sees the status before the listeners ran), by the process that ended
   * it. Returns the way to stop.
   */
  onFinish(listener: (job: Job) => void | Promise<void>): () => void {
    this.finishListeners.push(listener);
    return () => {
      this.finishListeners = this.finishListeners.filter((l) => l !== listener);
    };
  }

  /** Types whose result only the member who started the job may read (AI answers). */
  private privateResults = new Set<JobType>();
  /** Per type: the job as a reader with a row-level filter may see it (see register). */
  private rowFiltered = new Map<JobType, RowFilteredView>();

  /**
   * `concurrency` gives the type its own pool; otherwise it shares the common one.
   * `privateResult`: Admins and MD Admins still see the job, but not its result.
   * `rowFiltered`: what a reader with a row-level filter sees of a job of this type (e.g.
   * without the rows a load counted over every row), as every read shows only their rows.
   */
  register(
    type: JobType,
    handler: JobHandler,
    opts: { concurrency?: number; privateResult?: boolean; rowFiltered?: RowFilteredView } = {},
  ): void {
    this.handlers.set(type, handler);
    if (opts.concurrency) this.pools.set(type, opts.concurrency);
    else this.pools.delete(type);
    if (opts.privateResult) this.privateResults.add(type);
    else this.privateResults.delete(type);
    if (opts.rowFiltered) this.rowFiltered.set(type, opts.rowFiltered);
    else this.rowFiltered.delete(type);
  }

  /** The job as `a` may see it: a private result, row counts under a row-level filter. */
  private async view(a: ProjectActor, job: Job): Promise<Job> {
    let out = job;
    if (this.privateResults.has(job.type) && job.createdBy !== a.email)
      out = { ...out, result: undefined };
    const filtered = a.filter ? this.rowFiltered.get(job.type) : undefined;
    return filtered ? filtered(a, out) : out;
  }

  /**
   * At start-up. On SQLite (one process) a job left unfinished was the last process's and
   * cannot be resumed safely: end it. On PostgreSQL other processes may be running theirs:
   * only jobs whose lease ran out are judged (as the heartbeat does from then on).
   */
  async recoverInterrupted(): Promise<number> {
    if (this.shared) return this.reapExpired(true);
    const r = await this.db
      .update(jobs)
      .set({ status: 'ERROR', message: 'interrupted by restart', finished: nowIso() })
      .where(inArray(jobs.status, ACTIVE))
      .returning({ id: jobs.id });
    return r.length;
  }

  /**
   * Starts taking queued work of other processes and watching leases, cancels and waits
   * (after `recoverInterrupted`). Jobs this process submits run without it.
   */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    const { signals } = storeOf(this.db);
    this.unlisten.push(
      await signals.listen(CH_QUEUED, () => this.pump()),
      await signals.listen(CH_DONE, (id) => this.doneElsewhere(id)),
      await signals.listen(CH_CANCEL, (id) => this.running.get(id)?.abort(new Error('cancelled'))),
    );
    const every = (ms: number, fn: () => Promise<unknown>) => {
      let busy = false;
      const t = setInterval(() => {
        if (busy || this.stopped) return;
        busy = true;
        fn()
          .catch((err: unknown) => this.log.warn({ err }, 'job upkeep failed; retrying'))
          .finally(() => (busy = false));
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    every(this.pollMs, async () => {
      this.pump();
      await this.checkWaiters();
    });
    every(this.leaseMs / 3, async () => {
      await this.heartbeat();
      await this.reapExpired();
    });
    this.pump();
  }

  async submit(a: ProjectActor, type: JobType, params: Record<string, unknown>): Promise<Job> {
    if (!this.handlers.has(type)) throw invalid(`no handler for job type "${type}"`);
    // Run here at once when this process may and has room: no claim round trip, no signal.
    const mine = !this.stopped && this.runs(type) && this.hasRoom(type);
    const row = await this.db
      .insert(jobs)
      .values({
        id: uuid(),
        projectId: a.projectId,
        type,
        status: 'PREPARED',
        params,
        createdBy: a.email,
        created: createdNow(),
        ...(mine ? { owner: this.me, leaseUntil: Date.now() + this.leaseMs, attempts: 1 } : {}),
      })
      .returning()
      .then(first);
    const job = toJob(row!);
    if (mine) this.startLocal(row!);
    else {
      this.queuedHere.add(job.id);
      this.announce();
    }
    return job;
  }

  /** A job whose result is already known (e.g. a cache hit) is recorded straight as OK. */
  async recordFinished(
    a: ProjectActor,
    type: JobType,
    params: Record<string, unknown>,
    result: unknown,
  ): Promise<Job> {
    const now = nowIso();
    const [row] = await insertFinished(this.db, {
      id: uuid(),
      projectId: a.projectId,
      type,
      params,
      result,
      createdBy: a.email,
      now,
    });
    return toJob(row!);
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
    return this.view(a, job);
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
    const ctrl = this.running.get(id);
    if (ctrl) ctrl.abort(new Error('cancelled'));
    else {
      const ended = await this.finish(
        id,
        'CANCELLED',
        'cancelled before it started',
        undefined,
        and(eq(jobs.status, 'PREPARED'), isNull(jobs.owner)),
      );
      if (!ended) {
        // Claimed by a process (maybe another one): it aborts the job when told, or at its
        // next heartbeat if the signal is lost.
        await this.db
          .update(jobs)
          .set({ cancelRequested: true })
          .where(and(eq(jobs.id, id), inArray(jobs.status, ACTIVE)));
        await storeOf(this.db).signals.notify(CH_CANCEL, id);
      }
    }
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

  /** Resolves when the job reaches a final status, in any process (engine waits, tests). */
  async waitFor(id: string, timeoutMs = 60_000): Promise<Job> {
    const job = await this.load(id);
    if (!job) return Promise.reject(notFound(`job "${id}" not found`));
    if (FINAL_STATUSES.includes(job.status)) return Promise.resolve(job);
    return new Promise((resolve, reject) => {
      const waiter = (j: Job) => {
        clearTimeout(timer);
        resolve(j);
      };
      const timer = setTimeout(() => {
        const list = (this.waiters.get(id) ?? []).filter((w) => w !== waiter);
        if (list.length) this.waiters.set(id, list);
        else this.waiters.delete(id);
        this.load(id).then(
          (j) => reject(new Error(`job ${id} still ${j?.status} after ${timeoutMs} ms`)),
          reject,
        );
      }, timeoutMs);
      const list = this.waiters.get(id) ?? [];
      list.push(waiter);
      this.waiters.set(id, list);
    });
  }

  /**
   * Stops taking work; running jobs of this process end CANCELLED once they stop. Queued jobs
   * end CANCELLED on SQLite (no other process will run them) and stay queued on PostgreSQL.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    for (const u of this.unlisten.splice(0)) u();
    if (!this.shared) {
      // Only those queued here: a CLI command's engine on the same directory stops too.
      for (const id of this.queuedHere)
        await this.finish(
          id,
          'CANCELLED',
          'server stopping before the job started',
          undefined,
          and(eq(jobs.status, 'PREPARED'), isNull(jobs.owner)),
        );
    }
    const ids = [...this.running.keys()];
    for (const ctrl of this.running.values()) ctrl.abort(new Error('server stopping'));
    await Promise.allSettled(ids.map((id) => this.waitFor(id, 10_000)));
  }

  private visible(a: ProjectActor, job: Job): boolean {
    return job.createdBy === a.email || hasLevel(a, 'mdadmin');
  }

  private async load(id: string): Promise<Job | undefined> {
    const [row] = await loadJob(this.db, { id });
    return row ? toJob(row) : undefined;
  }

  // ---- claiming ----

  private poolOf(type: JobType): JobType | 'common' {
    return this.pools.has(type) ? type : 'common';
  }

  private busy(pool: JobType | 'common'): number {
    let n = 0;
    for (const t of this.runningOf.values()) if (this.poolOf(t) === pool) n++;
    return n;
  }

  private hasRoom(type: JobType): boolean {
    return this.busy(this.poolOf(type)) < (this.pools.get(type) ?? this.concurrency);
  }

  /** The types this process would take a queued job of now. */
  private claimable(): JobType[] {
    return [...this.handlers.keys()].filter((t) => this.runs(t) && this.hasRoom(t));
  }

  /** Tells every process (this one too) that work is queued. */
  private announce(): void {
    storeOf(this.db)
      .signals.notify(CH_QUEUED, '')
      .catch((err: unknown) => this.log.warn({ err }, 'job signal not sent; the poll finds it'));
    this.pump();
  }

  /** Claims queued jobs while this process has room; one pass at a time. */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    void (async () => {
      try {
        for (let types = this.claimable(); types.length; types = this.claimable()) {
          const row = await this.claim(types);
          if (!row || this.stopped) break;
          this.startLocal(row);
        }
      } catch (err) {
        this.log.warn({ err }, 'claiming a job failed; retrying');
      } finally {
        this.pumping = false;
        if (this.pumpAgain && !this.stopped) {
          this.pumpAgain = false;
          this.pump();
        }
      }
    })();
  }

  /** Takes the oldest queued job of `types` for this process, or none. */
  private async claim(types: JobType[]): Promise<Row | undefined> {
    const until = Date.now() + this.leaseMs;
    const queued = and(eq(jobs.status, 'PREPARED'), isNull(jobs.owner), inArray(jobs.type, types));
    const store = storeOf(this.db);
    if (store.dialect === 'postgres') {
      // Every process may run this at once: each skips the rows another is taking.
      const got = await store.rows<{ id: string }>(sql`
        UPDATE jobs SET owner = ${this.me}, lease_until = ${until}, attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE ${queued}
                    ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id`);
      if (!got[0]) return undefined;
      return this.db.select().from(jobs).where(eq(jobs.id, got[0].id)).then(first);
    }
    // SQLite: one writer at a time; a read first keeps the idle poll from taking the lock.
    const next = async () =>
      this.db
        .select({ id: jobs.id })
        .from(jobs)
        .where(queued)
        .orderBy(jobs.created, jobs.id)
        .limit(1)
        .then(first);
    if (!(await next())) return undefined;
    return tx(this.db, async () => {
      const candidate = await next();
      if (!candidate) return undefined;
      return this.db
        .update(jobs)
        .set({ owner: this.me, leaseUntil: until, attempts: sql`${jobs.attempts} + 1` })
        .where(and(eq(jobs.id, candidate.id), isNull(jobs.owner)))
        .returning()
        .then(first);
    });
  }

  // ---- running ----

  /** Runs a job this process holds. Synchronously marks it running (a cancel finds it). */
  private startLocal(row: Row): void {
    const job = toJob(row);
    this.queuedHere.delete(job.id);
    const ctrl = new AbortController();
    this.running.set(job.id, ctrl);
    this.runningOf.set(job.id, job.type);
    if (row.cancelRequested) ctrl.abort(new Error('cancelled'));
    void this.execute(job, ctrl);
  }

  /** Only the holder of a job writes its status. */
  private held(id: string): SQL {
    return and(eq(jobs.id, id), eq(jobs.owner, this.me))!;
  }

  private async setStatus(id: string, status: JobStatus, extra: Partial<Row> = {}): Promise<void> {
    const r = await this.db
      .update(jobs)
      .set({ status, ...extra })
      .where(and(this.held(id), inArray(jobs.status, ACTIVE)))
      .returning({ id: jobs.id });
    if (!r.length) throw new Error('this process no longer holds the job (its lease ran out)');
  }

  /**
   * Ends a job if it is still active and `cond` holds (who may end it): stores the status,
   * runs the finish listeners, wakes waiters here and in other processes. Undefined when the
   * job was no longer this caller's to end.
   */
  private async finish(
    id: string,
    status: JobStatus,
    message: string | null,
    result: unknown,
    cond: SQL | undefined,
  ): Promise<Job | undefined> {
    const row = await this.db
      .update(jobs)
      .set({
        status,
        message,
        finished: nowIso(),
        ...(result !== undefined ? { result } : {}),
      })
      .where(and(eq(jobs.id, id), inArray(jobs.status, ACTIVE), cond))
      .returning()
      .then(first);
    if (!row) return undefined;
    this.queuedHere.delete(id);
    const job = toJob(row);
    for (const l of this.finishListeners) {
      try {
        await l(job);
      } catch (err) {
        this.log.error({ err, jobId: id }, 'job finish listener failed');
      }
    }
    this.wake(job);
    if (this.shared)
      await storeOf(this.db)
        .signals.notify(CH_DONE, id)
        .catch((err: unknown) => this.log.warn({ err }, 'job signal not sent; the poll finds it'));
    return job;
  }

  private wake(job: Job): void {
    const list = this.waiters.get(job.id);
    if (!list) return;
    this.waiters.delete(job.id);
    for (const w of list) w(job);
  }

  /** Another process ended a job: wake whoever waits for it here. */
  private doneElsewhere(id: string): void {
    if (!this.waiters.has(id)) return;
    this.load(id).then(
      (job) => {
        if (job && FINAL_STATUSES.includes(job.status)) this.wake(job);
      },
      (err: unknown) => this.log.warn({ err }, 'reading a finished job failed; the poll retries'),
    );
  }

  private async execute(job: Job, ctrl: AbortController): Promise<void> {
    const id = job.id;
    const handler = this.handlers.get(job.type)!;
    const log = this.log.child({ jobId: id, jobType: job.type, project: job.projectId });
    // Progress is advisory: written in the background, a failed write only logged. Writes go
    // one after the other (a pool would let an older step land last), and only the newest
    // waiting step is written.
    let writing = false;
    let next: Record<string, unknown> | undefined;
    const flush = (): void => {
      if (writing || !next) return;
      const p = next;
      next = undefined;
      writing = true;
      this.db
        .update(jobs)
        .set({ progress: p })
        .where(this.held(id))
        .catch((err: unknown) => log.warn({ err }, 'job progress not stored'))
        .finally(() => {
          writing = false;
          flush();
        });
    };
    const ctx: JobContext = {
      job,
      signal: ctrl.signal,
      log,
      progress: (p) => {
        next = p;
        flush();
      },
    };
    const mine = this.held(id);
    try {
      ctrl.signal.throwIfAborted();
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
      await this.finish(id, 'OK', null, result ?? null, mine);
    } catch (err) {
      try {
        const full = diskFullOf(err);
        if (ctrl.signal.aborted)
          await this.finish(id, 'CANCELLED', abortMessage(ctrl.signal), undefined, mine);
        else if (full) {
          // The operator's to fix, not a bug: said plainly, without the stack.
          log.warn({ err }, 'job failed: disk full');
          await this.finish(id, 'ERROR', full.message, undefined, mine);
        } else if (err instanceof JobFailure || (err as { kind?: string } | null)?.kind)
          await this.finish(id, 'ERROR', reasonOf(err), undefined, mine);
        else if (isDatabaseUnavailable(err)) {
          // The metadata database went away mid-job (a restart, a failover): not a bug.
          log.warn({ err: reasonOf(err) }, 'job ended by a lost database connection');
          await this.finish(id, 'ERROR', reasonOf(err), undefined, mine);
        } else {
          log.error({ err }, 'job failed unexpectedly');
          await this.finish(id, 'ERROR', `internal error: ${reasonOf(err)}`, undefined, mine);
        }
      } catch (e) {
        // The metadata is unreachable: the lease runs out and another process ends the job.
        log.error({ err: e }, 'the end of a job could not be stored');
      }
    } finally {
      this.running.delete(id);
      this.runningOf.delete(id);
      this.pump();
    }
  }

  // ---- upkeep ----

  /**
   * Renews the leases of this process's jobs; aborts those it lost (another process ended
   * them after a missed heartbeat) and those a cancel reached without its signal.
   */
  private async heartbeat(): Promise<void> {
    if (!this.running.size) return;
    const held = await this.db
      .update(jobs)
      .set({ leaseUntil: Date.now() + this.leaseMs })
      .where(and(eq(jobs.owner, this.me), inArray(jobs.status, ACTIVE)))
      .returning({ id: jobs.id, cancel: jobs.cancelRequested });
    const byId = new Map(held.map((h) => [h.id, h.cancel]));
    for (const [id, ctrl] of this.running) {
      if (!byId.has(id)) ctrl.abort(new Error('interrupted: this process lost the job'));
      else if (byId.get(id)) ctrl.abort(new Error('cancelled'));
    }
  }

  /** Waits whose job ended in another process while its signal was lost. */
  private async checkWaiters(): Promise<void> {
    const ids = [...this.waiters.keys()];
    if (!ids.length) return;
    const done = await this.db
      .select()
      .from(jobs)
      .where(and(inArray(jobs.id, ids), inArray(jobs.status, FINAL_STATUSES as JobStatus[])));
    for (const r of done) this.wake(toJob(r));
  }

  /**
   * Jobs whose process died (lease ran out): a job never started, or a query, is queued again
   * (a query at most MAX_ATTEMPTS times); anything else ends ERROR "interrupted", its
   * listeners run here, and the dead process's write locks go.
   */
  private async reapExpired(restart = false): Promise<number> {
    const now = Date.now();
    const active = await this.db
      .select({
        id: jobs.id,
        type: jobs.type,
        status: jobs.status,
        owner: jobs.owner,
        leaseUntil: jobs.leaseUntil,
        attempts: jobs.attempts,
      })
      .from(jobs)
      .where(
        and(
          inArray(jobs.status, ACTIVE),
          // Unowned and PREPARED: queued, not dead.
          or(sql`${jobs.owner} IS NOT NULL`, ne(jobs.status, 'PREPARED')),
        ),
      );
    // Dead: the lease ran out; or (at start-up) its process is gone from this host, which
    // need not wait for the lease; or it started before claims existed (an older version).
    const expired = active.filter((j) =>
      j.owner === null
        ? true
        : j.owner !== this.me &&
          ((j.leaseUntil ?? 0) < now || (restart && deadOnThisHost(j.owner))),
    );
    let n = 0;
    const dead = new Set<string>();
    for (const j of expired) {
      const stillDead = j.owner
        ? and(eq(jobs.owner, j.owner), eq(jobs.leaseUntil, j.leaseUntil ?? 0))
        : isNull(jobs.owner);
      const rerun =
        j.status === 'PREPARED' || (RERUN.includes(j.type as JobType) && j.attempts < MAX_ATTEMPTS);
      if (rerun) {
        const back = await this.db
          .update(jobs)
          .set({ status: 'PREPARED', owner: null, leaseUntil: null, started: null })
          .where(and(eq(jobs.id, j.id), inArray(jobs.status, ACTIVE), stillDead))
          .returning({ id: jobs.id });
        if (back.length) {
          n++;
          this.log.warn({ jobId: j.id, owner: j.owner }, 'job of a stopped process queued again');
          this.announce();
        }
        continue;
      }
      const ended = await this.finish(
        j.id,
        'ERROR',
        restart
          ? 'interrupted by restart'
          : 'interrupted: the process running it stopped; nothing it was writing was published',
        undefined,
        stillDead,
      );
      if (ended) {
        n++;
        if (j.owner) dead.add(processOf(j.owner));
        this.log.warn({ jobId: j.id, owner: j.owner }, 'job of a stopped process ended');
      }
    }
    for (const p of dead) await this.onDeadProcess?.(p);
    return n;
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
