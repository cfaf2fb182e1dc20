// MCP over stdio for local desktop assistants: `npm run ursa -- mcp --stdio --user <email>`.
// stdout carries only the protocol; logs go to stderr. Like `token`, it works on the data
// directory without claiming it, and acts as the given user (whoever can start it can read
// the data directory anyway).
//
// A project's analytical store (DuckDB) admits one process at a time. So when a server is
// serving this data directory, the command forwards the protocol to that server's /mcp with
// a token it signs for the user (built-in identity provider); otherwise it serves in-process.
import type { StreamableHTTPClientTransport as HttpClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../engine/access/actor.js';
import { mcpAudience, MCP_PATH } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import { readServerRecord, type ServerRecord } from '../engine/server-record.js';
import { buildMcpServer } from './server.js';

const TOKEN_TTL_S = 3600;

export interface StdioOptions {
  user: string;
  project?: string;
}

/** Resolves when the client goes away (stdin ends) or the process is told to stop. */
function untilClosed(transport: StdioServerTransport): Promise<void> {
  return new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/** The live server serving this data directory, if any. */
function runningServer(engine: Engine): ServerRecord | null {
  const rec = readServerRecord(engine.config.dataDir);
  if (!rec || rec.pid === process.pid) return null;
  try {
    process.kill(rec.pid, 0);
    return rec;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? rec : null;
  }
}

export async function serveStdio(engine: Engine, opts: StdioOptions): Promise<void> {
  const principal = { email: opts.user.toLowerCase() };
  // A wrong --project fails now, with the reason, instead of on every call.
  if (opts.project) await engine.actor(principal, opts.project);
  else if (!(await engine.projects.list(principal)).some((p) => p.hasAccess))
    engine.log.warn({ user: principal.email }, 'this user has no projects: every tool will say so');
  const served = runningServer(engine);
  if (served && engine.config.auth.builtin) return forward(engine, served, principal, opts.project);
  if (served)
    engine.log.warn(
      { server: served.siteUrl },
      'a server holds this data directory and tokens come from an external identity provider: queries may fail while it runs; connect to its /mcp over HTTP instead',
    );
  const server = await buildMcpServer(engine, principal, {
    exposeInternalErrors: true,
    defaultProject: opts.project,
  });
  const transport = new StdioServerTransport();
  const closed = untilClosed(transport);
  await server.connect(transport);
  await closed;
  await server.close();
}

/** Relays stdio ⇄ the running server's Streamable HTTP endpoint, as `principal`. */
async function forward(
  engine: Engine,
  served: ServerRecord,
  principal: Principal,
  project: string | undefined,
): Promise<void> {
  const { StreamableHTTPClientTransport } =
    await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  // Sign as the issuer the server verifies, for its MCP audience (what `token` does for REST).
  Object.assign(engine.config.auth, { issuer: served.issuer, audience: served.audience });
  const audience = mcpAudience({ siteUrl: served.siteUrl, mcpAudience: engine.config.mcpAudience });
  let token: { value: string; renewAt: number } | null = null;
  const bearer = async () => {
    if (!token || Date.now() > token.renewAt)
      token = {
        value: await engine.issueToken(principal.email, { audience, ttlSeconds: TOKEN_TTL_S }),
        renewAt: Date.now() + (TOKEN_TTL_S * 1000) / 2,
      };
    return token.value;
  };
  const upstream: HttpClientTransport = new StreamableHTTPClientTransport(
    new URL(`${served.siteUrl}${MCP_PATH}`),
    {
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set('Authorization', `Bearer ${await bearer()}`);
        return fetch(url, { ...init, headers });
      },
    },
  );
  const local = new StdioServerTransport();
  const initializing = new Set<string | number>();

  local.onmessage = (m: JSONRPCMessage) => {
    if (isJSONRPCRequest(m) && m.method === 'initialize') initializing.add(m.id);
    // --project: calls that name no project get it, as in-process.
    if (project && isJSONRPCRequest(m) && m.method === 'tools/call') {
      const params = m.params as { name?: string; arguments?: Record<string, unknown> };
      if (params.name !== 'list_projects' && params.arguments?.project === undefined)
        params.arguments = { ...params.arguments, project };
    }
    upstream.send(m).catch((err: Error) => {
      engine.log.warn({ err: err.message }, 'forwarding to the server failed');
      if (isJSONRPCRequest(m))
        void local.send({
          jsonrpc: '2.0',
          id: m.id,
          error: { code: -32603, message: `the Ursa server at ${served.siteUrl}: ${err.message}` },
        });
    });
  };
  upstream.onmessage = (m: JSONRPCMessage) => {
    // HTTP requests after initialize carry the negotiated version (the SDK client does this).
    if (isJSONRPCResultResponse(m) && initializing.delete(m.id))
      upstream.setProtocolVersion(String(m.result.protocolVersion));
    void local.send(m);
  };
  upstream.onerror = (err) => engine.log.warn({ err: err.message }, 'MCP upstream error');

  const closed = untilClosed(local);
  await upstream.start();
  await local.start();
  engine.log.info({ server: served.siteUrl }, 'MCP on stdio, forwarded to the running server');
  await closed;
  await upstream.terminateSession().catch(() => undefined);
  await upstream.close();
}
