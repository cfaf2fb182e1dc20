// Flows: the box catalog, the flow list with running state and last run, stopping a run
// (FLOWS.md). Running a flow is `kodiak/transform/execute` with type "flow" (data.ts).
import type { Job } from '../../engine/jobs/jobs.js';
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { jobPath, jobStarted, jobView } from './jobs.js';

/** A flow run started: 201 with the run's `scache` link (FLOWS.md "Runs"). */
export function runStarted(job: Job) {
  return { ...jobStarted(job), status: 201, title: 'Flow run started' };
}

export const flowRoutes: RouteDef[] = [
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/box',
    ops: {
      GET: {
        access: 'member',
        description:
          'Box types a flow is built from: `{ boxes: [{ id, kind, title, description, inputs, params }] }`, params as JSON Schema.',
        handler: ({ engine }) => {
          const body = engine.flows.boxes();
          return {
            title: 'Box types',
            body,
            tabular: body.boxes.map(({ params: _p, inputs, ...b }) => ({
              ...b,
              inputs: `${inputs.min}-${inputs.max}`,
            })),
            filename: 'boxes',
          };
        },
      },
    },
  },
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/box/:boxId',
    ops: {
      GET: {
        access: 'member',
        description: 'One box type with its parameters as JSON Schema.',
        handler: ({ engine, params }) => ({
          title: 'Box type',
          body: engine.flows.box(params.boxId!),
        }),
      },
    },
  },
  {
    group: 'Data integration',
    path: '/projects/:project/inflow/flowlist',
    ops: {
      GET: {
        access: 'member',
        description:
          'Flows with inputs, outputs, running state and last run; `fullLoad=true` adds each def and the triggers that start it.',
        handler: async ({ engine, actor, query }) => {
          const full = query.fullLoad === 'true' || query.fullLoad === '1';
          const body = await engine.flows.list(actor, full);
          for (const f of body.flows)
            (f as typeof f & { link: unknown }).link = [
              link('self', `${projectPath(actor.projectId)}/pmd/obj/${encodeURIComponent(f.id)}`, {
                id: f.id,
              }),
              ...(f.lastRun
                ? [link('lastRun', jobPath(actor.projectId, f.lastRun.job), { id: f.lastRun.job })]
                : []),
            ];
          return {
            title: 'Flows',
            body,
            tabular: body.flows.map((f) => ({
              id: f.id,
              name: f.name,
              inputs: f.inputs.map((i) => `${i.box}: ${i.source}`).join('; '),
              outputs: f.outputs.map((o) => `${o.box}: ${o.target}`).join('; '),
              running: f.running,
              lastStatus: f.lastRun?.status ?? '',
              lastFinished: f.lastRun?.finished ?? '',
            })),
            filename: 'flows',
          };
        },
      },
    },
  },
  {
    group: 'Data integration',
    path: '/projects/:project/kodiak/transform/stop',
    ops: {
      POST: {
        access: 'mdadmin',
        description:
          'Stop a running flow `{ id: <flow id> }`: the run ends CANCELLED and writes nothing.',
        handler: async ({ engine, actor, body }) => ({
          title: 'Flow run',
          body: jobView(await engine.flows.stop(actor, body)),
        }),
      },
    },
  },
];
