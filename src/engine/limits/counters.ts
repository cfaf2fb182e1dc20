// The one way limits count: rows of the metadata database (table limit_counters), one per
// rule and subject, so every server process shares the counts and a restart forgets nothing.
// Quotas ("at most N per window": client registrations, password-reset mails) are counted
// here; the back-off on guessing secrets (identity/throttle.ts) keeps its rows through the
// same `withCounters`.
import { createHash } from 'node:crypto';
import net from 'node:net';
import { inArray, lt } from 'drizzle-orm';
import { type Db, tx, tablesOf } from '../db/index.js';

/** One rule's count for one subject; times in ms since the epoch. */
export interface Counter {
  count: number;
  /** When the current window (quotas) or run of failures (back-off) started. */
  since: number;
  /** When the last event was counted. */
  last: number;
  /** Events are refused until then; null: not blocked. */
  blockedUntil: number | null;
  /** After this the row decides nothing any more (and is deleted). */
  expiresAt: number;
}

/** The counters of some buckets, read and written inside `withCounters`. */
export interface Counters {
  get(key: string): Counter | undefined;
  put(key: string, counter: Counter): Promise<void>;
  remove(key: string): Promise<void>;
}

/** At most `limit` events per subject in a window of `windowMs` (from the first one counted). */
export interface QuotaRule {
  name: string;
  limit: number;
  windowMs: number;
}

export type QuotaDecision = { ok: true } | { ok: false; rule: string; retryAfterSeconds: number };

/** The bucket of `subject` under `rule`: subjects (addresses, e-mails) are stored hashed. */
export function bucketOf(rule: { name: string }, subject: string): string {
  return `${rule.name}:${createHash('sha256').update(subject).digest('base64url')}`;
}

/**
 * Runs `fn` with the counters of `keys` in one transaction holding the buckets' locks: two
 * processes (or two requests) never count from the same row.
 */
export async function withCounters<T>(
  db: Db,
  keys: string[],
  fn: (counters: Counters, now: number) => Promise<T>,
): Promise<T> {
  const { limitCounters } = tablesOf(db);
  const result = await tx(
    db,
    async () => {
      const rows = await db.select().from(limitCounters).where(inArray(limitCounters.bucket, keys));
      const read = new Map(rows.map((r) => [r.bucket, fromRow(r)]));
      const counters: Counters = {
        get: (key) => read.get(key),
        put: async (key, c) => {
          read.set(key, c);
          const values = toRow(c);
          await db
            .insert(limitCounters)
            .values({ bucket: key, ...values })
            .onConflictDoUpdate({ target: limitCounters.bucket, set: values });
        },
        remove: async (key) => {
          read.delete(key);
          await db.delete(limitCounters).where(inArray(limitCounters.bucket, [key]));
        },
      };
      return fn(counters, Date.now());
    },
    { lock: keys },
  );
  await sweep(db);
  return result;
}

/**
 * Counts one event under every quota, or none when any is already at its limit (a refused
 * event is not counted, so Retry-After stays true): then the first such rule and the seconds
 * until its window ends.
 */
export function takeQuota(
  db: Db,
  takes: Array<{ rule: QuotaRule; subject: string }>,
): Promise<QuotaDecision> {
  const keyed = takes.map((t) => ({ ...t, key: bucketOf(t.rule, t.subject) }));
  return withCounters(
    db,
    keyed.map((t) => t.key),
    async (counters, now) => {
      const windows = keyed.map(({ rule, key }) => {
        const c = counters.get(key);
        const fresh = !c || now - c.since >= rule.windowMs;
        return { rule, key, since: fresh ? now : c.since, count: fresh ? 0 : c.count };
      });
      const full = windows.find((w) => w.count >= w.rule.limit);
      if (full)
        return {
          ok: false,
          rule: full.rule.name,
          retryAfterSeconds: Math.max(1, Math.ceil((full.since + full.rule.windowMs - now) / 1000)),
        };
      for (const w of windows)
        await counters.put(w.key, {
          count: w.count + 1,
          since: w.since,
          last: now,
          blockedUntil: null,
          expiresAt: w.since + w.rule.windowMs,
        });
      return { ok: true };
    },
  );
}

const SWEEP_EVERY_MS = 60_000;
const lastSweep = new WeakMap<Db, number>();

/** Deletes rows that no longer decide anything; at most once a minute per process. */
export async function sweep(db: Db, force = false): Promise<number> {
  const { limitCounters } = tablesOf(db);
  const now = Date.now();
  if (!force && now - (lastSweep.get(db) ?? 0) < SWEEP_EVERY_MS) return 0;
  lastSweep.set(db, now);
  return (
    await db
      .delete(limitCounters)
      .where(lt(limitCounters.expiresAt, iso(now)))
      .returning({ bucket: limitCounters.bucket })
  ).length;
}

type Row = { since: string; last: string; blockedUntil: string | null; expiresAt: string };

function fromRow(r: Row & { count: number }): Counter {
  return {
    count: r.count,
    since: Date.parse(r.since),
    last: Date.parse(r.last),
    blockedUntil: r.blockedUntil === null ? null : Date.parse(r.blockedUntil),
    expiresAt: Date.parse(r.expiresAt),
  };
}

function toRow(c: Counter): Row & { count: number } {
  return {
    count: c.count,
    since: iso(c.since),
    last: iso(c.last),
    blockedUntil: c.blockedUntil === null ? null : iso(c.blockedUntil),
    expiresAt: iso(c.expiresAt),
  };
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
