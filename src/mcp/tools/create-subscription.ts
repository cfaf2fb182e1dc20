// The create_subscription tool (registered by ./index.ts): without confirm it only says what
// would be sent to whom, so the assistant can ask its user first.
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

export function registerCreateSubscription(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'create_subscription',
    input: {
      project: projectArg,
      dashboard: z.string().min(1).describe('The dashboard id (list_dashboards)'),
      title: z.string().min(1).max(255),
      schedule: scheduleArg,
      format: z
        .enum(['pdf', 'xlsx', 'csv'])
        .optional()
        .describe('Attached: pdf (default), or xlsx/csv files of items'),
      items: z.array(z.string()).optional().describe('With xlsx/csv: the item ids to attach'),
      filters: z.array(z.string()).optional().describe('Fixed filter values, "attribute:value"'),
      recipients: z
        .array(z.string())
        .optional()
        .describe("Members' e-mails (default: you; others need MD Admin)"),
      confirm: confirmArg,
    },
    output: deliveryOut,
    annotations: CREATE_ANNOTATIONS,
    narrow: 'the subscription is too large to show; read it with get_object',
    run: async (args) =>
      createDelivery(
        ctx,
        args.project,
        (me) => ({
          type: 'subscription',
          name: args.title,
          def: {
            dashboard: args.dashboard,
            recipients: args.recipients ?? [me],
            schedule: args.schedule,
            ...(args.format ? { format: args.format } : {}),
            ...(args.items ? { items: args.items } : {}),
            ...(args.filters ? { filters: args.filters } : {}),
          },
        }),
        args.confirm,
      ),
  });
}
