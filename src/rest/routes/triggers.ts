// Triggers: list with last and next run, enable/disable, run once now (FLOWS.md "Triggers").
import type { TriggerView } from '../../engine/flows/triggers/triggers.js';
import type { RouteDef } from '../../http/router.js';
import { runStarted } from './flows.js';

const tabular = (triggers: TriggerView[]) =>
  triggers.map((t) => ({
    id: t.id,
    name: t.name,
    type: t.type,
    flow: t.flow,
    enabled: t.enabled,
    pausedReason: t.paused?.message ?? '',
    lastRunTime: t.lastRun?.time ?? '',
    lastRunJob: t.lastRun?.job ?? '',
    lastRunStatus: t.lastRun?.status ?? '',
    nextRun: t.nextRun ?? '',
  }));

export const triggerRoutes: RouteDef[] = [
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/trigger/list',
    ops: {
      GET: {
        access: 'member',
        description:
          'Triggers you may read, with their last firing (`lastRun`: time, job, status: the run’s status, or SKIPPED / FAILED / PAUSED), the next scheduled time of timers (`nextRun`), and `paused` (time, message) for a trigger the chain limits paused (`enabled` is then false).',
        handler: async ({ engine, actor }) => {
          const body = await engine.triggers.list(actor);
          return {
            title: 'Triggers',
            body,
            tabular: tabular(body.triggers),
            filename: 'triggers',
          };
        },
      },
    },
  },
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/trigger/toggle',
    ops: {
      PUT: {
        access: 'mdadmin',
        description:
          'Enables the triggers listed in `enabled` (lifting a pause) and disables those in `disabled` (arrays of trigger ids); all or nothing. Answers the trigger list.',
        handler: async ({ engine, actor, body }) => {
          const out = await engine.triggers.toggle(actor, body);
          return { title: 'Triggers', body: out, tabular: tabular(out.triggers) };
        },
      },
    },
  },
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/trigger/run',
    ops: {
      POST: {
        access: 'mdadmin',
        description:
          'Fires the trigger `{ id }` once now, enabled or not: 201 with the run’s `scache` link; 403 when its flow is running.',
        handler: async ({ engine, actor, body }) =>
          runStarted(await engine.triggers.run(actor, body)),
      },
    },
  },
];
