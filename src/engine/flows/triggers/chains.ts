// Chains of runs: a run started because another run ended (flowSequence) or wrote a file a
// trigger watches (flowWebdavFilechange) is chained to it, one deeper. The depth travels with
// the run in its job's params (`depth`, and `cause`: the run before), so every process, and a
// file written by a run, knows it. Runs started by a person, a timer or an SFTP change have
// depth 0. A firing that would chain deeper than URSA_TRIGGER_CHAIN_DEPTH, or start its flow's
// URSA_TRIGGER_CHAIN_PER_MINUTE-th chained run of the last minute (counted in the metadata
// database, whatever process started them), pauses its trigger instead (trigger_pauses).
import { and, eq, gte, sql } from 'drizzle-orm';
import { type Db, first, tablesOf, sqlOf } from '../../db/index.js';

/** What a firing was caused by: the run before it, and the depth of the run it starts. */
export interface Chain {
  depth: number;
  cause: string;
}

export interface ChainLimits {
  chainDepth: number;
  chainPerMinute: number;
}

export interface Pause {
  time: string;
  message: string;
}

/** The chain depth a job was started with (0: not caused by another run). */
export function depthOf(params: Record<string, unknown> | undefined): number {
  const d = params?.depth;
  return typeof d === 'number' && Number.isInteger(d) && d > 0 ? d : 0;
}

/** The chain a firing caused by job `jobId` starts: one deeper than that run. */
export async function chainAfter(db: Db, jobId: string): Promise<Chain> {
  const { jobs } = tablesOf(db);
  const row = await db
    .select({ params: jobs.params })
    .from(jobs)
    .where(eq(jobs.id, jobId))
    .then(first);
  return { depth: depthOf(row?.params) + 1, cause: jobId };
}

/** Chained runs of a flow started since `since` (ISO), by any process. */
export async function chainedRunsSince(
  db: Db,
  projectId: string,
  flow: string,
  since: string,
): Promise<number> {
  const { jobs } = tablesOf(db);
  const { jsonText, jsonNumber } = sqlOf(db);
  return (
    (
      await db
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(jobs)
        .where(
          and(
            eq(jobs.projectId, projectId),
            gte(jobs.created, since),
            eq(jobs.type, 'flow'),
            eq(jsonText(jobs.params, 'id'), flow),
            sql`${jsonNumber(jobs.params, 'depth')} >= 1`,
          ),
        )
        .then(first)
    )?.n ?? 0
  );
}

/** Why a chained firing of `flow` must not start it, or null when it may. */
export async function overLimit(
  db: Db,
  projectId: string,
  flow: string,
  chain: Chain,
  limits: ChainLimits,
  now: Date,
): Promise<string | null> {
  if (chain.depth > limits.chainDepth)
    return `run ${chain.depth} of a chain of runs started by other runs (after job ${chain.cause}); at most ${limits.chainDepth} in a row (URSA_TRIGGER_CHAIN_DEPTH). A cycle of triggers? Enable the trigger again once it is broken`;
  const since = new Date(now.getTime() - 60_000).toISOString();
  const recent = await chainedRunsSince(db, projectId, flow, since);
  if (recent >= limits.chainPerMinute)
    return `flow "${flow}" was started ${recent} times in the last minute by other runs; at most ${limits.chainPerMinute} (URSA_TRIGGER_CHAIN_PER_MINUTE). Enable the trigger again when that is intended`;
  return null;
}

/** Pauses a trigger (the first pause stays when another process paused it too). */
export async function pause(
  db: Db,
  projectId: string,
  trigger: string,
  time: string,
  message: string,
): Promise<void> {
  const { triggerPauses } = tablesOf(db);
  await db
    .insert(triggerPauses)
    .values({ projectId, trigger, time, message })
    .onConflictDoNothing();
}

/** Lifts a trigger's pause; true when it was paused. */
export async function unpause(db: Db, projectId: string, trigger: string): Promise<boolean> {
  const { triggerPauses } = tablesOf(db);
  return (
    (
      await db
        .delete(triggerPauses)
        .where(and(eq(triggerPauses.projectId, projectId), eq(triggerPauses.trigger, trigger)))
        .returning({ trigger: triggerPauses.trigger })
    ).length > 0
  );
}

/**
 * The pauses of a project's triggers. `created` gives each trigger's creation time: a pause
 * older than its trigger was left by a deleted one of the same identifier and does not count.
 */
export async function pausesOf(
  db: Db,
  projectId: string,
  created: (trigger: string) => string | undefined,
): Promise<Map<string, Pause>> {
  const { triggerPauses } = tablesOf(db);
  const out = new Map<string, Pause>();
  for (const r of await db
    .select()
    .from(triggerPauses)
    .where(eq(triggerPauses.projectId, projectId))) {
    const c = created(r.trigger);
    if (c !== undefined && r.time >= c) out.set(r.trigger, { time: r.time, message: r.message });
  }
  return out;
}

/** One trigger's pause, or null. */
export async function pauseOf(
  db: Db,
  projectId: string,
  trigger: string,
  created: string,
): Promise<Pause | null> {
  const { triggerPauses } = tablesOf(db);
  const r = await db
    .select()
    .from(triggerPauses)
    .where(and(eq(triggerPauses.projectId, projectId), eq(triggerPauses.trigger, trigger)))
    .then(first);
  return r && r.time >= created ? { time: r.time, message: r.message } : null;
}
