// Limits on guessing secrets (passwords, WebDAV tokens) and on open registration, counted by
// the limits' counters (src/engine/limits/counters.ts: the metadata database), so that every
// server process shares them and a restart does not reset them.
//
// Guesses are counted per account and address and per address alone, never per account
// alone: failures from an attacker's address must not lock the real user out from theirs.
import type { Db } from '../db/index.js';
import {
  addressKey,
  bucketOf,
  takeQuota,
  withCounters,
  type Counter,
  type Counters,
  type QuotaDecision,
  type QuotaRule,
} from '../limits/counters.js';

/** Refuses for a while after `limit` failures, the wait doubling with each failure after. */
export interface BackoffRule {
  name: string;
  limit: number;
  /** The count starts again after this long without failures (or blocks). */
  quietMs: number;
  blockMs: number;
  maxBlockMs: number;
}

const MINUTE = 60_000;

/** Guesses of one account's secret from one address. */
export const ACCOUNT_AT_ADDRESS: BackoffRule = {
  name: 'account-address',
  limit: 10,
  quietMs: 15 * MINUTE,
  blockMs: MINUTE,
  maxBlockMs: 60 * MINUTE,
};

/** Guesses of any secret from one address (spraying many accounts). */
export const ADDRESS: BackoffRule = {
  name: 'address',
  limit: 50,
  quietMs: 15 * MINUTE,
  blockMs: MINUTE,
  maxBlockMs: 60 * MINUTE,
};

/** One check of a secret, counted as failed until `succeeded()` says otherwise. */
export interface Guess {
  /** Seconds to wait when the guess is refused without being checked; null: go ahead. */
  retryAfter: number | null;
  succeeded(): Promise<void>;
}

export class Throttle {
  constructor(private readonly db: Db) {}

  /**
   * Call before checking a secret of `account` within `scope` (e.g. "login", "webdav:<project>")
   * sent from `address`. The guess is counted as failed at once, so guesses sent in parallel
   * are all counted; `succeeded()` takes it back (and forgets this account's failures from
   * that address). A refused guess is not counted and must not be checked.
   */
  async guess(scope: string, account: string, address: string): Promise<Guess> {
    const pair = bucketOf(
      ACCOUNT_AT_ADDRESS,
      `${scope}\0${account.toLowerCase()}\0${addressKey(address)}`,
    );
    const addr = bucketOf(ADDRESS, addressKey(address));
    const outcome = await withCounters(this.db, [pair, addr], async (counters, now) => {
      const wait = Math.max(0, ...[pair, addr].map((k) => blockedFor(counters.get(k), now)));
      if (wait > 0) return { retryAfter: Math.ceil(wait / 1000), before: undefined };
      const before = counters.get(addr);
      await fail(counters, pair, ACCOUNT_AT_ADDRESS, now);
      await fail(counters, addr, ADDRESS, now);
      return { retryAfter: null, before };
    });
    return {
      retryAfter: outcome.retryAfter,
      succeeded: () =>
        withCounters(this.db, [pair, addr], async (counters) => {
          await counters.remove(pair);
          // The address keeps its other failures: signing in to one's own account between
          // guesses must not wipe them.
          const now = counters.get(addr);
          if (!now) return;
          await counters.put(addr, {
            ...now,
            count: Math.max(0, now.count - 1),
            blockedUntil: outcome.before?.blockedUntil ?? null,
          });
        }),
    };
  }

  /** Counts one event of `subject` under a quota (see takeQuota). */
  take(rule: QuotaRule, subject: string): Promise<QuotaDecision> {
    return takeQuota(this.db, [{ rule, subject }]);
  }
}

/** Counts one failure under a back-off rule, blocking from the rule's limit on. */
async function fail(counters: Counters, key: string, rule: BackoffRule, now: number) {
  const c = counters.get(key);
  const quietSince = c ? Math.max(c.last, c.blockedUntil ?? 0) : 0;
  const count = (c && now - quietSince < rule.quietMs ? c.count : 0) + 1;
  const block =
    count >= rule.limit
      ? Math.min(rule.maxBlockMs, rule.blockMs * 2 ** Math.min(count - rule.limit, 30))
      : 0;
  const blockedUntil = block ? now + block : null;
  await counters.put(key, {
    count,
    since: c && count > 1 ? c.since : now,
    last: now,
    blockedUntil,
    expiresAt: Math.max(now, blockedUntil ?? 0) + rule.quietMs,
  });
}

function blockedFor(c: Counter | undefined, now: number): number {
  return c?.blockedUntil ? c.blockedUntil - now : 0;
}
