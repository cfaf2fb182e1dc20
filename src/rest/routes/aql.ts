// Queries: execute (a job plus the link to its data), the data itself, and explain.
import { z } from 'zod';
import type { QueryAnswer, QueryData } from '../../contract/queries.js';
import type { QueryResult } from '../../engine/aql/service.js';
import { FINAL_STATUSES, type Job } from '../../engine/jobs/jobs.js';
import { parseInput } from '../../engine/validate.js';
import { flatTable, jsonRows, toValues } from '../../engine/aql/format.js';
import { HttpError } from '../../http/errors.js';
import { enc, href, link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { addJobLinks, jobPath } from './jobs.js';
import { untilCallerGone } from '../../http/caller-gone.js';

// An empty query is the engine's to reject: its 400 says where (line 1, column 1) like any other.
const bodySchema = z.object({ aql: z.string() }).strict();

const dataPath = (projectId: string, jobId: string) =>
  `${projectPath(projectId)}/app/aql/data/${enc(jobId)}`;

addJobLinks((job) =>
  job.type === 'report'
    ? [link('data.created', dataPath(job.projectId, job.id), { id: job.id })]
    : [],
);

/** The longest wait a client may ask for (seconds). */
const MAX_WAIT_S = 60;

/**
 * `wait=<seconds>` of a Prefer header (RFC 7240: comma-separated preferences, names in any
 * case, values possibly quoted), capped at 60; null when absent or not a whole number —
 * a preference a server does not understand is ignored.
 */
export function preferredWait(header: string | string[] | undefined): number | null {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return null;
  for (const part of text.split(',')) {
    const m = /^\s*wait\s*=\s*"?(\d{1,9})"?\s*(?:;.*)?$/i.exec(part);
    if (m) return Math.min(Number(m[1]), MAX_WAIT_S);
  }
  return null;
}

/** The links of a query's job and data (and its status), as execute answers them. */
function started(job: Job, title: string) {
  const data = dataPath(job.projectId, job.id);
  return {
    title,
    body: {
      link: [
        link('scache.created', jobPath(job.projectId, job.id), { id: job.id }),
        link('data.created', data, { id: job.id }),
      ],
      status: job.status,
    } satisfies QueryAnswer,
    headers: { Location: href(data) } as Record<string, string>,
  };
}

/** A final job that did not end OK answers as its data link would: 400 or 409. */
function failed(job: Job): void {
  if (job.status === 'ERROR')
    throw new HttpError(400, job.message ?? 'the query failed', { id: job.id, status: job.status });
  if (job.status === 'CANCELLED')
    throw new HttpError(409, 'the query was cancelled; run it again', {
      id: job.id,
      status: job.status,
    });
}

function resultBody(r: QueryResult): { data: QueryData } {
  return {
    data: {
      values: toValues(r.rows),
      visual: { column: r.columns.map((c) => ({ title: c.title })) },
      // Only on 0-row answers: text values that match no member, and the closest.
      ...(r.warnings ? { warnings: r.warnings } : {}),
    },
  };
}

/**
 * CSV/TSV print the cells' text; XLSX writes number columns as numbers (jsonCell), dates as
 * dates and measures in a number format (shared/xlsx.ts). Made only when a table format is
 * asked for.
 */
const tabularOf = (r: QueryResult) => () => {
  // Nested columns (NEST) flattened: a row per nested row, its own cells repeated.
  const t = flatTable(r.columns, r.rows);
  return {
    columns: t.columns.map((c) => c.title),
    rows: t.rows,
    sheet: jsonRows(t.columns, t.rows),
    types: t.columns,
  };
};

export const aqlRoutes: RouteDef[] = [
  {
    group: 'Queries',
    path: '/projects/:project/app/aql/execute',
    ops: {
      POST: {
        access: 'member',
        description:
          'Run `{ aql }` → links `scache.created` (the job) and `data.created` (its result). 400 at once for invalid AQL.',
        handler: async ({ engine, actor, body, req, res }) => {
          const { aql } = parseInput(bodySchema, body, 'query');
          const wait = preferredWait(req.headers.prefer);
          if (wait === null) {
            const job = await engine.aql.execute(actor, aql);
            return { status: 201, ...started(job, 'Query started') };
          }
          // Prefer: wait=<s> (RFC 7240): answer inline when the job ends within the wait.
          const { job, result } = await engine.aql.executeAndWait(
            actor,
            aql,
            wait * 1000,
            untilCallerGone(res),
          );
          const applied = { 'Preference-Applied': `wait=${wait}` };
          if (!FINAL_STATUSES.includes(job.status)) {
            const s = started(job, 'Query running');
            return { status: 202, ...s, headers: { ...s.headers, ...applied } };
          }
          failed(job);
          const s = started(job, 'Query result');
          return {
            status: 200,
            ...s,
            body: { ...resultBody(result!), ...s.body },
            headers: { ...s.headers, ...applied },
            tabular: tabularOf(result!),
            filename: 'result',
          };
        },
      },
    },
  },
  {
    group: 'Queries',
    path: '/projects/:project/app/aql/data/:jobId',
    ops: {
      GET: {
        access: 'member',
        description:
          'The result `{ data: { values, visual: { column: [{ title }] } } }` (CSV/TSV too); 202 while the job runs.',
        handler: async ({ engine, actor, params }) => {
          const job = await engine.jobs.get(actor, params.jobId!);
          if (job.type !== 'report')
            throw new HttpError(404, `job "${job.id}" is not a query`, { id: job.id });
          if (!FINAL_STATUSES.includes(job.status)) {
            return {
              status: 202,
              title: 'Query running',
              // A poller that asks for CSV/TSV gets the 202 too (a one-line status table).
              tabular: { columns: ['status', 'job'], rows: [[job.status, job.id]] },
              body: {
                status: job.status,
                link: [link('scache', jobPath(actor.projectId, job.id), { id: job.id })],
              } satisfies QueryAnswer,
            };
          }
          failed(job);
          const r = await engine.aql.result(actor, job);
          return {
            title: 'Query result',
            body: resultBody(r),
            tabular: tabularOf(r),
            filename: 'result',
          };
        },
      },
    },
  },
  {
    group: 'Queries',
    path: '/projects/:project/app/aql/explain',
    ops: {
      POST: {
        access: 'member',
        description:
          '`{ aql }` → the objects it uses, the join paths of each aggregation, and the SQL (not run).',
        handler: async ({ engine, actor, body }) => {
          const { aql } = parseInput(bodySchema, body, 'query');
          return { title: 'Query plan', body: { explain: await engine.aql.explain(actor, aql) } };
        },
      },
    },
  },
];
