// What the delivery tools (create_subscription, create_alert, list_deliveries,
// remove_delivery) share: their schedule and confirm arguments, and the create answer.
import { z } from 'zod';
import type { DeliveryInput } from '../../engine/delivery/manage.js';
import { actorFor, type McpContext } from './common.js';

export const scheduleArg = z
  .object({
    cron: z
      .string()
      .describe('Five fields: minute hour day-of-month month day-of-week, e.g. "0 8 * * 1"'),
    timezone: z.string().optional().describe('IANA time zone (default UTC)'),
  })
  .describe('When it runs');

export const confirmArg = z
  .boolean()
  .optional()
  .describe('false (default): only say what would be sent to whom; true: create it');

export const deliveryOut = {
  created: z.boolean().describe('false: a preview only, nothing was saved'),
  id: z.string().nullable(),
  summary: z.string().describe('What it sends to whom, and when'),
};

/** The create tools send e-mail once confirmed: not read-only, not destructive, open world. */
export const CREATE_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/** Previews (no confirm) or creates one as the caller; `def` may address the caller. */
export async function createDelivery(
  ctx: McpContext,
  project: string | undefined,
  input: (me: string) => DeliveryInput,
  confirm: boolean | undefined,
) {
  const a = await actorFor(ctx, project);
  const out = await ctx.engine.delivery.manage.create(a, input(a.email), confirm === true);
  return { data: { created: out.created, id: out.object?.ident ?? null, summary: out.summary } };
}
