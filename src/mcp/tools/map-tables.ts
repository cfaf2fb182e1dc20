// The map_tables tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ProjectActor } from '../../engine/access/actor.js';
import { MAPPED_COLUMNS, MAPPED_DESCRIPTION } from '../../engine/data/loads.js';
import { invalid } from '../../engine/errors.js';
import type { Job } from '../../engine/jobs/jobs.js';
import { datasetNameOf } from '../../engine/warehouse/catalog.js';
import type { TableCluster } from '../../engine/warehouse/mapping.js';
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
              description: MAPPED_DESCRIPTION.optional().describe(
                "What one row is; default the table's COMMENT ON text",
              ),
              columns: MAPPED_COLUMNS.optional().describe(
                'Per column name of the table: a title and description that win over the guessed ones',
              ),
            })
            .strict(),
        )
        .min(1)
        .max(100)
        .optional()
        .describe(
          'The tables and views to map together (references between them are kept). Titles are the column names in words, unique in the project ("Order ID", "Unit Price", "Customer Name"); a name/title column labels its table\'s key; COMMENT ON texts become descriptions',
        ),
      calendar: z
        .boolean()
        .optional()
        .describe(
          'Link date columns to the calendar (Year, Quarter, Month Name, Week…); when the project has no calendar dataset, its rows are loaded into the schema (the login needs CREATE there)',
        ),
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
    run: async ({ project, tables, calendar, jobId }, extra) => {
      const a = await actorFor(ctx, project);
      if (jobId !== undefined) {
        if (tables || calendar !== undefined)
          throw invalid('pass either tables (to map) or jobId (to wait), not both');
        const job = await ctx.engine.jobs.get(a, jobId);
        if (
          job.type !== 'transform' ||
          (job.params as { source_type?: string }).source_type !== 'table'
        )
          throw invalid(`job ${jobId} is not a table mapping`, { jobId });
        return { data: await mapped(a, await waitForJob(ctx, a, job, extra, 'mapping')) };
      }
      if (!tables) throw invalid('pass tables: [{ table: "schema.table" }, …] to map');
      const clusters: Record<string, TableCluster> = {};
      for (const t of tables) {
        const name = t.dataset ?? datasetNameOf(t.table.slice(t.table.indexOf('.') + 1));
        if (clusters[name])
          throw invalid(`two tables would be mapped as dataset "${name}"; name one with dataset`, {
            dataset: name,
          });
        clusters[name] = {
          source_type: 'table',
          source: t.table,
          ...(t.description !== undefined ? { description: t.description } : {}),
          ...(t.columns ? { columns: t.columns } : {}),
        };
      }
      const job = await ctx.engine.loads.start(a, {
        type: 'cluster',
        clusters,
        ...(calendar !== undefined ? { calendar } : {}),
      });
      return { data: await mapped(a, await waitForJob(ctx, a, job, extra, 'mapping')) };
    },
  });

  /** The mapping's answer, once the calendar it loads (if any) is in place too. */
  async function mapped(a: ProjectActor, job: Job) {
    const calendarJobId = (job.result as { calendarJobId?: string } | undefined)?.calendarJobId;
    const calendarJob = calendarJobId
      ? await waitForJob(ctx, a, await ctx.engine.jobs.get(a, calendarJobId), undefined, 'calendar')
      : undefined;
    return mapOut(a, job, calendarJob);
  }
}
