// Timer schedules: five-field cron in an IANA time zone (default UTC), evaluated by croner.
// Pure functions of a clock, so ticks and the catch-up of missed runs test on a fixed time.
import { LRUCache } from 'lru-cache';
import { Cron } from 'croner';

export interface TimerSpec {
  cron: string;
  timezone?: string;
}

/** Parsed schedules (null: the expression does not parse), by zone and expression. */
const cache = new LRUCache<string, { cron: Cron | null }>({ max: 10_000 });

/** The schedule of a timer, or null when its expression (or zone) does not parse. */
export function scheduleOf(spec: TimerSpec): Cron | null {
  const tz = spec.timezone || 'UTC';
  const key = `${tz}\u0000${spec.cron}`;
  let hit = cache.get(key);
  if (!hit) {
    try {
      hit = { cron: new Cron(spec.cron.trim(), { mode: '5-part', timezone: tz }) };
    } catch {
      hit = { cron: null };
    }
    cache.set(key, hit);
  }
  return hit.cron;
}

/** The first scheduled time strictly after `after`, or null. */
export function nextRun(spec: TimerSpec, after: Date): Date | null {
  try {
    return scheduleOf(spec)?.nextRun(after) ?? null;
  } catch {
    return null;
  }
}

/** The latest scheduled time at or before `at`, or null. */
export function previousRun(spec: TimerSpec, at: Date): Date | null {
  try {
    // croner leaves out a run exactly at the reference: one millisecond later includes it.
    return scheduleOf(spec)?.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The slot a timer owes at `now`: its latest scheduled time, when that came after the timer was
 * armed (created, re-enabled or rescheduled). Earlier ones are not owed, and of several missed
 * slots only the latest is: a server down for a day catches up once, not once per slot.
 */
export function dueSlot(spec: TimerSpec, now: Date, armedAt: number): Date | null {
  const prev = previousRun(spec, now);
  return prev && prev.getTime() > armedAt ? prev : null;
}

/** A revision of a trigger as stored (object_revisions.snapshot), with its time. */
export interface DefRevision {
  time: string;
  def: Record<string, unknown> | undefined;
}

/**
 * Since when a timer has been scheduled as it is now: the time of the oldest revision in the
 * unbroken run of latest revisions with the same type, cron and time zone and enabled (a
 * rename or a flow change keeps it; a disable, a new schedule, or a re-creation starts over).
 * `revisions` newest first; `created` the object's creation time.
 */
export function armedSince(
  current: Record<string, unknown>,
  created: string,
  updated: string,
  revisions: DefRevision[],
): number {
  const same = (d: Record<string, unknown> | undefined) =>
    !!d &&
    d.enabled === true &&
    d.type === current.type &&
    d.cron === current.cron &&
    (d.timezone ?? null) === (current.timezone ?? null);
  let since = Date.parse(updated);
  for (const r of revisions) {
    if (!same(r.def)) break;
    since = Math.min(since, Date.parse(r.time));
  }
  return Math.max(since, Date.parse(created));
}
