// Flows for assistants: list them, run one (MD Admin; not read-only: it replaces datasets
// and files), follow a run. The engine checks levels and runs; these tools only translate.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { invalid } from '../../engine/errors.js';
import type { Job } from '../../engine/jobs/jobs.js';
import { waitForJob } from '../wait.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

const runShape = {
  project: z.string(),
  flow: z.string(),
  jobId: z.string(),
  status: z
    .enum(['PREPARED', 'EXPANDING', 'RUNNING', 'OK', 'ERROR', 'CANCELLED'])
    .describe('RUNNING (or PREPARED): call get_flow_run with jobId later'),
  message: z.string().optional().describe('Why it failed: names the box and field'),
  started: z.string().nullable(),
  finished: z.string().nullable(),
  boxes: z
    .record(
      z.string(),
      z.object({
        status: z.string().optional(),
        rows: z.number().nullable().optional().describe('null under a row-level filter'),
        ms: z.number().optional(),
      }),
    )
    .describe('Per box: rows and milliseconds (status while running)'),
  outputs: z
    .array(z.record(z.string(), z.unknown()))
    .describe(
      'What the run wrote: datasets (rows, mode) and files (path, rows); rows are null under a row-level filter',
    ),
};
type RunOut = z.infer<z.ZodObject<typeof runShape>>;

function runOut(a: ProjectActor, job: Job): RunOut {
  const result = job.result as
    | {
        boxes?: Record<string, { rows: number | null; ms: number }>;
        outputs?: Record<string, unknown>[];
      }
    | undefined;
  const progress = job.progress as { boxes?: RunOut['boxes'] } | undefined;
  return {
    project: a.projectId,
    flow: String(job.params.id),
    jobId: job.id,
    status: job.status,
    ...(job.message ? { message: job.message } : {}),
    started: job.started ?? null,
    finished: job.finished ?? null,
    boxes: result?.boxes ?? progress?.boxes ?? {},
    outputs: result?.outputs ?? [],
  };
}

export function registerFlowTools(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_flows',
    input: {
      project: projectArg,
      fullLoad: z.boolean().optional().describe('Add each flow definition and its triggers'),
    },
    output: { flows: z.array(z.record(z.string(), z.unknown())) },
    annotations: READ_ONLY,
    narrow: 'too many flows to show with fullLoad; call again without fullLoad',
    run: async ({ project, fullLoad }) => {
      const a = await actorFor(ctx, project);
      return { data: (await ctx.engine.flows.list(a, fullLoad === true)) as never };
    },
  });

  defineTool(server, ctx, {
    name: 'get_flow_run',
    input: {
      project: projectArg,
      jobId: z.string().min(1).describe('jobId from run_flow (or lastRun.job from list_flows)'),
    },
    output: runShape,
    annotations: READ_ONLY,
    narrow: 'the run is too large to show',
    run: async ({ project, jobId }) => {
      const a = await actorFor(ctx, project);
      const job = await ctx.engine.jobs.get(a, jobId);
      if (job.type !== 'flow')
        throw invalid(`job ${jobId} is a ${job.type} job, not a flow run`, { jobId });
      return { data: runOut(a, job) };
    },
  });
}

/** run_flow: for users who are MD Admin somewhere (the engine checks the project's level). */
export function registerFlowRunTool(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'run_flow',
    input: {
      project: projectArg,
      flow: z.string().min(1).describe('Flow id (list_flows)'),
    },
    output: runShape,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    narrow: 'the run is too large to show; read it with get_flow_run',
    run: async ({ project, flow }, extra) => {
      const a = await actorFor(ctx, project);
      const job = await ctx.engine.flows.start(a, flow);
      return { data: runOut(a, await waitForJob(ctx, a, job, extra, `flow ${flow}`)) };
    },
  });
}
