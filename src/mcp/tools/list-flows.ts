// The list_flows tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

export function registerListFlows(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_flows',
    input: {
      project: projectArg,
      fullLoad: z.boolean().optional().describe('Add each flow definition and its triggers'),
    },
    output: { flows: z.array(z.record(z.string(), z.unknown())) },
    annotations: READ_ONLY,
    narrow: 'too many flows to show with fullLoad; call again without fullLoad',
    run: async ({ project, fullLoad }) => {
      const a = await actorFor(ctx, project);
      return { data: (await ctx.engine.flows.list(a, fullLoad === true)) as never };
    },
  });
}
