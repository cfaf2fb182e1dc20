// The get_model tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { column, saved, catalogOut } from './model-views.js';

export function registerGetModel(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'get_model',
    input: { project: projectArg, ...TOOL_INPUTS.get_model('mcp') },
    output: {
      datasets: z.array(
        z.object({
          name: z.string(),
          description: z.string().optional().describe('What one row is'),
          rows: z.number().nullable().describe('null under a row-level filter'),
          primaryKey: z.string().nullable(),
          references: z.array(z.object({ column: z.string(), dataset: z.string() })),
          columns: z.array(column),
          warning: z
            .string()
            .optional()
            .describe('A warehouse table that could not be read (changed outside Ursa)'),
        }),
      ),
      metrics: z.array(saved),
      filters: z.array(saved),
      total: z.number().describe('Datasets matching, over all pages'),
      nextCursor: z.string().nullable(),
    },
    annotations: READ_ONLY,
    narrow: 'pass search or dataset, or a smaller limit',
    run: async ({ project, search, dataset, cursor, limit }) => {
      const a = await actorFor(ctx, project);
      const page = async (n?: number) =>
        catalogOut(await ctx.engine.catalog.catalog(a, { search, dataset, cursor, limit: n }));
      return {
        data: await page(limit),
        // Fewer datasets per page: the cursor then continues where this page ends.
        shrink: async (d) =>
          d.datasets.length > 1 ? page(Math.ceil(d.datasets.length / 2)) : null,
      };
    },
  });
}
