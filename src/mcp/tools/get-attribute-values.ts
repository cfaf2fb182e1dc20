// The get_attribute_values tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { ref } from './model-views.js';

export function registerGetAttributeValues(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'get_attribute_values',
    input: { project: projectArg, ...TOOL_INPUTS.get_attribute_values('mcp') },
    output: {
      attribute: ref,
      values: z.array(z.object({ value: z.string(), count: z.number() })),
      truncated: z.boolean().describe('More values exist than shown'),
      counts: z
        .string()
        .describe(
          'The dataset whose rows each count counts: the facts that reach the attribute (flights per origin state), else its own',
        ),
    },
    annotations: READ_ONLY,
    narrow: 'pass a prefix or a smaller limit',
    run: async ({ project, attribute, prefix, limit }) => {
      const a = await actorFor(ctx, project);
      const obj = await ctx.engine.catalog.find(a, attribute);
      const r = await ctx.engine.catalog.attributeValues(a, obj.ident, { prefix, limit });
      return {
        data: { attribute: { id: obj.ident, type: obj.type, title: obj.name }, ...r },
        shrink: (d) =>
          d.values.length > 1
            ? { ...d, values: d.values.slice(0, Math.ceil(d.values.length / 2)), truncated: true }
            : null,
      };
    },
  });
}
