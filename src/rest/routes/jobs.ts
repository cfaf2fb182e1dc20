// Jobs (scache): list, poll, cancel.
import type { JobStarted, JobView } from '../../contract/jobs.js';
import { jobPath } from '../../contract/urls.js';
import { jsonAnswer } from '../../engine/ai/json-answer.js';
import type { AiAnswer } from '../../engine/ai/types.js';
import type { Job } from '../../engine/jobs/jobs.js';
import { pagingSchema, parseInput } from '../../engine/validate.js';
import { href, type Link, link, paging, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

export { jobPath };

/** Areas add links to their jobs (e.g. a query job links its result). */
const jobLinkMakers: Array<(job: Job) => Link[]> = [];
export function addJobLinks(make: (job: Job) => Link[]): void {
  jobLinkMakers.push(make);
}

/** A job as the API returns it: flat, with its links (API-DECISIONS "Jobs"). */
export function jobView(job: Job): JobView {
  const { projectId, ...rest } = job;
  return {
    ...rest,
    // An answer's result rows as every JSON rendering of typed rows gives them (an `ai` job
    // that ended without an answer keeps what it holds).
    ...(job.type === 'ai' && Array.isArray((job.result as AiAnswer | undefined)?.queries)
      ? { result: jsonAnswer(job.result as AiAnswer) }
      : {}),
    link: [
      link('self', jobPath(projectId, job.id), { id: job.id }),
      ...jobLinkMakers.flatMap((m) => m(job)),
    ],
  };
}

/** The reply of an operation that started a job: `{ link: [{ rel: 'scache', id, href }] }`. */
export function jobStarted(job: Job) {
  return {
    status: 202,
    title: 'Job started',
    body: {
      link: [link('scache', jobPath(job.projectId, job.id), { id: job.id })],
    } satisfies JobStarted,
    headers: { Location: href(jobPath(job.projectId, job.id)) },
  };
}

export const jobRoutes: RouteDef[] = [
  {
    group: 'Jobs',
    path: '/projects/:project/kodiak/scache/obj',
    ops: {
      GET: {
        access: 'member',
        description:
          'Jobs, newest first; filter by `type` (transform, flow, report, ai, delivery) and `status` (comma lists).',
        handler: async ({ engine, actor, query }) => {
          const page = parseInput(pagingSchema, query, 'paging');
          const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
          const { items, total } = await engine.jobs.list(actor, {
            type: str(query.type),
            status: str(query.status),
            ...page,
          });
          const views = items.map(jobView);
          const pages = paging(`${projectPath(actor.projectId)}/kodiak/scache/obj`, page, total);
          // The next page must keep the filters of this one.
          const filters = new URLSearchParams();
          for (const k of ['type', 'status']) if (str(query[k])) filters.set(k, str(query[k])!);
          if (pages.next && filters.toString()) pages.next += `&${filters.toString()}`;
          return {
            title: 'Jobs',
            body: { jobs: views, paging: pages },
            tabular: items.map(({ params: _p, result: _r, progress, ...j }) => ({
              ...j,
              progress: progress ? JSON.stringify(progress) : '',
            })),
            filename: 'jobs',
          };
        },
      },
    },
  },
  {
    group: 'Jobs',
    path: '/projects/:project/kodiak/scache/obj/:jobId',
    ops: {
      GET: {
        access: 'member',
        description: 'One job; poll until status is OK, ERROR or CANCELLED.',
        handler: async ({ engine, actor, params }) => ({
          title: 'Job',
          body: jobView(await engine.jobs.get(actor, params.jobId!)),
        }),
      },
    },
  },
  {
    group: 'Jobs',
    path: '/projects/:project/kodiak/scache/obj/:jobId/cancel',
    ops: {
      POST: {
        access: 'member',
        description: 'Cancel your job (MD Admins: any job); answers the job, which ends CANCELLED.',
        handler: async ({ engine, actor, params }) => ({
          status: 202,
          title: 'Job',
          body: jobView(await engine.jobs.cancel(actor, params.jobId!)),
        }),
      },
    },
  },
];
