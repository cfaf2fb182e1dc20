// The list_reports tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

export function registerListReports(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_reports',
    input: {
      project: projectArg,
      search: z
        .string()
        .optional()
        .describe('Only reports whose id, title, description or tags contain this'),
      limit: z.number().int().min(1).max(200).optional().describe('Default 50'),
      offset: z.number().int().min(0).optional(),
    },
    output: {
      reports: z.array(
        z.object({ id: z.string(), title: z.string(), description: z.string(), aql: z.string() }),
      ),
      total: z.number(),
      nextOffset: z.number().nullable(),
    },
    annotations: READ_ONLY,
    narrow: 'use a smaller limit or a search',
    run: async ({ project, search, limit, offset }) => {
      const r = await ctx.engine.objects.list(await actorFor(ctx, project), {
        rel: 'object.report',
        query: search,
        limit: limit ?? 50,
        offset: offset ?? 0,
      });
      const shape = (n: number) => {
        const items = r.items.slice(0, n);
        const next = r.offset + items.length;
        return {
          reports: items.map((o) => ({
            id: o.ident,
            title: o.name,
            description: o.description,
            aql: String(o.def.aql ?? ''),
          })),
          total: r.total,
          nextOffset: next < r.total ? next : null,
        };
      };
      return {
        data: shape(r.items.length),
        shrink: (d) => (d.reports.length > 1 ? shape(Math.ceil(d.reports.length / 2)) : null),
      };
    },
  });
}
