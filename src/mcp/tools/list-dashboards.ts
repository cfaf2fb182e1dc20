// The list_dashboards tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { pageUrl } from './dashboard-views.js';

export function registerListDashboards(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_dashboards',
    input: { project: projectArg },
    output: {
      dashboards: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          description: z.string(),
          items: z.number().describe('How many items it lays out'),
          url: z.string().describe('The dashboard as a web page'),
        }),
      ),
      total: z.number(),
      truncated: z.boolean().describe('Only the first dashboards are shown'),
    },
    annotations: READ_ONLY,
    narrow: 'the dashboards do not fit one answer',
    run: async ({ project }) => {
      const a = await actorFor(ctx, project);
      const all = (await ctx.engine.reports.list(a, 'dashboard')).map((d) => ({
        id: d.ident,
        title: d.name,
        description: d.description,
        items: ((d.def as { items?: unknown[] }).items ?? []).length,
        url: pageUrl(ctx, a, 'dashboards', d.ident),
      }));
      const shape = (n: number) => ({
        dashboards: all.slice(0, n),
        total: all.length,
        truncated: n < all.length,
      });
      return {
        data: shape(all.length),
        shrink: (d) => (d.dashboards.length > 1 ? shape(Math.ceil(d.dashboards.length / 2)) : null),
      };
    },
  });
}
