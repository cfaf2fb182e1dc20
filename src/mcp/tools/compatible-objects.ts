// The compatible_objects tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { ref } from './model-views.js';

export function registerCompatibleObjects(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'compatible_objects',
    input: { project: projectArg, ...TOOL_INPUTS.compatible_objects() },
    output: {
      object: ref,
      anchors: z.array(z.string()).describe('Datasets the measure aggregates on'),
      compatible: z.array(ref),
      truncated: z.boolean(),
    },
    annotations: READ_ONLY,
    narrow: 'the list is too long; ask about a more specific object',
    run: async ({ project, object }) => {
      const r = await ctx.engine.catalog.compatible(await actorFor(ctx, project), object);
      return {
        data: {
          object: r.object,
          anchors: r.anchors,
          compatible: r.compatible,
          truncated: false,
        },
        shrink: (d) =>
          d.compatible.length > 1
            ? {
                ...d,
                compatible: d.compatible.slice(0, Math.ceil(d.compatible.length / 2)),
                truncated: true,
              }
            : null,
      };
    },
  });
}
