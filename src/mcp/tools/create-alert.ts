// The create_alert tool (registered by ./index.ts): without confirm it only says whom it would
// tell of what, so the assistant can ask its user first.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { defineTool, projectArg, type McpContext } from './common.js';
import {
  confirmArg,
  CREATE_ANNOTATIONS,
  createDelivery,
  deliveryOut,
  scheduleArg,
} from './delivery-views.js';

export function registerCreateAlert(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'create_alert',
    input: {
      project: projectArg,
      title: z.string().min(1).max(255),
      metric: z.string().optional().describe('A metric id to watch'),
      aql: z.string().optional().describe('Or one measure: SELECT <measure> [WHERE …]'),
      op: z
        .enum(['>', '>=', '<', '<=', 'change%', 'nodata'])
        .describe('nodata: tell when the answer is empty'),
      value: z.number().optional().describe('The threshold (for change%: percent; not for nodata)'),
      period: z
        .object({
          date: z.string().describe('A date attribute the measure can be filtered by'),
          grain: z.enum(['day', 'week', 'month', 'quarter', 'year']),
        })
        .optional()
        .describe(
          'For change%: compare this period so far with the same days of the previous one (else: with the previous check)',
        ),
      schedule: scheduleArg.optional(),
      afterLoads: z.boolean().optional().describe('Also check after each data load'),
      email: z
        .array(z.string())
        .optional()
        .describe("Members' e-mails (default: you; others need MD Admin)"),
      confirm: confirmArg,
    },
    output: deliveryOut,
    annotations: CREATE_ANNOTATIONS,
    narrow: 'the alert is too large to show; read it with get_object',
    run: async (args) =>
      createDelivery(
        ctx,
        args.project,
        (me) => ({
          type: 'alert',
          name: args.title,
          def: {
            ...(args.metric !== undefined ? { metric: args.metric } : {}),
            ...(args.aql !== undefined ? { aql: args.aql } : {}),
            condition: {
              op: args.op,
              ...(args.value !== undefined ? { value: args.value } : {}),
              ...(args.period ? { period: args.period } : {}),
            },
            ...(args.schedule ? { schedule: args.schedule } : {}),
            ...(args.afterLoads !== undefined ? { afterLoads: args.afterLoads } : {}),
            email: args.email ?? [me],
          },
        }),
        args.confirm,
      ),
  });
}
