// What run_aql, explain_aql, run_report and ask share: the result shape (typed cells, paging
// by an opaque cursor bound to the query), running a query as a report job waited for up to
// URSA_MCP_WAIT_MS, and the resource URI of a result.
import { z } from 'zod';
import type { ResourceLink } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { invalid } from '../../engine/errors.js';
import { TOOL_LIMITS } from '../../engine/tools/catalog.js';
import { EXACT_INPUT, TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { FINAL_STATUSES, type Job } from '../../engine/jobs/jobs.js';
import type { Reply } from '../limits.js';
import { waitForJob, withProgress, type ToolExtra } from '../wait.js';
import { jsonRows } from '../../engine/aql/format.js';
import type { QueryResult } from '../../engine/aql/service.js';
import { type McpContext } from './common.js';

export const DEFAULT_ROWS = TOOL_LIMITS.mcp.defaultRows;
export const MAX_ROWS = TOOL_LIMITS.mcp.maxRows;

export const resultUri = (project: string, jobId: string) =>
  `ursa://projects/${encodeURIComponent(project)}/results/${encodeURIComponent(jobId)}.csv`;

// ---- cursor: which job's result, from which row, how many per page ----

interface Cursor {
  p: string;
  j: string;
  o: number;
  l: number;
  /** The first page asked for exact cells: the next pages are exact too. */
  x?: boolean;
}

const exactMark = (exact: boolean) => (exact ? { x: true } : {});

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

export function decodeCursor(text: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if (
      typeof c.p === 'string' &&
      typeof c.j === 'string' &&
      Number.isInteger(c.o) &&
      c.o >= 0 &&
      Number.isInteger(c.l) &&
      c.l >= 1 &&
      c.l <= MAX_ROWS &&
      (c.x === undefined || typeof c.x === 'boolean')
    )
      return c;
  } catch {
    // falls through to the error below
  }
  throw invalid(
    'invalid cursor; pass the cursor of a previous run_aql or run_report answer unchanged',
  );
}

/** A query quoted in an error, cut to a readable length. */
export const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

// ---- results ----

/** A result cell (aql/format.ts jsonCell): numbers as JSON numbers, exact text beyond them. */
export const cellShape = z.union([
  z.string(),
  z.number(),
  z.null(),
  // NEST(SELECT …): the nested rows of the result row.
  z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))),
]);
export const CELLS_NOTE =
  'Cells in column order: integer and number columns as JSON numbers on every project (null when empty; fractions rounded to 15 significant digits unless exact; a whole number beyond 2^53 stays its exact text), other columns as text';

/** The `exact` input of every tool answering cells (the catalog's, as run_aql has it). */
export const exactArg = EXACT_INPUT;

export const resultShape = {
  status: z
    .enum(['OK', 'RUNNING'])
    .describe('RUNNING: the query is still running; call run_aql with cursor for its rows'),
  project: z.string(),
  jobId: z.string(),
  columns: z.array(z.object({ title: z.string(), dataType: z.string() })),
  rows: z.array(z.array(cellShape)).describe(CELLS_NOTE),
  offset: z.number().describe('Index of the first row shown'),
  totalRows: z.number().nullable().describe('null while RUNNING'),
  truncated: z.boolean().describe('More rows follow (or are coming); pass cursor to run_aql'),
  cursor: z.string().nullable(),
  csv: z.string().describe('Resource URI of the result as CSV (paged, 100 KB per read)'),
  warnings: z
    .array(z.string())
    .optional()
    .describe('Only when no rows: WHERE values that match no member, with the closest members'),
};
export type ResultOut = z.infer<z.ZodObject<typeof resultShape>>;

/** A query not finished within the wait: no rows yet, the cursor collects them. */
function running(
  a: ProjectActor,
  job: Job,
  offset: number,
  limit: number,
  exact: boolean,
): Reply<ResultOut> {
  const columns = (job.params as { columns?: { title: string; dataType: string }[] }).columns;
  return {
    data: {
      status: 'RUNNING',
      project: a.projectId,
      jobId: job.id,
      columns: (columns ?? []).map((c) => ({ title: c.title, dataType: c.dataType })),
      rows: [],
      offset,
      totalRows: null,
      truncated: true,
      cursor: encodeCursor({ p: a.projectId, j: job.id, o: offset, l: limit, ...exactMark(exact) }),
      csv: resultUri(a.projectId, job.id),
    },
  };
}

/** Rows offset… of a report job once finished, limited, with the cursor to the rest. */
export async function page(
  ctx: McpContext,
  a: ProjectActor,
  job: Job,
  offset: number,
  limit: number,
  extra: ToolExtra,
  /** The result, when the caller already has it. */
  known?: QueryResult,
  /** Fractions as exact text when no JSON number holds them (jsonCell). */
  exact = false,
): Promise<Reply<ResultOut>> {
  const done = known ? job : await waitForJob(ctx, a, job, extra, 'the query');
  if (!FINAL_STATUSES.includes(done.status)) return running(a, done, offset, limit, exact);
  if (done.status === 'ERROR') throw invalid(`the query failed: ${done.message ?? 'no reason'}`);
  if (done.status === 'CANCELLED') throw invalid('the query was cancelled; run it again');
  const r = known ?? (await ctx.engine.aql.result(a, done));
  const total = r.rows.length;
  const csv = resultUri(a.projectId, done.id);
  const shape = (n: number): ResultOut => {
    const rows = jsonRows(r.columns, r.rows.slice(offset, offset + n), exact);
    const next = offset + rows.length;
    return {
      status: 'OK',
      project: a.projectId,
      jobId: done.id,
      columns: r.columns.map((c) => ({ title: c.title, dataType: c.dataType })),
      rows,
      offset,
      totalRows: total,
      truncated: next < total,
      cursor:
        next < total
          ? encodeCursor({ p: a.projectId, j: done.id, o: next, l: limit, ...exactMark(exact) })
          : null,
      csv,
      // No rows: text values in WHERE that match no member, with the closest members.
      ...(r.warnings ? { warnings: r.warnings.map((w) => w.message) } : {}),
    };
  };
  const link: ResourceLink = {
    type: 'resource_link',
    uri: csv,
    name: `${done.id}.csv`,
    title: 'Full result (CSV)',
    mimeType: 'text/csv',
  };
  return {
    data: shape(limit),
    links: [link],
    shrink: (d) => (d.rows.length > 1 ? shape(Math.floor(d.rows.length / 2)) : null),
  };
}

export async function execute(
  ctx: McpContext,
  a: ProjectActor,
  aql: string,
  limit: number,
  extra: ToolExtra,
  exact = false,
) {
  // The engine's own wait (as REST's Prefer: wait), with progress notifications meanwhile.
  const { job, result } = await withProgress(extra, 'the query', (started) =>
    ctx.engine.aql.executeAndWait(a, aql, ctx.engine.config.mcpWaitMs, extra.signal, started),
  );
  return page(ctx, a, job, 0, limit, extra, result, exact);
}

export const RUN_AQL = TOOL_INPUTS.run_aql('mcp');

export const RESULT_NARROW =
  'even one row is too large; select fewer or shorter columns (or read the csv resource)';
