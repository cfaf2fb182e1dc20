// Storage changes for flowWebdavFilechange triggers: which triggers a changed file concerns
// (a picomatch glob on the storage path), and the debounce that turns a burst of changes into
// one run: a run starts once no matching change came for `quietMs` (2 s), or at the latest
// `maxWaitMs` after the first one, so a steady stream of uploads still starts runs. A change
// written by a run carries that run's chain (chains.ts); the run of a burst is as deep as the
// deepest of its changes.
//
// The burst lives in the trigger's trigger_state row, not in a process: changes reaching any
// process (an api one too) extend the same burst, and its first change's time, which every
// process reads from there, names the firing's slot, so a burst fires once per cluster.
import { LRUCache } from 'lru-cache';
import { and, eq, isNotNull } from 'drizzle-orm';
import picomatch from 'picomatch';
import { tx, type Db, tablesOf, sqlOf } from '../../db/index.js';
import type { StorageChange } from '../../storage/storage.js';
import type { Chain } from './chains.js';
import { readState, writeState } from './claims.js';

const matchers = new LRUCache<string, (p: string) => boolean>({ max: 10_000 });

/** Whether a storage path (`/drop/sales.csv`) matches a trigger's glob (`/drop/*.csv`). */
export function pathMatches(glob: string, path: string): boolean {
  let m = matchers.get(glob);
  if (!m) {
    m = picomatch(glob, { dot: true });
    matchers.set(glob, m);
  }
  return m(path);
}

/** A file written into place: created, replaced, moved or copied there (not folders, not deletes). */
export function isFileArrival(change: StorageChange): boolean {
  return change.type === 'file' && change.kind !== 'deleted';
}

/** Changes of one trigger not yet fired: times in ms since the epoch. */
export interface Burst {
  first: number;
  last: number;
  changes: number;
  /** The deepest chain among the changes (null when no run wrote them). */
  chain: Chain | null;
}

export interface BurstTiming {
  quietMs: number;
  maxWaitMs: number;
}

/** `b` with one more change at `now` (or a new burst). */
export function addChange(b: Burst | null, now: number, chain: Chain | null): Burst {
  if (!b) return { first: now, last: now, changes: 1, chain };
  const deepest = !b.chain || (chain && chain.depth > b.chain.depth) ? chain : b.chain;
  return { first: b.first, last: Math.max(b.last, now), changes: b.changes + 1, chain: deepest };
}

/** When a burst fires: quiet for `quietMs`, or `maxWaitMs` after its first change. */
export function dueAt(b: Burst, t: BurstTiming): number {
  return Math.min(b.last + t.quietMs, b.first + t.maxWaitMs);
}

/** The slot a burst's firing claims: the same in every process. */
export const burstSlot = (b: Burst): string => `file:${new Date(b.first).toISOString()}`;

const lockOf = (projectId: string, trigger: string) => [`ursa:file-burst:${projectId}:${trigger}`];

function burstOf(state: Record<string, unknown> | null): Burst | null {
  const b = state?.burst as Partial<Burst> | undefined;
  if (!b || typeof b.first !== 'number' || typeof b.last !== 'number') return null;
  return { first: b.first, last: b.last, changes: Number(b.changes) || 1, chain: b.chain ?? null };
}

/** Records a change in the trigger's burst (whatever process saw it); the burst after it. */
export function noteChange(
  db: Db,
  projectId: string,
  trigger: string,
  now: number,
  chain: Chain | null,
): Promise<Burst> {
  return tx(
    db,
    async () => {
      const state = await readState(db, projectId, trigger);
      const burst = addChange(burstOf(state), now, chain);
      await writeState(db, projectId, trigger, { ...state, burst }, new Date(now).toISOString());
      return burst;
    },
    { lock: lockOf(projectId, trigger) },
  );
}

/**
 * Takes the trigger's burst when it is due at `now` (it is then gone: exactly one caller in
 * the cluster gets it); otherwise when it will be due, or null when there is none.
 */
export function takeBurst(
  db: Db,
  projectId: string,
  trigger: string,
  now: number,
  t: BurstTiming,
): Promise<{ burst: Burst } | { due: number } | null> {
  return tx(
    db,
    async () => {
      const state = await readState(db, projectId, trigger);
      const burst = burstOf(state);
      if (!burst) return null;
      const due = dueAt(burst, t);
      if (due > now) return { due };
      const rest = { ...state };
      delete rest.burst;
      await writeState(db, projectId, trigger, rest, new Date(now).toISOString());
      return { burst };
    },
    { lock: lockOf(projectId, trigger) },
  );
}

/** Triggers with a burst waiting (of one project, or all), and when each is due. */
export async function waitingBursts(
  db: Db,
  t: BurstTiming,
  projectId?: string,
): Promise<Array<{ projectId: string; trigger: string; due: number }>> {
  const { triggerState } = tablesOf(db);
  const { jsonText } = sqlOf(db);
  const rows = await db
    .select({
      projectId: triggerState.projectId,
      trigger: triggerState.trigger,
      state: triggerState.state,
    })
    .from(triggerState)
    .where(
      and(
        isNotNull(jsonText(triggerState.state, 'burst')),
        projectId === undefined ? undefined : eq(triggerState.projectId, projectId),
      ),
    );
  const out: Array<{ projectId: string; trigger: string; due: number }> = [];
  for (const r of rows) {
    const b = burstOf(r.state);
    if (b) out.push({ projectId: r.projectId, trigger: r.trigger, due: dueAt(b, t) });
  }
  return out;
}
