// The list_projects tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { defineTool, READ_ONLY, type McpContext } from './common.js';

export function registerListProjects(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_projects',
    input: {},
    output: {
      projects: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          admin: z.boolean(),
          mdAdmin: z.boolean(),
        }),
      ),
    },
    annotations: READ_ONLY,
    narrow: 'the project list is too long to show',
    run: async () => ({
      data: {
        projects: (await ctx.engine.projects.list(ctx.principal))
          .filter((p) => p.hasAccess)
          .map((p) => ({ id: p.id, title: p.label, admin: p.isAdmin, mdAdmin: p.isMdAdmin })),
      },
    }),
  });
}
