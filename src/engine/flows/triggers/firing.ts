// Firing a trigger: claim the slot (once across every process), start the flow's run as the
// trigger's last editor or the caller (or record a skip, failure or chain-limit pause), then
// record the outcome on the claim and as a `flow_trigger` activity event.
import type { ProjectActor } from '../../access/actor.js';
import { storeOf } from '../../db/index.js';
import { EngineError } from '../../errors.js';
import { nowIso } from '../../ids.js';
import type { Job } from '../../jobs/jobs.js';
import type { ObjectRow } from '../../model/store.js';
import { overLimit, pause, pauseOf, type Chain } from './chains.js';
import { claim, lockedBy, settle, type Outcome } from './claims.js';
import { defOf, type TriggerDef, type TriggerDeps } from './deps.js';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** What a firing did; `error` is what starting the run threw. */
export interface Fired {
  outcome: Outcome;
  job: Job | null;
  message: string | null;
  error?: unknown;
}

/** How a firing came about: a manual run's caller, a note, a skip or failure to record, a chain. */
export interface FireHow {
  actor?: ProjectActor;
  note?: string;
  skip?: string;
  failure?: string;
  chain?: Chain;
}

/**
 * Claims the slot and, if this call got it, starts the run: as `how.actor` (a manual run,
 * enabled or not), else as the trigger's last editor while it is still enabled and not
 * paused. `skip` and `failure` record the firing without starting anything. A firing caused
 * by another run (`chain`) beyond the chain limits pauses the trigger instead. Null when the
 * slot was taken.
 */
export async function fire(
  deps: TriggerDeps,
  now: () => Date,
  row: ObjectRow,
  slot: string,
  how: FireHow,
): Promise<Fired | null> {
  const manual = how.actor !== undefined;
  const { db } = deps;
  if (!manual) {
    // Read again: it may have been disabled, paused, changed or deleted since it was seen.
    const current = await deps.model.get(row.projectId, row.ident);
    if (!current || current.type !== 'trigger' || defOf(current).enabled !== true) return null;
    if (await pauseOf(db, current.projectId, current.ident, current.created)) return null;
    row = current;
  }
  const def = defOf(row);
  const { projectId, ident } = row;
  const chain = manual ? undefined : how.chain;
  if (!(await claim(db, projectId, ident, slot, now().toISOString()))) return null;
  let user = how.actor?.email ?? row.updatedBy;
  let fired: Fired;
  if (how.skip) fired = { outcome: 'skipped', job: null, message: how.skip };
  else if (how.failure) fired = { outcome: 'failed', job: null, message: how.failure };
  else if (chain) {
    // Counting the last minute's chained runs and starting this one are one step for the
    // whole cluster: firings of other triggers of the same flow wait, then count this run.
    const current = row;
    fired = await storeOf(db).exclusive(`ursa:chain:${projectId}:${def.flow}`, async (held) => {
      const limit = await overLimit(db, projectId, def.flow, chain, deps.config, new Date());
      // The count is only good while the lock is held (lost: the database ended it).
      held.throwIfAborted();
      if (!limit) return startRun(deps, current, def, how.actor, chain);
      await pause(db, projectId, ident, nowIso(), limit);
      return { outcome: 'paused', job: null, message: limit };
    });
  } else fired = await startRun(deps, row, def, how.actor, chain);
  await settle(
    deps.db,
    projectId,
    ident,
    slot,
    fired.outcome,
    fired.job?.id ?? null,
    fired.message,
  );
  if (fired.job) user = fired.job.createdBy;
  const what = `trigger "${row.name}" (${def.type}${manual ? ', run now' : ''})`;
  const message =
    fired.outcome === 'started'
      ? `${what} started flow "${def.flow}" (job ${fired.job!.id})`
      : fired.outcome === 'skipped'
        ? `${what} skipped: ${fired.message}`
        : fired.outcome === 'paused'
          ? `${what} paused, flow "${def.flow}" not started: ${fired.message}`
          : `${what} could not start flow "${def.flow}": ${fired.message}`;
  await deps.activity.record(projectId, 'flow_trigger', {
    user,
    object: ident,
    message,
    detail: {
      trigger: ident,
      type: def.type,
      flow: def.flow,
      outcome: fired.outcome,
      ...(fired.job ? { jobId: fired.job.id } : {}),
      slot,
      ...(manual ? { manual: true } : {}),
      ...(chain ? { depth: chain.depth, cause: chain.cause } : {}),
      ...(fired.message && fired.outcome !== 'started' ? { reason: fired.message } : {}),
      ...(how.note ? { note: how.note } : {}),
    },
  });
  if (fired.outcome === 'paused')
    deps.log.warn({ project: projectId, trigger: ident, slot, ...fired }, message);
  else if (fired.outcome !== 'started')
    deps.log.info({ project: projectId, trigger: ident, slot, ...fired }, message);
  return fired;
}

async function startRun(
  deps: TriggerDeps,
  row: ObjectRow,
  def: TriggerDef,
  actor?: ProjectActor,
  chain?: Chain,
): Promise<Fired> {
  const { projectId, ident } = row;
  let a: ProjectActor;
  try {
    a = actor ?? (await deps.actorOf(row.updatedBy, projectId));
  } catch (err) {
    return {
      outcome: 'failed',
      job: null,
      message: `the trigger runs as its last editor ${row.updatedBy}, who cannot: ${messageOf(err)}`,
      error: err,
    };
  }
  if (!actor && (await runningJob(deps, projectId, def.flow)) !== null)
    return { outcome: 'skipped', job: null, message: `flow "${def.flow}" is already running` };
  try {
    const job = await deps.flows.start(a, def.flow, {
      trigger: ident,
      ...(chain ? { chain } : {}),
    });
    return { outcome: 'started', job, message: null };
  } catch (err) {
    // One run per flow: the 403 of a start while it runs is a skip, not a failure.
    const busy =
      err instanceof EngineError &&
      err.kind === 'forbidden' &&
      (/already running/i.test(err.message) ||
        (await runningJob(deps, projectId, def.flow)) !== null);
    return {
      outcome: busy ? 'skipped' : 'failed',
      job: null,
      message: busy ? `flow "${def.flow}" is already running` : messageOf(err),
      error: err,
    };
  }
}

/** The running job of a flow ('' when only this process knows it runs), or null. */
export async function runningJob(
  deps: TriggerDeps,
  projectId: string,
  flow: string,
): Promise<string | null> {
  const locked = await lockedBy(deps.db, projectId, flow);
  if (locked) return locked;
  return (await deps.flows.isRunning(projectId, flow)) ? '' : null;
}
