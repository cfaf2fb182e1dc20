// The search_objects tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { ref, summary } from './model-views.js';

export function registerSearchObjects(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'search_objects',
    input: { project: projectArg, ...TOOL_INPUTS.search_objects('mcp') },
    output: {
      hits: z.array(ref.extend({ description: z.string(), field: z.string(), match: z.string() })),
      total: z.number(),
    },
    annotations: READ_ONLY,
    narrow: 'use a smaller limit or a more specific query',
    run: async ({ project, query, limit }) => {
      const r = await ctx.engine.objects.search(await actorFor(ctx, project), {
        query,
        limit: limit ?? 20,
      });
      return {
        data: {
          total: r.total,
          hits: r.hits.map((h) => ({
            ...summary(h),
            description: h.description,
            field: h.field,
            match: h.match,
          })),
        },
        shrink: (d) =>
          d.hits.length > 1 ? { ...d, hits: d.hits.slice(0, Math.ceil(d.hits.length / 2)) } : null,
      };
    },
  });
}
