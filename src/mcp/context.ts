// The caller's context every tool, resource and prompt of one MCP server gets (src/mcp/server.ts
// makes one per signed-in user).
import type { Principal } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';

export interface McpContext {
  engine: Engine;
  principal: Principal;
  /** stdio: the user runs the server, so unexpected errors show their message. */
  exposeInternalErrors: boolean;
  /** Used when a call names no project (stdio's --project). */
  defaultProject?: string;
}
