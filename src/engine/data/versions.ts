// The metadata of immutable dataset versions and the projects' write locks (SCALE.md, "Data").
// Every state change is ONE statement, so it is atomic on SQLite and PostgreSQL alike without
// an interactive transaction: publishing flips every version of a job at once, a lock is taken
// (or taken over once its lease ran out) by an upsert that only wins when it may.
import { and, eq, inArray, lt, notInArray, or, sql } from 'drizzle-orm';
import { storeOf, type Db } from '../db/index.js';
import { datasetVersions as v, projectWriteLocks as locks } from '../db/schema.js';
import { nowIso } from '../ids.js';

export interface DatasetVersion {
  id: string;
  cluster: string;
  /** Relative to the project's directory. */
  file: string;
  rows: number;
}

/** A project's version file for `cluster` (relative to the project's directory). */
export const versionFile = (cluster: string, id: string): string =>
  `datasets/${cluster}/${id}.duckdb`;

export class VersionStore {
  constructor(private readonly db: Db) {}

  /** The versions queries read now, one per loaded dataset. */
  async current(projectId: string): Promise<DatasetVersion[]> {
    return this.db
      .select({ id: v.id, cluster: v.cluster, file: v.file, rows: v.rows })
      .from(v)
      .where(and(eq(v.projectId, projectId), eq(v.state, 'current')));
  }

  /** Records written, not yet visible versions (removed by `collect` if never published). */
  async addPending(projectId: string, versions: DatasetVersion[]): Promise<void> {
    if (!versions.length) return;
    const created = nowIso();
    await this.db
      .insert(v)
      .values(versions.map((x) => ({ ...x, projectId, created, state: 'pending' as const })));
  }

  /**
   * Makes `ids` (pending versions of distinct clusters) the current ones and supersedes the
   * versions they replace, in one statement: every dataset of a job or none.
   */
  async publish(projectId: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    const now = nowIso();
    const mine = inArray(v.id, ids);
    const clusters = this.db
      .select({ c: v.cluster })
      .from(v)
      .where(and(eq(v.projectId, projectId), mine));
    const changed = await this.db
      .update(v)
      .set({
        state: sql`CASE WHEN ${mine} THEN 'current' ELSE 'old' END`,
        published: sql`CASE WHEN ${mine} THEN ${now} ELSE ${v.published} END`,
        superseded: sql`CASE WHEN ${mine} THEN NULL ELSE ${now} END`,
      })
      .where(
        and(
          eq(v.projectId, projectId),
          or(
            and(mine, eq(v.state, 'pending')),
            and(eq(v.state, 'current'), inArray(v.cluster, clusters)),
          ),
        ),
      )
      .returning({ id: v.id, state: v.state });
    const published = changed.filter((r) => r.state === 'current').length;
    if (published !== ids.length)
      throw new Error(`publishing ${ids.length} dataset versions found ${published} pending`);
  }

  /** Notes that this process read `ids` now (what keeps superseded files from collection). */
  async touch(ids: string[]): Promise<void> {
    if (ids.length) await this.db.update(v).set({ lastRead: nowIso() }).where(inArray(v.id, ids));
  }

  /** Superseded versions unread since `before` (ISO), and pending ones of unlocked projects. */
  async collectable(before: string): Promise<(DatasetVersion & { projectId: string })[]> {
    const cols = {
      id: v.id,
      cluster: v.cluster,
      file: v.file,
      rows: v.rows,
      projectId: v.projectId,
    };
    const old = await this.db
      .select(cols)
      .from(v)
      .where(
        and(
          eq(v.state, 'old'),
          lt(v.superseded, before),
          or(sql`${v.lastRead} IS NULL`, lt(v.lastRead, before)),
        ),
      );
    const held = this.db.select({ p: locks.projectId }).from(locks);
    const abandoned = await this.db
      .select(cols)
      .from(v)
      .where(and(eq(v.state, 'pending'), notInArray(v.projectId, held)));
    return [...old, ...abandoned];
  }

  /** Forgets versions whose files are gone. */
  async forget(ids: string[]): Promise<void> {
    if (ids.length) await this.db.delete(v).where(inArray(v.id, ids));
  }

  /** Every file the metadata still names in a project (published or being published). */
  async files(projectId: string): Promise<Set<string>> {
    const rows = await this.db.select({ f: v.file }).from(v).where(eq(v.projectId, projectId));
    return new Set(rows.map((r) => r.f));
  }

  // ---- the project's write lock ----

  /**
   * Runs `fn` when the project's writers that asked before, in any process, are done: a
   * queue in the order they asked (cluster-wide on PostgreSQL). `signal` stops the wait;
   * `fn`'s `held` aborts if the turn is lost (the database ended the lock's connection).
   */
  inTurn<T>(
    projectId: string,
    signal: AbortSignal | undefined,
    fn: (held: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return storeOf(this.db).exclusive(`ursa:write:${projectId}`, fn, { signal });
  }

  /** Takes the lock for `holder` if free, expired or already its own; true when taken. */
  async tryLock(projectId: string, holder: string, leaseMs: number): Promise<boolean> {
    const now = nowIso();
    const until = new Date(Date.now() + leaseMs).toISOString();
    const rows = await this.db
      .insert(locks)
      .values({ projectId, holder, leaseUntil: until })
      .onConflictDoUpdate({
        target: locks.projectId,
        set: { holder, leaseUntil: until },
        setWhere: or(lt(locks.leaseUntil, now), eq(locks.holder, holder)),
      })
      .returning({ holder: locks.holder });
    return rows[0]?.holder === holder;
  }

  /** Extends a held lease; false when the lock was lost (taken over after it ran out). */
  async renew(projectId: string, holder: string, leaseMs: number): Promise<boolean> {
    const until = new Date(Date.now() + leaseMs).toISOString();
    const rows = await this.db
      .update(locks)
      .set({ leaseUntil: until })
      .where(and(eq(locks.projectId, projectId), eq(locks.holder, holder)))
      .returning({ p: locks.projectId });
    return rows.length === 1;
  }

  async unlock(projectId: string, holder: string): Promise<void> {
    await this.db
      .delete(locks)
      .where(and(eq(locks.projectId, projectId), eq(locks.holder, holder)));
  }

  /** Releases the locks a process held (it died: its job was ended by another process). */
  async releaseProcess(processId: string): Promise<number> {
    const rows = await this.db
      .delete(locks)
      .where(sql`${locks.holder} LIKE ${`${processId.replace(/[\\%_]/g, '\\$&')}:%`} ESCAPE '\\'`)
      .returning({ p: locks.projectId });
    return rows.length;
  }

  /** Every lock's holder (start-up: the locks of dead processes of this host are released). */
  async lockHolders(): Promise<{ projectId: string; holder: string }[]> {
    return this.db.select({ projectId: locks.projectId, holder: locks.holder }).from(locks);
  }

  /** Whether anyone holds a live lease on the project's data. */
  async locked(projectId: string): Promise<boolean> {
    const rows = await this.db
      .select({ until: locks.leaseUntil })
      .from(locks)
      .where(eq(locks.projectId, projectId))
      .limit(1);
    return !!rows[0] && rows[0].until >= nowIso();
  }
}
