// What the delivery tools (create_subscription, create_alert, list_deliveries,
// remove_delivery) share: their schedule and confirm arguments, and the create answer.
import { z } from 'zod';

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
