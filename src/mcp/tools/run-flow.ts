// The run_flow tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { waitForJob } from '../wait.js';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { runShape, runOut } from './flow-runs.js';

// run_flow: for users who are MD Admin somewhere (the engine checks the project's level).
export function registerRunFlow(server: McpServer, ctx: McpContext): void {
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
