// The job row is the queue (SCALE.md, "Jobs across processes"): every statement on the jobs
// table and every signal about jobs goes through here. A process claims a queued row through
// its store (`claimOne`: PostgreSQL's `FOR UPDATE SKIP LOCKED`, SQLite's single writer) and
// holds it with a lease its heartbeat renews; only the holder writes a job's status.
import { and, desc, eq, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import { type Db, first, prepared, storeOf, tablesOf } from '../db/index.js';
import { nowIso } from '../ids.js';
import { ACTIVE, FINAL_STATUSES, type JobRow, type JobStatus, type JobType } from './types.js';

const CH_QUEUED = 'ursa_job_queued';
const CH_DONE = 'ursa_job_done';
const CH_CANCEL = 'ursa_job_cancel';

// Job polls and cached answers are on the request path: built once (see prepared()).
const loadJob = prepared('job', (db) => {
  const { jobs } = tablesOf(db);
  return db
    .select()
    .from(jobs)
    .where(eq(jobs.id, sql.placeholder('id')))
    .limit(1);
});
const insertFinished = prepared('job_finished', (db) => {
  const { jobs } = tablesOf(db);
  return db
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
    .returning();
});

/**
 * Who may end a job: its holder (`mine`), anyone while nobody claimed it (`unclaimed`), or
 * the reaper of a dead claim, which must still be the one it judged dead.
 */
export type EndIf = 'mine' | 'unclaimed' | { owner: string | null; leaseUntil: number | null };

/** A job the reaper looks at: active, and claimed or past queued. */
export type ClaimedJob = Pick<
  JobRow,
  'id' | 'type' | 'status' | 'owner' | 'leaseUntil' | 'attempts'
>;

export class JobQueue {
  /** `me`: this runner in claims (the process, and which runner of it). */
  constructor(
    private readonly db: Db,
    private readonly me: string,
  ) {}

  /** Whether other processes share the queue (they claim and signal too). */
  get shared(): boolean {
    return storeOf(this.db).shared;
  }

  private get t() {
    return tablesOf(this.db).jobs;
  }

  load(id: string): Promise<JobRow | undefined> {
    return loadJob(this.db, { id }).then(first);
  }

  /**
   * A new job, queued, or already held by this runner (`lease`: run here at once; `running`:
   * and stored RUNNING from the start, saving the status write of a job without a planning
   * phase).
   */
  insert(
    values: Pick<JobRow, 'id' | 'projectId' | 'type' | 'params' | 'createdBy' | 'created'>,
    lease: number | undefined,
    running = false,
  ): Promise<JobRow | undefined> {
    return this.db
      .insert(this.t)
      .values({
        ...values,
        status: running && lease !== undefined ? 'RUNNING' : 'PREPARED',
        ...(lease !== undefined ? { owner: this.me, leaseUntil: lease, attempts: 1 } : {}),
        ...(running && lease !== undefined ? { started: values.created } : {}),
      })
      .returning()
      .then(first);
  }

  /** A job whose result is already known, recorded straight as OK. */
  async insertFinished(values: {
    id: string;
    projectId: string;
    type: JobType;
    params: Record<string, unknown>;
    result: unknown;
    createdBy: string;
    now: string;
  }): Promise<JobRow> {
    const [row] = await insertFinished(this.db, values);
    return row!;
  }

  /** A page of a project's jobs, newest first, and how many match. */
  async list(q: {
    projectId: string;
    types?: JobType[];
    statuses?: JobStatus[];
    createdBy?: string;
    limit: number;
    offset: number;
  }): Promise<{ rows: JobRow[]; total: number }> {
    const jobs = this.t;
    const where = and(
      eq(jobs.projectId, q.projectId),
      q.types ? inArray(jobs.type, q.types) : undefined,
      q.statuses ? inArray(jobs.status, q.statuses) : undefined,
      q.createdBy !== undefined ? eq(jobs.createdBy, q.createdBy) : undefined,
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
    return { rows, total };
  }

  /** Takes the oldest queued job of `types` for this runner, or none. */
  claim(types: JobType[], leaseUntil: number): Promise<JobRow | undefined> {
    const jobs = this.t;
    // The store makes it one process's: others claiming at the same moment get other jobs.
    return storeOf(this.db).claimOne({
      table: jobs,
      key: jobs.id,
      where: and(eq(jobs.status, 'PREPARED'), isNull(jobs.owner), inArray(jobs.type, types))!,
      orderBy: [jobs.created, jobs.id],
      set: { owner: this.me, leaseUntil, attempts: sql`${jobs.attempts} + 1` },
    });
  }

  /** Only the holder of a job writes its status. */
  private held(id: string): SQL {
    return and(eq(this.t.id, id), eq(this.t.owner, this.me))!;
  }

  /** Sets the status of a job this runner holds; false when it no longer does. */
  async setStatus(id: string, status: JobStatus, extra: Partial<JobRow> = {}): Promise<boolean> {
    const r = await this.db
      .update(this.t)
      .set({ status, ...extra })
      .where(and(this.held(id), inArray(this.t.status, ACTIVE)))
      .returning({ id: this.t.id });
    return r.length > 0;
  }

  /** Stores a held job's progress (advisory). */
  async progress(id: string, p: Record<string, unknown>): Promise<void> {
    await this.db.update(this.t).set({ progress: p }).where(this.held(id));
  }

  /** Ends a job still active when `cond` allows; its row, or none when it was not to end. */
  end(
    id: string,
    status: JobStatus,
    message: string | null,
    result: unknown,
    cond: EndIf,
  ): Promise<JobRow | undefined> {
    const jobs = this.t;
    const allowed =
      cond === 'mine'
        ? eq(jobs.owner, this.me)
        : cond === 'unclaimed'
          ? and(eq(jobs.status, 'PREPARED'), isNull(jobs.owner))
          : this.stillDead(cond);
    return this.db
      .update(jobs)
      .set({
        status,
        message,
        finished: nowIso(),
        ...(result !== undefined ? { result } : {}),
      })
      .where(and(eq(jobs.id, id), inArray(jobs.status, ACTIVE), allowed))
      .returning()
      .then(first);
  }

  private stillDead(j: { owner: string | null; leaseUntil: number | null }): SQL | undefined {
    return j.owner
      ? and(eq(this.t.owner, j.owner), eq(this.t.leaseUntil, j.leaseUntil ?? 0))
      : isNull(this.t.owner);
  }

  /** Marks a claimed job to be cancelled (its holder sees it at its next heartbeat). */
  async requestCancel(id: string): Promise<void> {
    await this.db
      .update(this.t)
      .set({ cancelRequested: true })
      .where(and(eq(this.t.id, id), inArray(this.t.status, ACTIVE)));
  }

  /** Renews the leases of this runner's jobs: those it still holds, and whether to cancel. */
  renewLeases(leaseUntil: number): Promise<Array<{ id: string; cancel: boolean }>> {
    return this.db
      .update(this.t)
      .set({ leaseUntil })
      .where(and(eq(this.t.owner, this.me), inArray(this.t.status, ACTIVE)))
      .returning({ id: this.t.id, cancel: this.t.cancelRequested });
  }

  /** Those of `ids` that reached a final status. */
  finishedAmong(ids: string[]): Promise<JobRow[]> {
    return this.db
      .select()
      .from(this.t)
      .where(and(inArray(this.t.id, ids), inArray(this.t.status, FINAL_STATUSES as JobStatus[])));
  }

  /** Active jobs that are not simply queued: claimed, or past PREPARED. */
  claimed(): Promise<ClaimedJob[]> {
    const jobs = this.t;
    return this.db
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
  }

  /** Queues a dead claim's job again; false when it was no longer the dead claim's. */
  async requeue(j: ClaimedJob): Promise<boolean> {
    const back = await this.db
      .update(this.t)
      .set({ status: 'PREPARED', owner: null, leaseUntil: null, started: null })
      .where(and(eq(this.t.id, j.id), inArray(this.t.status, ACTIVE), this.stillDead(j)))
      .returning({ id: this.t.id });
    return back.length > 0;
  }

  /** Ends every active job (one process, starting: whatever ran was the last process's). */
  async endAllActive(message: string): Promise<number> {
    const r = await this.db
      .update(this.t)
      .set({ status: 'ERROR', message, finished: nowIso() })
      .where(inArray(this.t.status, ACTIVE))
      .returning({ id: this.t.id });
    return r.length;
  }

  // ---- signals between the processes sharing the queue ----

  /** Hears new work, ends and cancels announced by any process; returns the ways to stop. */
  async listen(on: {
    queued: () => void;
    done: (id: string) => void;
    cancel: (id: string) => void;
  }): Promise<Array<() => void>> {
    const { signals } = storeOf(this.db);
    return [
      await signals.listen(CH_QUEUED, () => on.queued()),
      await signals.listen(CH_DONE, on.done),
      await signals.listen(CH_CANCEL, on.cancel),
    ];
  }

  /** Tells every process (this one too) that work is queued. */
  announceQueued(): Promise<void> {
    return storeOf(this.db).signals.notify(CH_QUEUED, '');
  }

  announceDone(id: string): Promise<void> {
    return storeOf(this.db).signals.notify(CH_DONE, id);
  }

  announceCancel(id: string): Promise<void> {
    return storeOf(this.db).signals.notify(CH_CANCEL, id);
  }
}
