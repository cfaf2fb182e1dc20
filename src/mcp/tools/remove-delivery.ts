// The remove_delivery tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';

export function registerRemoveDelivery(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'remove_delivery',
    input: {
      project: projectArg,
      id: z.string().min(1).describe('A subscription or alert id (list_deliveries)'),
    },
    output: { removed: z.string() },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    narrow: 'the answer is too large',
    run: async ({ project, id }) => {
      await ctx.engine.delivery.manage.remove(await actorFor(ctx, project), id);
      return { data: { removed: id } };
    },
  });
}
