// Sliding-window rate limits kept in the metadata DB (table rate_events), so that every server
// process and a restart count the same requests: "at most N per key in the last window".
import { and, asc, eq, gt, lt, sql } from 'drizzle-orm';
import { type Db, first, tx, tablesOf } from '../db/index.js';

export interface RateRule {
  scope: string;
  key: string;
  max: number;
  windowMs: number;
}

export type RateDecision = { ok: true } | { ok: false; scope: string; retryAfterSeconds: number };

/**
 * Counts one request against every rule, or none when any rule is already at its maximum
 * (refused requests are not counted, so Retry-After stays true). One IMMEDIATE transaction:
 * two processes cannot both take the last slot.
 */
export async function takeRate(db: Db, rules: RateRule[]): Promise<RateDecision> {
  const { rateEvents } = tablesOf(db);
  return tx(
    db,
    async (): Promise<RateDecision> => {
      const now = Date.now();
      for (const r of rules) {
        const since = new Date(now - r.windowMs).toISOString();
        // Events out of the window can never count again: drop them as new ones arrive (per
        // scope, since another scope may have a longer window).
        await db
          .delete(rateEvents)
          .where(and(eq(rateEvents.scope, r.scope), lt(rateEvents.at, since)));
        const where = and(
          eq(rateEvents.scope, r.scope),
          eq(rateEvents.key, r.key),
          gt(rateEvents.at, since),
        );
        const n =
          (
            await db
              .select({ n: sql<number>`count(*)`.mapWith(Number) })
              .from(rateEvents)
              .where(where)
              .then(first)
          )?.n ?? 0;
        if (n >= r.max) {
          // The slot frees when the oldest event still in the window leaves it.
          const oldest = await db
            .select({ at: rateEvents.at })
            .from(rateEvents)
            .where(where)
            .orderBy(asc(rateEvents.at))
            .limit(1)
            .then(first);
          const frees = (oldest ? Date.parse(oldest.at) : now) + r.windowMs;
          return {
            ok: false,
            scope: r.scope,
            retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)),
          };
        }
      }
      const at = new Date(now).toISOString();
      await db.insert(rateEvents).values(rules.map((r) => ({ scope: r.scope, key: r.key, at })));
      return { ok: true };
    },
    // Counted under the rules' locks: two processes cannot both take the last slot.
    { lock: rules.map((r) => `rate:${r.scope}:${r.key}`) },
  );
}
