// The list_deliveries tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

export function registerListDeliveries(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_deliveries',
    input: { project: projectArg },
    output: {
      deliveries: z.array(
        z.object({
          id: z.string(),
          type: z.enum(['subscription', 'alert']),
          title: z.string(),
          createdBy: z.string(),
          dashboard: z.string().optional().describe("A subscription's dashboard"),
          paused: z.boolean(),
          recipients: z.array(z.string()),
          summary: z.string(),
        }),
      ),
    },
    annotations: READ_ONLY,
    narrow: 'the subscriptions and alerts do not fit one answer',
    run: async ({ project }) => {
      const a = await actorFor(ctx, project);
      const all = (await ctx.engine.delivery.manage.list(a)).map(({ ident, name, ...d }) => ({
        id: ident,
        title: name,
        ...d,
      }));
      return {
        data: { deliveries: all },
        shrink: (d) =>
          d.deliveries.length > 1
            ? { deliveries: d.deliveries.slice(0, Math.ceil(d.deliveries.length / 2)) }
            : null,
      };
    },
  });
}
