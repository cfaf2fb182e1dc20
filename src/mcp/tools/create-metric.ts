// The create_metric tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { objectOut, objectShape } from './model-views.js';

export function registerCreateMetric(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'create_metric',
    input: {
      project: projectArg,
      title: z.string().min(1).max(255),
      aql: z.string().min(1).describe('SELECT <measure> [BY ALL …] [WHERE …]'),
      description: z.string().max(10_000).optional(),
      format: z.string().max(100).optional().describe('Display format, e.g. #,##0.00'),
      id: z.string().optional().describe('Identifier; default metric.<title slug>'),
    },
    output: { object: objectShape },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    narrow: 'the created object is too large to show; read it with get_object',
    run: async ({ project, title, aql, description, format, id }) => {
      const [created] = await ctx.engine.objects.create(await actorFor(ctx, project), {
        type: 'metric',
        name: title,
        ...(id ? { ident: id } : {}),
        ...(description !== undefined ? { description } : {}),
        def: { aql, ...(format ? { format } : {}) },
      });
      return { data: { object: objectOut(created!) } };
    },
  });
}
