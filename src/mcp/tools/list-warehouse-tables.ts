// The list_warehouse_tables tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { tableShape } from './warehouse-views.js';

// The catalog and mapping tools: MD Admin in the project (the engine checks it).
export function registerListWarehouseTables(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_warehouse_tables',
    input: { project: projectArg },
    output: { project: z.string(), schema: z.string(), tables: z.array(tableShape) },
    annotations: READ_ONLY,
    narrow: 'the schema has too many tables to show',
    run: async ({ project }) => {
      const a = await actorFor(ctx, project);
      const tables = await ctx.engine.warehouse.tables(a);
      const schema = (await ctx.engine.warehouse.binding(a.projectId))?.schema ?? '';
      return {
        data: {
          project: a.projectId,
          schema,
          tables: tables.map((t) => ({
            table: t.ident,
            kind: t.kind,
            readable: t.readable,
            dataset: t.dataset,
            mapped: t.mapped,
            description: t.description,
          })),
        },
      };
    },
  });
}
