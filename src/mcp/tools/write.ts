// Model changes for MD Admins: create a metric, update an object. The engine checks the
// level, the ACL and that the AQL compiles; these tools only shape the request.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { invalid } from '../../engine/errors.js';
import { actorFor, defineTool, projectArg, type McpContext } from './common.js';
import { findObject, objectOut, objectShape } from './model.js';

export function registerWriteTools(server: McpServer, ctx: McpContext): void {
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
