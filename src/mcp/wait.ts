// Tool calls that wait for a job (run_aql, run_report, ask) wait at most URSA_MCP_WAIT_MS
// (45 s: MCP clients give up on a request after 60 s), then answer RUNNING with a handle to
// collect the result by calling the tool again. Meanwhile a client that sent a progressToken
// gets notifications/progress every few seconds (clients that reset their timeout on progress
// then keep waiting). A cancelled request stops waiting; the job runs on.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../engine/access/actor.js';
import { FINAL_STATUSES, type Job } from '../engine/jobs/jobs.js';
import type { McpContext } from './context.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const PROGRESS_EVERY_MS = 5_000;

/**
 * Sends notifications/progress every few seconds while `work` runs, for a client that sent a
 * progressToken (clients that reset their timeout on progress then keep waiting).
 */
export async function withProgress<T>(
  extra: ToolExtra | undefined,
  what: string,
  work: (started: (job: Job) => void) => Promise<T>,
): Promise<T> {
  const token = extra?._meta?.progressToken;
  const began = Date.now();
  let last = -1;
  let jobId: string | null = null;
  const progress = () => {
    if (token === undefined || !extra || !jobId) return;
    const seconds = Math.max(Math.round((Date.now() - began) / 100) / 10, last + 0.1);
    last = seconds;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: seconds,
          message: `${what} still running (job ${jobId}) after ${Math.round(seconds)} s`,
        },
      })
      .catch(() => undefined); // the client went away: the answer will not reach it either
  };
  const timer = setInterval(progress, PROGRESS_EVERY_MS);
  try {
    return await work((job) => {
      jobId = job.id;
      if (!FINAL_STATUSES.includes(job.status)) progress();
    });
  } finally {
    clearInterval(timer);
  }
}

/** The job once final, or as it is when the wait is over (still PREPARED/RUNNING). */
export async function waitForJob(
  ctx: McpContext,
  a: ProjectActor,
  job: Job,
  extra: ToolExtra | undefined,
  what: string,
): Promise<Job> {
  if (FINAL_STATUSES.includes(job.status)) return job;
  return withProgress(extra, what, async (started) => {
    started(job);
    let onAbort = () => {};
    try {
      const done = await Promise.race([
        ctx.engine.jobs.finished(a, job.id, ctx.engine.config.mcpWaitMs).catch(() => null),
        new Promise<null>((resolve) => {
          onAbort = () => resolve(null);
          extra?.signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      return done ?? (await ctx.engine.jobs.get(a, job.id));
    } finally {
      extra?.signal.removeEventListener('abort', onAbort);
    }
  });
}
