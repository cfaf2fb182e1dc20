// What create_project, list_warehouse_tables and map_tables share. Each tool is the REST
// call's engine function (POST /projects + credentials + PUT /projects/{p}, GET
// data/guesstable, POST kodiak/transform/execute with source_type "table"), with the same
// permissions and checks; the tools only translate.
import { z } from 'zod';
import type { ProjectActor } from '../../engine/access/actor.js';
import { invalid } from '../../engine/errors.js';
import type { LoadJobResult } from '../../contract/jobs.js';
import { FINAL_STATUSES, type Job } from '../../engine/jobs/jobs.js';

export const warehouseArg = z
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

export const tableShape = z.object({
  table: z.string().describe('schema.table, as map_tables takes it'),
  kind: z.enum(['table', 'view']),
  readable: z.boolean().describe('Whether the login may read it; only readable ones map'),
  dataset: z.string().describe('The dataset name map_tables gives it by default'),
  mapped: z.string().nullable().describe('The dataset it is mapped as, or null'),
  description: z.string().nullable().describe("The table's COMMENT ON text, or null"),
});

export const mapShape = {
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
  suggestedMetrics: z
    .array(
      z.object({
        title: z.string(),
        aql: z.string(),
        description: z.string(),
        format: z.string(),
      }),
    )
    .describe(
      'Proposed, not created: counts of fact tables, sums of money-like facts; create those you want with create_metric (these fields as its arguments)',
    ),
  calendar: z
    .object({ jobId: z.string(), status: z.string(), message: z.string().optional() })
    .optional()
    .describe('The calendar load a mapping with calendar: true started'),
  next: z.string().describe('What to do now'),
};
type MapOut = z.infer<z.ZodObject<typeof mapShape>>;

interface PlannedTable {
  name: string;
  schema: string;
  table: string;
}

/** A table-mapping job as the tool answers it; a failed one is an error the model can act on. */
export function mapOut(a: ProjectActor, job: Job, calendar?: Job): MapOut {
  if (job.status === 'ERROR')
    throw invalid(`mapping failed (job ${job.id}): ${job.message ?? 'no reason given'}`);
  if (job.status === 'CANCELLED') throw invalid(`mapping job ${job.id} was cancelled`);
  const plan = (job.params as { clusters?: PlannedTable[] }).clusters ?? [];
  const result = job.result as Partial<LoadJobResult> | undefined;
  const rows = result?.clusters;
  const suggestedMetrics = result?.suggestedMetrics ?? [];
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
    suggestedMetrics,
    ...(calendar
      ? {
          calendar: {
            jobId: calendar.id,
            status: calendar.status,
            ...(calendar.message ? { message: calendar.message } : {}),
          },
        }
      : {}),
    next: done
      ? `get_model shows the new attributes, labels, facts and references; ${suggestedMetrics.length ? 'create the suggestedMetrics you want with create_metric; ' : ''}then run_aql`
      : 'still mapping: call map_tables again with only { project, jobId }',
  };
}
