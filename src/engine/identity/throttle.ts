// Limits on guessing secrets (passwords, WebDAV tokens) and on open registration, counted in
// the metadata database (auth_throttle) so that every server process shares them and a
// restart does not reset them.
//
// Guesses are counted per account and address and per address alone, never per account
// alone: failures from an attacker's address must not lock the real user out from theirs.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { eq, lt } from 'drizzle-orm';
import { type Db, first, tx, tablesOf, type Tables } from '../db/index.js';

/** Refuses for a while after `limit` failures, the wait doubling with each failure after. */
export interface BackoffRule {
  name: string;
  limit: number;
  /** The count starts again after this long without failures (or blocks). */
  quietMs: number;
  blockMs: number;
  maxBlockMs: number;
}

/** At most `limit` events per fixed window. */
export interface QuotaRule {
  name: string;
  limit: number;
  windowMs: number;
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

type Row = Tables['authThrottle']['$inferSelect'];

const SWEEP_EVERY_MS = MINUTE;

export class Throttle {
  private lastSweep = 0;

  constructor(private readonly db: Db) {}

  /**
   * Call before checking a secret of `account` within `scope` (e.g. "login", "webdav:<project>")
   * sent from `address`. The guess is counted as failed at once, so guesses sent in parallel
   * are all counted; `succeeded()` takes it back (and forgets this account's failures from
   * that address). A refused guess is not counted and must not be checked.
   */
  async guess(scope: string, account: string, address: string): Promise<Guess> {
    const { authThrottle } = tablesOf(this.db);
    const pair = bucket(
      ACCOUNT_AT_ADDRESS,
      `${scope}\0${account.toLowerCase()}\0${addressKey(address)}`,
    );
    const addr = bucket(ADDRESS, addressKey(address));
    const outcome = await this.immediate([pair, addr], async () => {
      const now = Date.now();
      const rows = [await this.row(pair), await this.row(addr)];
      const wait = Math.max(0, ...rows.map((r) => blockedFor(r, now)));
      if (wait > 0) return { retryAfter: Math.ceil(wait / 1000), before: undefined };
      const before = rows[1];
      await this.fail(pair, ACCOUNT_AT_ADDRESS, rows[0], now);
      await this.fail(addr, ADDRESS, rows[1], now);
      return { retryAfter: null, before };
    });
    await this.sweep();
    return {
      retryAfter: outcome.retryAfter,
      succeeded: () =>
        this.immediate([pair, addr], async () => {
          await this.db.delete(authThrottle).where(eq(authThrottle.bucket, pair));
          // The address keeps its other failures: signing in to one's own account between
          // guesses must not wipe them.
          const now = await this.row(addr);
          if (!now) return;
          await this.db
            .update(authThrottle)
            .set({
              count: Math.max(0, now.count - 1),
              blockedUntil: outcome.before?.blockedUntil ?? null,
            })
            .where(eq(authThrottle.bucket, addr));
        }),
    };
  }

  /**
   * Counts one event of `subject` under a quota; returns null when within it, else the
   * seconds until the window ends (the event is then not counted).
   */
  async take(rule: QuotaRule, subject: string): Promise<number | null> {
    const key = bucket(rule, subject);
    const retry = await this.immediate([key], async () => {
      const now = Date.now();
      const row = await this.row(key);
      const fresh = !row || now - Date.parse(row.since) >= rule.windowMs;
      const since = fresh ? now : Date.parse(row.since);
      const count = fresh ? 0 : row.count;
      if (count >= rule.limit) return Math.ceil((since + rule.windowMs - now) / 1000);
      await this.put(key, {
        count: count + 1,
        since: iso(since),
        last: iso(now),
        blockedUntil: null,
        expiresAt: iso(since + rule.windowMs),
      });
      return null;
    });
    await this.sweep();
    return retry;
  }

  /** Deletes rows that no longer decide anything; at most once a minute. */
  async sweep(force = false): Promise<number> {
    const { authThrottle } = tablesOf(this.db);
    const now = Date.now();
    if (!force && now - this.lastSweep < SWEEP_EVERY_MS) return 0;
    this.lastSweep = now;
    return (
      await this.db
        .delete(authThrottle)
        .where(lt(authThrottle.expiresAt, iso(now)))
        .returning({ bucket: authThrottle.bucket })
    ).length;
  }

  private async fail(
    key: string,
    rule: BackoffRule,
    row: Row | undefined,
    now: number,
  ): Promise<void> {
    const quietSince = row
      ? Math.max(Date.parse(row.last), Date.parse(row.blockedUntil ?? '') || 0)
      : 0;
    const count = (row && now - quietSince < rule.quietMs ? row.count : 0) + 1;
    const block =
      count >= rule.limit
        ? Math.min(rule.maxBlockMs, rule.blockMs * 2 ** Math.min(count - rule.limit, 30))
        : 0;
    const blockedUntil = block ? now + block : null;
    await this.put(key, {
      count,
      since: row && count > 1 ? row.since : iso(now),
      last: iso(now),
      blockedUntil: blockedUntil === null ? null : iso(blockedUntil),
      expiresAt: iso(Math.max(now, blockedUntil ?? 0) + rule.quietMs),
    });
  }

  private async row(key: string): Promise<Row | undefined> {
    const { authThrottle } = tablesOf(this.db);
    return this.db.select().from(authThrottle).where(eq(authThrottle.bucket, key)).then(first);
  }

  private async put(key: string, values: Omit<Row, 'bucket'>): Promise<void> {
    const { authThrottle } = tablesOf(this.db);
    await this.db
      .insert(authThrottle)
      .values({ bucket: key, ...values })
      .onConflictDoUpdate({ target: authThrottle.bucket, set: values });
  }

  /**
   * Read and write in one transaction holding the buckets' locks: two processes (or two
   * requests) never count from the same row.
   */
  private immediate<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
    return tx(this.db, fn, { lock: keys });
  }
}

function blockedFor(row: Row | undefined, now: number): number {
  return row?.blockedUntil ? Date.parse(row.blockedUntil) - now : 0;
}

function bucket(rule: { name: string }, subject: string): string {
  return `${rule.name}:${createHash('sha256').update(subject).digest('base64url')}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The address as limits see it: IPv4 as is (also when mapped into IPv6), IPv6 by its /64
 * network, which one subscriber usually holds whole.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!net.isIPv6(address)) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
