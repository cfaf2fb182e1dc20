// Delivery (docs/delivery.md): evaluate an alert now, and its history.
import { pagingSchema, parseInput } from '../../engine/validate.js';
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { jobStarted } from './jobs.js';

export const deliveryRoutes: RouteDef[] = [
  {
    group: 'Delivery',
    path: '/projects/:project/app/delivery/:id/run',
    ops: {
      POST: {
        access: 'member',
        description:
          'Evaluate an alert now (any member who can read it): a job (`rel: scache`) whose result says what each recipient was told.',
        handler: async ({ engine, actor, params }) =>
          jobStarted(await engine.delivery.run(actor, params.id!)),
      },
    },
  },
  {
    group: 'Delivery',
    path: '/projects/:project/app/delivery/:id/history',
    ops: {
      GET: {
        access: 'member',
        description:
          "An alert's evaluations, newest first (`limit`, `offset`): { recipient, outcome (fired, still, cleared, clear, skipped, failed), value, message, job, time }.",
        handler: async ({ engine, actor, params, query }) => {
          const page = parseInput(pagingSchema, query, 'paging');
          return {
            title: `History of ${params.id}`,
            body: {
              history: await engine.delivery.history(actor, params.id!, page),
              link: [link('object', `${projectPath(actor.projectId)}/pmd/obj/${params.id}`)],
            },
          };
        },
      },
    },
  },
];
