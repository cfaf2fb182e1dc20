// The update_object tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { invalid } from '../../engine/errors.js';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { findObject, objectOut, objectShape } from './model-views.js';

export function registerUpdateObject(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'update_object',
    input: {
      project: projectArg,
      id: z.string().min(1).describe('Object id or title'),
      title: z.string().min(1).max(255).optional(),
      description: z.string().max(10_000).optional(),
      aql: z.string().min(1).optional().describe('New def.aql (metrics, filters, reports)'),
      tags: z.array(z.string()).optional().describe('Replaces the tags'),
    },
    output: { object: objectShape },
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    narrow: 'the updated object is too large to show; read it with get_object',
    run: async ({ project, id, title, description, aql, tags }) => {
      if ([title, description, aql, tags].every((v) => v === undefined))
        throw invalid('nothing to change: pass title, description, aql or tags');
      const a = await actorFor(ctx, project);
      const cur = (await findObject(ctx, a, id)).object;
      const updated = await ctx.engine.objects.replace(a, cur.ident, {
        name: title ?? cur.name,
        description: description ?? cur.description,
        def: aql !== undefined ? { ...cur.def, aql } : cur.def,
        acl: cur.acl,
        tag: tags ?? cur.tag,
      });
      return { data: { object: objectOut(updated) } };
    },
  });
}
