// One McpServer per signed-in user (per HTTP session, per stateless request, or per stdio
// process): every tool, resource and prompt calls the engine as that user.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import { MCP_CAPABILITIES } from '../contract/mcp.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import type { McpContext } from './tools/common.js';
import * as tools from './tools/index.js';

const VERSION = '0.1.0';

const INSTRUCTIONS = `Ursa answers questions about data with AQL, a query language over a semantic model.
Start with get_model (datasets, attributes, facts, metrics with their titles and example values), use get_attribute_values for real filter values, then run_aql.
AQL: SELECT [Attribute], SUM([Fact]) AS "Name" WHERE [Attribute] = "value" ORDER BY 2 DESC LIMIT 10 — objects in square brackets by title or id; no GROUP BY (dimensions are the grain).
Errors say where the query is wrong and suggest names; fix and retry. Results are paged: pass the cursor back to run_aql for more rows.
Without a reasoning loop of your own, ask answers a plain-language question with Ursa's agent.`;

export interface BuildOptions {
  /** stdio: unexpected errors show their message (the user runs the server). */
  exposeInternalErrors?: boolean;
  /** The project of calls that name none (stdio's --project). */
  defaultProject?: string;
}

export async function buildMcpServer(
  engine: Engine,
  principal: Principal,
  opts: BuildOptions = {},
): Promise<McpServer> {
  const server = new McpServer(
    { name: 'ursa', title: 'Ursa analytics', version: VERSION },
    {
      instructions: INSTRUCTIONS,
      capabilities: structuredClone(MCP_CAPABILITIES),
    },
  );
  const ctx: McpContext = {
    engine,
    principal,
    exposeInternalErrors: opts.exposeInternalErrors ?? false,
    defaultProject: opts.defaultProject,
  };
  tools.registerReadTools(server, ctx);
  // Write tools only for users who are MD Admin (or Admin) somewhere, or who may create a
  // project (an organization administrator becomes its Admin); the engine still checks the
  // level in the project each call names.
  const orgAdmin = (await engine.orgs.administeredBy(principal.email)).length > 0;
  if (orgAdmin) tools.registerCreateProject(server, ctx);
  if (orgAdmin || (await engine.projects.list(principal)).some((p) => p.hasAccess && p.isMdAdmin))
    tools.registerWriteTools(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server);
  // Registering marks every list as changing (listChanged: true); ours do not change.
  server.server.registerCapabilities(structuredClone(MCP_CAPABILITIES));
  return server;
}
