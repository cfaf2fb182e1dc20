// Delivery (docs/delivery.md): send a subscription or evaluate an alert now, pause and resume
// one, its history; and the signed unsubscribe link of a subscription e-mail (no sign-in).
import { z } from 'zod';
import { pagingSchema, parseInput } from '../../engine/validate.js';
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { jobStarted } from './jobs.js';

const updateSchema = z
  .object({
    name: z.string().optional(),
    def: z.record(z.string(), z.unknown()),
    confirm: z.boolean().optional(),
  })
  .strict();

const createSchema = z
  .object({
    type: z.enum(['subscription', 'alert']),
    name: z.string(),
    def: z.record(z.string(), z.unknown()),
    ident: z.string().optional(),
    confirm: z.boolean().optional(),
  })
  .strict();

export const deliveryRoutes: RouteDef[] = [
  {
    group: 'Delivery',
    path: '/projects/:project/app/delivery',
    ops: {
      GET: {
        access: 'member',
        description:
          "The subscriptions and alerts you see: every one for an MD Admin; a member's own and those sent to them. Each `{ ident, type, name, createdBy, paused, recipients, summary }` (summary: what it sends to whom, when).",
        handler: async ({ engine, actor }) => {
          const list = await engine.delivery.manage.list(actor);
          return { title: 'Subscriptions and alerts', body: { deliveries: list }, tabular: list };
        },
      },
      POST: {
        access: 'member',
        description:
          '`{ type: subscription | alert, name, def, ident?, confirm? }`: without `confirm: true`, 200 `{ created: false, summary }` says what it would send to whom and writes nothing; with it, 201 `{ created: true, summary, object }`, the object as pmd/obj makes it. Below MD Admin: only one addressed to yourself (else 403).',
        handler: async ({ engine, actor, body }) => {
          const input = parseInput(createSchema, body, 'body');
          const out = await engine.delivery.manage.create(actor, input, input.confirm === true);
          return {
            status: out.created ? 201 : 200,
            title: out.created ? 'Created' : 'Preview',
            body: out,
          };
        },
      },
    },
  },
  {
    group: 'Delivery',
    path: '/projects/:project/app/delivery/:id',
    ops: {
      PUT: {
        access: 'member',
        description:
          '`{ name?, def, confirm? }`: changes a subscription or alert (its creator, addressed to themself only, or an MD Admin; description, tags and acl stay). Without `confirm: true`, 200 `{ changed: false, summary }` and nothing written; with it, 200 `{ changed: true, summary, object }`.',
        handler: async ({ engine, actor, params, body }) => {
          const input = parseInput(updateSchema, body, 'body');
          const out = await engine.delivery.manage.update(
            actor,
            params.id!,
            input,
            input.confirm === true,
          );
          return { title: out.changed ? 'Changed' : 'Preview', body: out };
        },
      },
      DELETE: {
        access: 'member',
        description:
          'Deletes a subscription or alert (its creator, or an MD Admin) → 204; 409 when something uses it.',
        handler: async ({ engine, actor, params }) => {
          await engine.delivery.manage.remove(actor, params.id!);
          return { status: 204 };
        },
      },
    },
  },
  {
    group: 'Delivery',
    path: '/projects/:project/app/delivery/:id/run',
    ops: {
      POST: {
        access: 'member',
        description:
          'Evaluate an alert now (any member who can read it) or send a subscription now (its creator or an MD Admin): a job (`rel: scache`) whose result says what each recipient was told or sent.',
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
          "An alert's evaluations or a subscription's sends, newest first (`limit`, `offset`): { recipient, outcome, value, message, job, time }; an alert's outcomes are fired, still, cleared, clear, skipped, failed, bounced; a subscription's pending, sending, sent, skipped, failed, unknown, bounced.",
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

  ...(['pause', 'resume'] as const).map((verb): RouteDef => ({
    group: 'Delivery',
    path: `/projects/:project/app/delivery/:id/${verb}`,
    ops: {
      POST: {
        access: 'member',
        description:
          verb === 'pause'
            ? "Pause an alert's or subscription's schedule and after-load checks (its creator or an MD Admin): `{ paused: true }`; a revision of the object."
            : 'Resume a paused alert or subscription (its creator or an MD Admin): `{ paused: false }`.',
        handler: async ({ engine, actor, params }) => ({
          title: verb === 'pause' ? 'Paused' : 'Resumed',
          body: await engine.delivery.pause(actor, params.id!, verb === 'pause'),
        }),
      },
    },
  })),
];
