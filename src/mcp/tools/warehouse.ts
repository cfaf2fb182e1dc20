// A warehouse project from zero for assistants: create a project (optionally bound to a
// PostgreSQL schema), list the tables of the bound schema, map some as datasets. Each tool is
// the REST call's engine function (POST /projects + credentials + PUT /projects/{p},
// GET data/guesstable, POST kodiak/transform/execute with source_type "table"), with the same
// permissions and checks; these tools only translate.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { invalid } from '../../engine/errors.js';
import { FINAL_STATUSES, type Job } from '../../engine/jobs/jobs.js';
import { datasetNameOf } from '../../engine/warehouse/catalog.js';
import { createProject } from '../../engine/warehouse/new-project.js';
import { waitForJob } from '../wait.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

const warehouseArg = z
  .object({
    host: z.string().min(1).max(255).describe('PostgreSQL server host name or address'),
    port: z.number().int().min(1).max(65535).optional().describe('Default 5432'),
    database: z.string().min(1).max(255),
    user: z
      .string()
      .min(1)
      .max(255)
      .describe('A login that may read the schema (read-only is best)'),
    password: z.string().min(1).max(10_000).describe('Stored encrypted; never shown again'),
    schema: z.string().min(1).max(63).describe('The schema whose tables and views are mapped'),
    sslmode: z.enum(['disable', 'require', 'verify-full']).optional(),
    replicas: z
      .array(z.string())
      .max(16)
      .optional()
      .describe('Read replicas as host:port; queries go to them in turn'),
  })
  .strict();

const tableShape = z.object({
  table: z.string().describe('schema.table, as map_tables takes it'),
  kind: z.enum(['table', 'view']),
  readable: z.boolean().describe('Whether the login may read it; only readable ones map'),
  dataset: z.string().describe('The dataset name map_tables gives it by default'),
  mapped: z.string().nullable().describe('The dataset it is mapped as, or null'),
});

const mapShape = {
  project: z.string(),
  jobId: z.string(),
  status: z
    .enum(['PREPARED', 'EXPANDING', 'RUNNING', 'OK', 'ERROR', 'CANCELLED'])
    .describe('RUNNING (or PREPARED): call map_tables again with only jobId to wait for it'),
  datasets: z
    .array(
      z.object({
        dataset: z.string(),
        table: z.string(),
        rows: z
          .number()
          .nullable()
          .describe(
            "PostgreSQL's count or estimate; null while running, and under a row-level filter (it counts every row)",
          ),
      }),
    )
    .describe('Each table and the dataset it is mapped as'),
  next: z.string().describe('What to do now'),
};
type MapOut = z.infer<z.ZodObject<typeof mapShape>>;

interface PlannedTable {
  name: string;
  schema: string;
  table: string;
}

/** A table-mapping job as the tool answers it; a failed one is an error the model can act on. */
function mapOut(a: ProjectActor, job: Job): MapOut {
  if (job.status === 'ERROR')
    throw invalid(`mapping failed (job ${job.id}): ${job.message ?? 'no reason given'}`);
  if (job.status === 'CANCELLED') throw invalid(`mapping job ${job.id} was cancelled`);
  const plan = (job.params as { clusters?: PlannedTable[] }).clusters ?? [];
  const rows = (job.result as { clusters?: Record<string, { rows: number }> } | undefined)
    ?.clusters;
  const done = FINAL_STATUSES.includes(job.status);
  return {
    project: a.projectId,
    jobId: job.id,
    status: job.status,
    datasets: plan.map((c) => ({
      dataset: c.name,
      table: `${c.schema}.${c.table}`,
      rows: rows?.[c.name]?.rows ?? null,
    })),
    next: done
      ? 'get_model shows the new attributes, facts and references; then run_aql'
      : 'still mapping: call map_tables again with only { project, jobId }',
  };
}

/** create_project: for organization administrators (the engine checks the organization). */
export function registerCreateProjectTool(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'create_project',
    input: {
      id: z
        .string()
        .describe('Requested id: 1-40 lowercase letters, digits, "-" or "_"; a suffix is added'),
      title: z.string().min(1).max(200),
      description: z.string().max(5000).optional(),
      organization: z
        .string()
        .optional()
        .describe('Organization id; needed only when you administer several'),
      warehouse: warehouseArg
        .optional()
        .describe(
          'Bind the project to a PostgreSQL schema: its tables are then mapped (map_tables) and queried where they live, nothing is copied',
        ),
    },
    output: {
      project: z.string().describe('The id to pass as "project" from now on'),
      title: z.string(),
      warehouse: z.object({ credentials: z.string(), schema: z.string() }).nullable(),
      next: z.string(),
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    narrow: 'the project is too large to show; read it with list_projects',
    run: async ({ id, title, description, organization, warehouse }) => {
      const created = await createProject(
        {
          projects: ctx.engine.projects,
          objects: ctx.engine.objects,
          actor: (p, projectId) => ctx.engine.actor(p, projectId),
        },
        ctx.principal,
        {
          id,
          label: title,
          ...(description !== undefined ? { desc: description } : {}),
          ...(organization !== undefined ? { entity: organization } : {}),
        },
        warehouse,
      );
      return {
        data: {
          project: created.id,
          title: created.label,
          warehouse: created.warehouse,
          next: created.warehouse
            ? 'list_warehouse_tables shows what can be mapped; map_tables maps them'
            : 'the project is empty: load data over the REST API or the web app',
        },
      };
    },
  });
}

/** The catalog and mapping tools: MD Admin in the project (the engine checks it). */
export function registerWarehouseTools(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_warehouse_tables',
    input: { project: projectArg },
    output: { project: z.string(), schema: z.string(), tables: z.array(tableShape) },
    annotations: READ_ONLY,
    narrow: 'the schema has too many tables to show',
    run: async ({ project }) => {
      const a = await actorFor(ctx, project);
      const tables = await ctx.engine.warehouse.tables(a);
      const schema = (await ctx.engine.warehouse.binding(a.projectId))?.schema ?? '';
      return {
        data: {
          project: a.projectId,
          schema,
          tables: tables.map((t) => ({
            table: t.ident,
            kind: t.kind,
            readable: t.readable,
            dataset: t.dataset,
            mapped: t.mapped,
          })),
        },
      };
    },
  });

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
