// trigger/list and trigger/toggle: each trigger with its state, last firing and next run, and
// enabling or disabling triggers (lifting a chain pause) as new revisions of their defs.
import { z } from 'zod';
import { requireLevel, type ProjectActor } from '../../access/actor.js';
import { tx } from '../../db/index.js';
import { invalid, notFound } from '../../errors.js';
import { parseInput } from '../../validate.js';
import { pauseOf, pausesOf, unpause, type Pause } from './chains.js';
import { jobStatuses, lastFirings } from './claims.js';
import { defOf, type TriggerDeps } from './deps.js';
import { nextRun } from './schedule.js';
import { describeCycle, sequenceCycle } from './sequence-cycles.js';

export interface TriggerView {
  id: string;
  name: string;
  type: string;
  flow: string;
  /** Whether it fires: enabled and not paused. */
  enabled: boolean;
  /** Paused by the chain limits (when, why) until trigger/toggle enables it, or null. */
  paused: Pause | null;
  /** The latest firing: the run's current status, or SKIPPED / FAILED / PAUSED (with why). */
  lastRun: { time: string; job: string | null; status: string; message?: string } | null;
  nextRun: string | null;
}

const zIds = z
  .union([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(1000)])
  .transform((v) => (Array.isArray(v) ? v : [v]));
const toggleBody = z
  .object({ enabled: zIds.optional(), disabled: zIds.optional() })
  .strict()
  .refine((b) => b.enabled !== undefined || b.disabled !== undefined, {
    error: 'list trigger ids in "enabled" and/or "disabled"',
  });

export async function listTriggers(
  deps: TriggerDeps,
  clock: () => Date,
  a: ProjectActor,
): Promise<{ triggers: TriggerView[] }> {
  const rows = (await deps.objects.scope(a)).rows().filter((r) => r.type === 'trigger');
  const last = await lastFirings(deps.db, a.projectId);
  const created = new Map(rows.map((r) => [r.ident, r.created]));
  const paused = await pausesOf(deps.db, a.projectId, (id) => created.get(id));
  const statuses = await jobStatuses(
    deps.db,
    [...last.values()].map((f) => f.jobId).filter((j): j is string => !!j),
  );
  const now = clock();
  return {
    triggers: rows.map((row) => {
      const def = defOf(row);
      const f = last.get(row.ident);
      let lastRun: TriggerView['lastRun'] = null;
      if (f) {
        const status = f.jobId
          ? (statuses.get(f.jobId) ?? 'UNKNOWN')
          : f.outcome === 'skipped'
            ? 'SKIPPED'
            : f.outcome === 'failed'
              ? 'FAILED'
              : f.outcome === 'paused'
                ? 'PAUSED'
                : 'PENDING';
        lastRun = {
          time: f.time,
          job: f.jobId,
          status,
          ...(f.message && !f.jobId ? { message: f.message } : {}),
        };
      }
      const pausedSince = paused.get(row.ident) ?? null;
      const enabled = def.enabled === true && !pausedSince;
      const next =
        def.type === 'flowTimer' && enabled && def.cron
          ? nextRun({ cron: def.cron, timezone: def.timezone }, now)
          : null;
      return {
        id: row.ident,
        name: row.name,
        type: def.type,
        flow: def.flow,
        enabled,
        paused: pausedSince,
        lastRun,
        nextRun: next ? next.toISOString() : null,
      };
    }),
  };
}

/**
 * Enables and disables triggers (MD Admin): each changed one gets a new revision with
 * `def.enabled`, written through the model API with the caller's rights, all or nothing.
 * Enabling a paused trigger lifts its pause; one that closes a flowSequence cycle → 400.
 */
export async function toggleTriggers(
  deps: TriggerDeps,
  clock: () => Date,
  a: ProjectActor,
  body: unknown,
): Promise<{ triggers: TriggerView[] }> {
  requireLevel(a, 'mdadmin');
  const b = parseInput(toggleBody, body ?? {}, 'trigger toggle');
  const enable = [...new Set(b.enabled ?? [])];
  const disable = [...new Set(b.disabled ?? [])];
  const both = enable.filter((id) => disable.includes(id));
  if (both.length)
    throw invalid(
      `trigger ${both.map((id) => `"${id}"`).join(', ')} is listed in both enabled and disabled`,
      { field: 'enabled', ids: both },
    );
  const scope = await deps.objects.scope(a);
  const wanted = [
    ...enable.map((id) => [id, true] as const),
    ...disable.map((id) => [id, false] as const),
  ];
  const unknown = wanted.map(([id]) => id).filter((id) => !scope.get(id));
  if (unknown.length)
    throw notFound(
      `no trigger ${unknown.map((id) => `"${id}"`).join(', ')} in project "${a.projectId}"`,
      { ids: unknown },
    );
  const wrong = wanted.map(([id]) => scope.get(id)!).filter((r) => r.type !== 'trigger');
  if (wrong.length)
    throw invalid(`not a trigger: ${wrong.map((r) => `"${r.ident}" is a ${r.type}`).join(', ')}`, {
      ids: wrong.map((r) => r.ident),
    });
  for (const id of enable) {
    // A paused one may have been saved before cycles were refused: it stays off.
    const cycle = sequenceCycle(scope.index.rows, scope.get(id)!.def);
    if (cycle) {
      const shown = describeCycle(cycle, (f) => !!scope.get(f));
      throw invalid(`trigger "${id}": def.after: ${shown.message}`, {
        ident: id,
        field: 'def.after',
        cycle: shown.cycle,
      });
    }
  }
  await tx(deps.db, async () => {
    for (const id of enable) {
      const row = scope.get(id)!;
      const was = await pauseOf(deps.db, a.projectId, id, row.created);
      // (a pause left by a deleted trigger of the same identifier goes too, unannounced)
      if (!(await unpause(deps.db, a.projectId, id)) || !was) continue;
      const def = defOf(row);
      await deps.activity.record(a.projectId, 'flow_trigger', {
        user: a.email,
        object: id,
        message: `trigger "${row.name}" (${def.type}) enabled again after a pause: ${was.message}`,
        detail: {
          trigger: id,
          type: def.type,
          flow: def.flow,
          outcome: 'resumed',
          reason: was.message,
        },
      });
    }
    for (const [id, enabled] of wanted) {
      const row = scope.get(id)!;
      if (defOf(row).enabled === enabled) continue;
      await deps.objects.replace(a, id, {
        name: row.name,
        description: row.description,
        def: { ...row.def, enabled },
        tag: row.tags,
      });
    }
  });
  return listTriggers(deps, clock, a);
}
