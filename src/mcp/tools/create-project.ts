// The create_project tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createProject } from '../../engine/warehouse/new-project.js';
import { defineTool, type McpContext } from './common.js';
import { warehouseArg } from './warehouse-views.js';

// create_project: for organization administrators (the engine checks the organization).
export function registerCreateProject(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'create_project',
    input: {
      id: z
        .string()
        .describe('Requested id: 1-40 lowercase letters, digits, "-" or "_"; a suffix is added'),
      title: z.string().min(1).max(200),
      description: z.string().max(5000).optional(),
      organization: z
        .string()
        .optional()
        .describe('Organization id; needed only when you administer several'),
      warehouse: warehouseArg
        .optional()
        .describe(
          'Bind the project to a PostgreSQL schema: its tables are then mapped (map_tables) and queried where they live, nothing is copied',
        ),
    },
    output: {
      project: z.string().describe('The id to pass as "project" from now on'),
      title: z.string(),
      warehouse: z.object({ credentials: z.string(), schema: z.string() }).nullable(),
      next: z.string(),
    },
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    },
    narrow: 'the project is too large to show; read it with list_projects',
    run: async ({ id, title, description, organization, warehouse }) => {
      const created = await createProject(
        {
          projects: ctx.engine.projects,
          objects: ctx.engine.objects,
          actor: (p, projectId) => ctx.engine.actor(p, projectId),
        },
        ctx.principal,
        {
          id,
          label: title,
          ...(description !== undefined ? { desc: description } : {}),
          ...(organization !== undefined ? { entity: organization } : {}),
        },
        warehouse,
      );
      return {
        data: {
          project: created.id,
          title: created.label,
          warehouse: created.warehouse,
          next: created.warehouse
            ? 'list_warehouse_tables shows what can be mapped; map_tables maps them'
            : 'the project is empty: load data over the REST API or the web app',
        },
      };
    },
  });
}
