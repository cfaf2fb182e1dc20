// The get_flow_run tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { invalid } from '../../engine/errors.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { runShape, runOut } from './flow-runs.js';

export function registerGetFlowRun(server: McpServer, ctx: McpContext): void {
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
