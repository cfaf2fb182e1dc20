// The get_object tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { ref, summary, objectShape, objectOut, findObject } from './model-views.js';

export function registerGetObject(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'get_object',
    input: {
      project: projectArg,
      id: z.string().min(1).describe('Object id, e.g. metric.revenue, or its exact title'),
      related: z.boolean().optional().describe('Include predecessors and successors'),
    },
    output: {
      object: objectShape,
      predecessors: z.array(ref).optional().describe('Objects it uses'),
      successors: z.array(ref).optional().describe('Objects using it'),
    },
    annotations: READ_ONLY,
    narrow: 'call it without related=true',
    run: async ({ project, id, related }) => {
      const a = await actorFor(ctx, project);
      const d = await findObject(ctx, a, id, { predecessors: related, successors: related });
      return {
        data: {
          object: objectOut(d.object),
          ...(d.predecessors ? { predecessors: d.predecessors.map(summary) } : {}),
          ...(d.successors ? { successors: d.successors.map(summary) } : {}),
        },
        shrink: (x) => (x.predecessors || x.successors ? { object: x.object } : null),
      };
    },
  });
}
