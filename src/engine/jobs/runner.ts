// The runner: takes jobs off the queue while this process has room (a pool per type or the
// common one), runs their handlers, and owns every status change (PREPARED → EXPANDING →
// RUNNING → OK | ERROR | CANCELLED). It keeps the leases of its jobs, ends or re-queues those
// of processes that died, and wakes whoever waits for a job, here or (by signal) elsewhere.
// A lease that runs out means its process died: a query (or a job never started) is queued
// again, anything else ends ERROR "interrupted" (its writes publish atomically, so nothing
// half-written remains). What members may do with jobs is jobs.ts.
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { diskFullOf } from '../disk-full.js';
import { notFound } from '../errors.js';
import { nowIso, randomId, uuid } from '../ids.js';
import { deadOnThisHost, PROCESS_ID, processOf } from '../process-id.js';
import { JobQueue, type EndIf } from './queue.js';
import {
  FINAL_STATUSES,
  JobFailure,
  toJob,
  type Job,
  type JobContext,
  type JobHandler,
  type JobRow,
  type JobRunnerOptions,
  type JobStatus,
  type JobType,
  type RowFilteredView,
} from './types.js';

/** Types run again when their process died mid-run: they only read (a query). */
const RERUN: readonly JobType[] = ['report'];
const MAX_ATTEMPTS = 2;

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

export class JobRunnerCore {
  protected readonly queue: JobQueue;
  protected handlers = new Map<JobType, JobHandler>();
  protected running = new Map<string, AbortController>();
  /** Types with a pool of their own (AI answers wait on a provider, not on this machine). */
  private pools = new Map<JobType, number>();
  /** Jobs this process holds (claimed, starting or running), by type. */
  private runningOf = new Map<string, JobType>();
  private waiters = new Map<string, Array<(j: Job) => void>>();
  /**
   * Jobs of this process that ended but whose run has not wound up yet (still in `running`):
   * a waiter arriving then gets the job at once instead of waiting for a wake already past.
   */
  private endedHere = new Map<string, Job>();
  protected stopped = false;
  private started = false;
  private pumping = false;
  private pumpAgain = false;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: Array<() => void> = [];
  /** This runner in claims: the process, and which runner of it (a test restarts in place). */
  private readonly me = `${PROCESS_ID}:${randomId(4)}`;
  /**
   * Jobs submitted here that waited for room, with their types (SQLite: cancelled when this
   * runner stops; a new job does not run ahead of them).
   */
  private queuedHere = new Map<string, JobType>();
  private readonly concurrency: number;
  private readonly runs: (type: JobType) => boolean;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly onDeadProcess?: (processId: string) => Promise<void>;
  private finishListeners: Array<(job: Job) => void | Promise<void>> = [];
  /** Types whose result only the member who started the job may read (AI answers). */
  protected privateResults = new Set<JobType>();
  /** Per type: the job as a reader with a row-level filter may see it (see register). */
  protected rowFiltered = new Map<JobType, RowFilteredView>();

  constructor(
    db: Db,
    protected readonly log: Logger,
    opts: JobRunnerOptions | number,
  ) {
    const o = typeof opts === 'number' ? { concurrency: opts } : opts;
    this.queue = new JobQueue(db, this.me);
    this.concurrency = o.concurrency;
    this.runs = o.runs ?? (() => true);
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? Math.min(1_000, this.leaseMs / 3);
    this.onDeadProcess = o.onDeadProcess;
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

  /**
   * At start-up. On a store one process uses (SQLite) a job left unfinished was the last
   * process's and cannot be resumed safely: end it. On a shared one other processes may be
   * running theirs: only jobs whose lease ran out are judged (as the heartbeat does from then
   * on).
   */
  async recoverInterrupted(): Promise<number> {
    if (this.queue.shared) return this.reapExpired(true);
    return this.queue.endAllActive('interrupted by restart');
  }

  /**
   * Starts taking queued work of other processes and watching leases, cancels and waits
   * (after `recoverInterrupted`). Jobs this process submits run without it.
   */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    this.unlisten.push(
      ...(await this.queue.listen({
        queued: () => this.pump(),
        done: (id) => this.doneElsewhere(id),
        cancel: (id) => this.running.get(id)?.abort(new Error('cancelled')),
      })),
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

  /** Queues a job, or runs it here at once when this process may and has room. */
  protected async enqueue(
    projectId: string,
    createdBy: string,
    type: JobType,
    params: Record<string, unknown>,
  ): Promise<Job> {
    // Run here at once: no claim round trip, no signal; a job without a planning phase is
    // stored RUNNING straight away (one write, not two, before a query starts). Not while a
    // job queued here waits for the same room: between a job's end and the claim of the next
    // one, a new job would take the slot ahead of it (and one that holds its slot long would
    // keep the queued one waiting).
    const mine = !this.stopped && this.runs(type) && this.hasRoom(type) && !this.queuedFor(type);
    const direct = mine && !this.handlers.get(type)?.expand;
    const row = await this.queue.insert(
      { id: uuid(), projectId, type, params, createdBy, created: createdNow() },
      mine ? Date.now() + this.leaseMs : undefined,
      direct,
    );
    const job = toJob(row!);
    if (mine) this.startLocal(row!);
    else {
      this.queuedHere.set(job.id, type);
      this.announce();
    }
    return job;
  }

  /**
   * Cancels a job. A job not started yet ends CANCELLED at once; a running one is signalled
   * (in whichever process runs it) and ends CANCELLED when its handler stops.
   */
  protected async cancelById(id: string): Promise<void> {
    const ctrl = this.running.get(id);
    if (ctrl) ctrl.abort(new Error('cancelled'));
    else {
      const ended = await this.finish(
        id,
        'CANCELLED',
        'cancelled before it started',
        undefined,
        'unclaimed',
      );
      if (!ended) {
        // Claimed by a process (maybe another one): it aborts the job when told, or at its
        // next heartbeat if the signal is lost.
        await this.queue.requestCancel(id);
        await this.queue.announceCancel(id);
      }
    }
  }

  /** A job as stored, without rights (engine-internal: recovery, listeners). */
  peek(id: string): Promise<Job | undefined> {
    return this.load(id);
  }

  /** Resolves when the job reaches a final status, in any process (engine waits, tests). */
  async waitFor(id: string, timeoutMs = 60_000): Promise<Job> {
    // A job this process runs is not read back: its end wakes the waiter with the row stored.
    const ended = this.endedHere.get(id);
    if (ended) return ended;
    if (!this.running.has(id)) {
      const job = await this.load(id);
      if (!job) return Promise.reject(notFound(`job "${id}" not found`));
      if (FINAL_STATUSES.includes(job.status)) return Promise.resolve(job);
    }
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
   * end CANCELLED on a store one process uses (no other process will run them) and stay
   * queued on a shared one.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.splice(0)) clearInterval(t);
    for (const u of this.unlisten.splice(0)) u();
    if (!this.queue.shared) {
      // Only those queued here: a CLI command's engine on the same directory stops too.
      for (const id of [...this.queuedHere.keys()])
        await this.finish(
          id,
          'CANCELLED',
          'server stopping before the job started',
          undefined,
          'unclaimed',
        );
    }
    const ids = [...this.running.keys()];
    for (const ctrl of this.running.values()) ctrl.abort(new Error('server stopping'));
    await Promise.allSettled(ids.map((id) => this.waitFor(id, 10_000)));
  }

  protected async load(id: string): Promise<Job | undefined> {
    const row = await this.queue.load(id);
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

  /** Whether a job queued here waits for the room a job of `type` would take. */
  private queuedFor(type: JobType): boolean {
    const pool = this.poolOf(type);
    for (const t of this.queuedHere.values())
      if (this.runs(t) && this.poolOf(t) === pool) return true;
    return false;
  }

  /** The types this process would take a queued job of now. */
  private claimable(): JobType[] {
    return [...this.handlers.keys()].filter((t) => this.runs(t) && this.hasRoom(t));
  }

  /** Tells every process (this one too) that work is queued. */
  private announce(): void {
    this.queue
      .announceQueued()
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
          const row = await this.queue.claim(types, Date.now() + this.leaseMs);
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

  // ---- running ----

  /** Runs a job this process holds. Synchronously marks it running (a cancel finds it). */
  private startLocal(row: JobRow): void {
    const job = toJob(row);
    this.queuedHere.delete(job.id);
    this.endedHere.delete(job.id); // run again after its process died (a query)
    const ctrl = new AbortController();
    this.running.set(job.id, ctrl);
    this.runningOf.set(job.id, job.type);
    if (row.cancelRequested) ctrl.abort(new Error('cancelled'));
    void this.execute(job, ctrl);
  }

  private async setStatus(
    id: string,
    status: JobStatus,
    extra: Partial<JobRow> = {},
  ): Promise<void> {
    if (!(await this.queue.setStatus(id, status, extra)))
      throw new Error('this process no longer holds the job (its lease ran out)');
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
    cond: EndIf,
  ): Promise<Job | undefined> {
    const row = await this.queue.end(id, status, message, result, cond);
    if (!row) return undefined;
    this.queuedHere.delete(id);
    const job = toJob(row);
    if (this.running.has(id)) this.endedHere.set(id, job);
    for (const l of this.finishListeners) {
      try {
        await l(job);
      } catch (err) {
        this.log.error({ err, jobId: id }, 'job finish listener failed');
      }
    }
    this.wake(job);
    if (this.queue.shared)
      await this.queue
        .announceDone(id)
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
    this.queuedHere.delete(id);
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
      this.queue
        .progress(id, p)
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
    try {
      ctrl.signal.throwIfAborted();
      // A job without a planning phase goes straight to RUNNING: one status write, not two
      // (none when it was stored RUNNING as this process submitted it).
      if (job.status === 'RUNNING') {
        // stored RUNNING at submission
      } else if (handler.expand) {
        await this.setStatus(id, 'EXPANDING', { started: nowIso() });
        await handler.expand(ctx);
        ctrl.signal.throwIfAborted();
        await this.setStatus(id, 'RUNNING');
      } else await this.setStatus(id, 'RUNNING', { started: nowIso() });
      const result = await handler.run(ctx);
      // A handler that finished did its work (a load may have committed as the cancel came):
      // the job is OK. Handlers honour a cancel by throwing.
      await this.finish(id, 'OK', null, result ?? null, 'mine');
    } catch (err) {
      try {
        const full = diskFullOf(err);
        if (ctrl.signal.aborted)
          await this.finish(id, 'CANCELLED', abortMessage(ctrl.signal), undefined, 'mine');
        else if (full) {
          // The operator's to fix, not a bug: said plainly, without the stack.
          log.warn({ err }, 'job failed: disk full');
          await this.finish(id, 'ERROR', full.message, undefined, 'mine');
        } else if (err instanceof JobFailure || (err as { kind?: string } | null)?.kind)
          await this.finish(id, 'ERROR', reasonOf(err), undefined, 'mine');
        else if (isDatabaseUnavailable(err)) {
          // The metadata database went away mid-job (a restart, a failover): not a bug.
          log.warn({ err: reasonOf(err) }, 'job ended by a lost database connection');
          await this.finish(id, 'ERROR', reasonOf(err), undefined, 'mine');
        } else {
          log.error({ err }, 'job failed unexpectedly');
          await this.finish(id, 'ERROR', `internal error: ${reasonOf(err)}`, undefined, 'mine');
        }
      } catch (e) {
        // The metadata is unreachable: the lease runs out and another process ends the job.
        log.error({ err: e }, 'the end of a job could not be stored');
      }
    } finally {
      this.running.delete(id);
      this.endedHere.delete(id);
      this.runningOf.delete(id);
      // After the waiters' turn: the claim is a store round trip they need not wait behind.
      setImmediate(() => this.pump());
    }
  }

  // ---- upkeep ----

  /**
   * Renews the leases of this process's jobs; aborts those it lost (another process ended
   * them after a missed heartbeat) and those a cancel reached without its signal.
   */
  private async heartbeat(): Promise<void> {
    if (!this.running.size) return;
    const held = await this.queue.renewLeases(Date.now() + this.leaseMs);
    const byId = new Map(held.map((h) => [h.id, h.cancel]));
    for (const [id, ctrl] of this.running) {
      if (!byId.has(id)) ctrl.abort(new Error('interrupted: this process lost the job'));
      else if (byId.get(id)) ctrl.abort(new Error('cancelled'));
    }
  }

  /**
   * Waits whose job ended in another process while its signal was lost; and jobs queued here
   * that another process ran to the end (they no longer hold new jobs back).
   */
  private async checkWaiters(): Promise<void> {
    const ids = [...new Set([...this.waiters.keys(), ...this.queuedHere.keys()])];
    if (!ids.length) return;
    for (const r of await this.queue.finishedAmong(ids)) {
      this.queuedHere.delete(r.id);
      this.wake(toJob(r));
    }
  }

  /**
   * Jobs whose process died (lease ran out): a job never started, or a query, is queued again
   * (a query at most MAX_ATTEMPTS times); anything else ends ERROR "interrupted", its
   * listeners run here, and the dead process's write locks go.
   */
  private async reapExpired(restart = false): Promise<number> {
    const now = Date.now();
    const active = await this.queue.claimed();
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
      const rerun =
        j.status === 'PREPARED' || (RERUN.includes(j.type as JobType) && j.attempts < MAX_ATTEMPTS);
      if (rerun) {
        if (await this.queue.requeue(j)) {
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
        { owner: j.owner, leaseUntil: j.leaseUntil },
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
