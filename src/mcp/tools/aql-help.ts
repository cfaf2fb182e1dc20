// The aql_help tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CHEATSHEET } from '../../engine/aql/cheatsheet.js';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { defineTool, READ_ONLY, type McpContext } from './common.js';

export function registerAqlHelp(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'aql_help',
    input: TOOL_INPUTS.aql_help(),
    output: { cheatsheet: z.string() },
    annotations: READ_ONLY,
    narrow: 'the cheatsheet is short; read the resource ursa://aql/cheatsheet',
    run: async () => ({ data: { cheatsheet: CHEATSHEET } }),
  });
}
