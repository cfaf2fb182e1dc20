// The map_tables tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { invalid } from '../../engine/errors.js';
import { datasetNameOf } from '../../engine/warehouse/catalog.js';
import { waitForJob } from '../wait.js';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { mapShape, mapOut } from './warehouse-views.js';

export function registerMapTables(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'map_tables',
    input: {
      project: projectArg,
      tables: z
        .array(
          z
            .object({
              table: z.string().min(1).describe('schema.table (or table, in the bound schema)'),
              dataset: z
                .string()
                .optional()
                .describe('Dataset name; default from the table name (list_warehouse_tables)'),
            })
            .strict(),
        )
        .min(1)
        .max(100)
        .optional()
        .describe('The tables and views to map together (references between them are kept)'),
      jobId: z.string().optional().describe('A mapping still RUNNING: wait for it again'),
    },
    output: mapShape,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    },
    narrow: 'too many tables to show; map fewer at once',
    run: async ({ project, tables, jobId }, extra) => {
      const a = await actorFor(ctx, project);
      if (jobId !== undefined) {
        if (tables) throw invalid('pass either tables (to map) or jobId (to wait), not both');
        const job = await ctx.engine.jobs.get(a, jobId);
        if (
          job.type !== 'transform' ||
          (job.params as { source_type?: string }).source_type !== 'table'
        )
          throw invalid(`job ${jobId} is not a table mapping`, { jobId });
        return { data: mapOut(a, await waitForJob(ctx, a, job, extra, 'mapping')) };
      }
      if (!tables) throw invalid('pass tables: [{ table: "schema.table" }, …] to map');
      const clusters: Record<string, { source_type: 'table'; source: string }> = {};
      for (const t of tables) {
        const name = t.dataset ?? datasetNameOf(t.table.slice(t.table.indexOf('.') + 1));
        if (clusters[name])
          throw invalid(`two tables would be mapped as dataset "${name}"; name one with dataset`, {
            dataset: name,
          });
        clusters[name] = { source_type: 'table', source: t.table };
      }
      const job = await ctx.engine.loads.start(a, { type: 'cluster', clusters });
      return { data: mapOut(a, await waitForJob(ctx, a, job, extra, 'mapping')) };
    },
  });
}
