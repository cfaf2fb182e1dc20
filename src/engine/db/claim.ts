// How each store takes one row for its caller (`Store.claimOne`: a queued job, say) when
// others may be reaching for the same rows at once.
import { and, eq, sql } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { ClaimSpec, Db } from './store.js';

type Claimed<T extends SQLiteTable> = Promise<T['$inferSelect'] | undefined>;

/** PostgreSQL: every process may claim at once; each skips the rows another is taking. */
export async function claimSkipLocked<T extends SQLiteTable>(db: Db, s: ClaimSpec<T>): Claimed<T> {
  const next = sql`(SELECT ${s.key} FROM ${s.table} WHERE ${s.where}
    ORDER BY ${sql.join(s.orderBy, sql`, `)} LIMIT 1 FOR UPDATE SKIP LOCKED)`;
  const rows = (await db
    .update(s.table as SQLiteTable)
    .set(s.set)
    .where(eq(s.key, next))
    .returning()) as T['$inferSelect'][];
  return rows[0];
}

/**
 * SQLite: one writer at a time, so a claim in a transaction cannot race; a read first keeps
 * an idle poll from taking the writer's lock.
 */
export async function claimSingleWriter<T extends SQLiteTable>(
  db: Db,
  tx: <R>(fn: () => Promise<R>) => Promise<R>,
  s: ClaimSpec<T>,
): Claimed<T> {
  const next = async () =>
    (
      await db
        .select({ key: s.key })
        .from(s.table as SQLiteTable)
        .where(s.where)
        .orderBy(...s.orderBy)
        .limit(1)
    )[0];
  if (!(await next())) return undefined;
  return tx(async () => {
    const candidate = await next();
    if (!candidate) return undefined;
    const rows = (await db
      .update(s.table as SQLiteTable)
      .set(s.set)
      .where(and(eq(s.key, candidate.key), s.where))
      .returning()) as T['$inferSelect'][];
    return rows[0];
  });
}
