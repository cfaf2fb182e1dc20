// The explain_aql tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

export function registerExplainAql(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'explain_aql',
    input: { project: projectArg, ...TOOL_INPUTS.explain_aql() },
    output: {
      columns: z.array(z.object({ title: z.string(), kind: z.string(), dataType: z.string() })),
      objects: z.array(z.object({ id: z.string(), type: z.string(), title: z.string() })),
      leaves: z.array(
        z.object({
          leaf: z.string(),
          anchor: z.string().describe('Dataset aggregated'),
          grain: z.array(z.string()),
          joins: z.array(z.string()),
          filters: z.number(),
        }),
      ),
      frame: z.string(),
      sql: z.string(),
      params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])),
      rowFilter: z.string().nullable().describe('Your row-level filter, always applied'),
    },
    annotations: READ_ONLY,
    narrow: 'the query is too large to explain here; explain a part of it',
    run: async ({ project, aql }) => {
      const e = await ctx.engine.aql.explain(await actorFor(ctx, project), aql);
      return {
        data: {
          columns: e.columns.map((c) => ({ title: c.title, kind: c.kind, dataType: c.dataType })),
          objects: e.objects.map((o) => ({ id: o.ident, type: o.type, title: o.title })),
          leaves: e.leaves.map((l) => ({
            leaf: l.leaf,
            anchor: l.anchor,
            grain: l.grain,
            joins: l.joins,
            filters: l.filters,
          })),
          frame: e.frame,
          sql: e.sql,
          params: e.params,
          rowFilter: e.rowFilter,
        },
      };
    },
  });
}
