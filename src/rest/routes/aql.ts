// Queries: execute (a job plus the link to its data), the data itself, and explain.
import { z } from 'zod';
import { FINAL_STATUSES } from '../../engine/jobs/jobs.js';
import { parseInput } from '../../engine/validate.js';
import { toValues } from '../../engine/aql/format.js';
import { HttpError } from '../errors.js';
import { enc, link, projectPath } from '../links.js';
import type { RouteDef } from '../router.js';
import { addJobLinks, jobPath } from './jobs.js';

// An empty query is the engine's to reject: its 400 says where (line 1, column 1) like any other.
const bodySchema = z.object({ aql: z.string() }).strict();

const dataPath = (projectId: string, jobId: string) =>
  `${projectPath(projectId)}/app/aql/data/${enc(jobId)}`;

addJobLinks((job) =>
  job.type === 'report'
    ? [link('data.created', dataPath(job.projectId, job.id), { id: job.id })]
    : [],
);

export const aqlRoutes: RouteDef[] = [
  {
    group: 'Queries',
    path: '/projects/:project/app/aql/execute',
    ops: {
      POST: {
        access: 'member',
        description:
          'Run `{ aql }` → links `scache.created` (the job) and `data.created` (its result). 400 at once for invalid AQL.',
        handler: ({ engine, actor, body }) => {
          const { aql } = parseInput(bodySchema, body, 'query');
          const job = engine.aql.execute(actor, aql);
          const data = dataPath(actor.projectId, job.id);
          return {
            status: 201,
            title: 'Query started',
            body: {
              link: [
                link('scache.created', jobPath(actor.projectId, job.id), { id: job.id }),
                link('data.created', data, { id: job.id }),
              ],
              status: job.status,
            },
            headers: { Location: `/api/v1${data}` },
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
          const job = engine.jobs.get(actor, params.jobId!);
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
              },
            };
          }
          if (job.status === 'ERROR')
            throw new HttpError(400, job.message ?? 'the query failed', {
              id: job.id,
              status: job.status,
            });
          if (job.status === 'CANCELLED')
            throw new HttpError(409, 'the query was cancelled; run it again', {
              id: job.id,
              status: job.status,
            });
          const r = await engine.aql.result(actor, job);
          return {
            title: 'Query result',
            body: {
              data: {
                values: toValues(r.rows),
                visual: { column: r.columns.map((c) => ({ title: c.title })) },
                // Only on 0-row answers: text values that match no member, and the closest.
                ...(r.warnings ? { warnings: r.warnings } : {}),
              },
            },
            tabular: { columns: r.columns.map((c) => c.title), rows: r.rows },
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
        handler: ({ engine, actor, body }) => {
          const { aql } = parseInput(bodySchema, body, 'query');
          return { title: 'Query plan', body: { explain: engine.aql.explain(actor, aql) } };
        },
      },
    },
  },
];
