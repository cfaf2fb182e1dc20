// Firing claims in the metadata DB (trigger_firings): a firing is one row per (project,
// trigger, slot), taken with INSERT OR IGNORE. Whoever inserts it starts the run; every other
// process (or a later tick of the same one) sees the row and leaves the slot alone.
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Db, first, tablesOf, type Tables } from '../../db/index.js';

/** `paused`: the chain limits paused the trigger instead (chains.ts). */
export type Outcome = 'started' | 'skipped' | 'failed' | 'paused';
/** Stored while the claimant starts the run; replaced by the outcome right after. */
export const PENDING = 'pending';

export type FiringRow = Tables['triggerFirings']['$inferSelect'];

/** Claims a slot; true when this call took it (and must fire), false when it was taken. */
export async function claim(
  db: Db,
  projectId: string,
  trigger: string,
  slot: string,
  time: string,
): Promise<boolean> {
  const { triggerFirings } = tablesOf(db);
  const r = await db
    .insert(triggerFirings)
    .values({ projectId, trigger, slot, time, outcome: PENDING })
    .onConflictDoNothing()
    .returning({ slot: triggerFirings.slot });
  return r.length === 1;
}

/** Records what the claimant did with its slot. */
export async function settle(
  db: Db,
  projectId: string,
  trigger: string,
  slot: string,
  outcome: Outcome,
  jobId: string | null,
  message: string | null,
): Promise<void> {
  const { triggerFirings } = tablesOf(db);
  await db
    .update(triggerFirings)
    .set({ outcome, jobId, message })
    .where(
      and(
        eq(triggerFirings.projectId, projectId),
        eq(triggerFirings.trigger, trigger),
        eq(triggerFirings.slot, slot),
      ),
    );
}

export async function hasClaim(
  db: Db,
  projectId: string,
  trigger: string,
  slot: string,
): Promise<boolean> {
  const { triggerFirings } = tablesOf(db);
  return !!(await db
    .select({ one: sql<number>`1`.mapWith(Number) })
    .from(triggerFirings)
    .where(
      and(
        eq(triggerFirings.projectId, projectId),
        eq(triggerFirings.trigger, trigger),
        eq(triggerFirings.slot, slot),
      ),
    )
    .then(first));
}

/** The latest firing of each trigger of a project (ties on time: the last inserted). */
export async function lastFirings(db: Db, projectId: string): Promise<Map<string, FiringRow>> {
  const { triggerFirings } = tablesOf(db);
  const rows = await db
    .select()
    .from(triggerFirings)
    .where(
      and(
        eq(triggerFirings.projectId, projectId),
        sql`${triggerFirings.time} = (select max(m.time) from trigger_firings m where m.project_id = ${triggerFirings.projectId} and m.trigger = ${triggerFirings.trigger})`,
      ),
    )
    .orderBy(triggerFirings.trigger, triggerFirings.slot);
  const out = new Map<string, FiringRow>();
  for (const r of rows) out.set(r.trigger, r);
  return out;
}

/** Every firing of a trigger, oldest first (tests and diagnostics). */
export async function firingsOf(db: Db, projectId: string, trigger: string): Promise<FiringRow[]> {
  const { triggerFirings } = tablesOf(db);
  return db
    .select()
    .from(triggerFirings)
    .where(and(eq(triggerFirings.projectId, projectId), eq(triggerFirings.trigger, trigger)))
    .orderBy(triggerFirings.time, triggerFirings.slot);
}

/** Current statuses of jobs by id. */
export async function jobStatuses(db: Db, ids: string[]): Promise<Map<string, string>> {
  const { jobs } = tablesOf(db);
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: jobs.id, status: jobs.status })
    .from(jobs)
    .where(inArray(jobs.id, ids));
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** What a trigger watches between checks, shared by every process; null before the first. */
export async function readState<T extends Record<string, unknown>>(
  db: Db,
  projectId: string,
  trigger: string,
): Promise<T | null> {
  const { triggerState } = tablesOf(db);
  const row = await db
    .select({ state: triggerState.state })
    .from(triggerState)
    .where(and(eq(triggerState.projectId, projectId), eq(triggerState.trigger, trigger)))
    .then(first);
  return (row?.state as T | undefined) ?? null;
}

export async function writeState(
  db: Db,
  projectId: string,
  trigger: string,
  state: Record<string, unknown>,
  time: string,
): Promise<void> {
  const { triggerState } = tablesOf(db);
  await db
    .insert(triggerState)
    .values({ projectId, trigger, state, updated: time })
    .onConflictDoUpdate({
      target: [triggerState.projectId, triggerState.trigger],
      set: { state, updated: time },
    });
}

/** The run holding a flow's lock (any process), or null. */
export async function lockedBy(db: Db, projectId: string, flow: string): Promise<string | null> {
  const { flowLocks } = tablesOf(db);
  return (
    (
      await db
        .select({ jobId: flowLocks.jobId })
        .from(flowLocks)
        .where(and(eq(flowLocks.projectId, projectId), eq(flowLocks.flow, flow)))
        .then(first)
    )?.jobId ?? null
  );
}
