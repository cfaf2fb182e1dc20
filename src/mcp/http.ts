// Streamable HTTP at {site_url}/mcp. Order per request: Origin check (403 for foreign
// origins), bearer auth for the MCP audience (401 + resource_metadata challenge), then:
// - POST with MCP-Session-Id: that session's transport (404 when unknown or someone else's);
// - POST initialize without one: a new session (its id comes back in MCP-Session-Id);
// - any other POST without one: served statelessly by a transport made for this request;
// - GET (the server's notification stream) and DELETE (end the session) need a session.
// Answers to requests are SSE streams (the SDK's default), so progress notifications of a
// long tool call reach the client before its result.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Principal } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import { HttpError } from '../http/errors.js';
import { parseJson } from '../shared/json.js';
import { MCP_SESSION_IDLE_MS } from '../engine/identity/mcp-sessions.js';
import { mcpPrincipal } from './auth.js';
import { buildMcpServer } from './server.js';

/** A session unused this long is closed. */
const IDLE_MS = MCP_SESSION_IDLE_MS;
/** Sessions one user may hold; a new one closes their least recently used. */
const MAX_SESSIONS_PER_USER = 32;
const MAX_BODY = '4mb';

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  email: string;
  lastSeen: number;
}

type McpRequest = Request & { mcpPrincipal?: Principal };

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** No Origin (not a browser), the site itself or a subdomain of it, or a local page. */
export function originAllowed(origin: string | undefined, siteUrl: string): boolean {
  if (origin === undefined) return true;
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false; // "null" (opaque origins) and garbage
  }
  if (LOCAL_HOSTS.has(o.hostname)) return true;
  const site = new URL(siteUrl);
  if (o.origin === site.origin) return true;
  return o.protocol === site.protocol && o.hostname.endsWith(`.${site.hostname}`);
}

function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export interface McpHttpOptions {
  /** The clock of this process's idle checks (tests). */
  now?: () => number;
}

/** The router, and its idle sweep (run every minute; callable by tests). */
export type McpRouter = Router & { sweep(): Promise<void> };

export function mcpRouter(engine: Engine, opts: McpHttpOptions = {}): McpRouter {
  const router = express.Router();
  const sessions = new Map<string, Session>();
  const now = opts.now ?? Date.now;

  const forget = (id: string) =>
    engine.mcpSessions
      .close(id)
      .catch((err: unknown) => engine.log.warn({ err }, 'MCP session not removed'));
  /** Drops this process's transport; the session lives on for the cluster (its row stays). */
  const dropLocal = (id: string) => {
    const s = sessions.get(id);
    // Out of the map first: the transport's onclose then leaves the row alone.
    sessions.delete(id);
    if (s) void s.transport.close();
  };
  const closeSession = (id: string) => {
    dropLocal(id);
    void forget(id);
  };
  /**
   * Requests through other processes update only the database row: a session idle here is
   * ended only when the row says it is idle everywhere (or gone).
   */
  const sweepIdle = async () => {
    const old = now() - IDLE_MS;
    for (const [id, s] of [...sessions]) {
      if (s.lastSeen >= old) continue;
      const seen = await engine.mcpSessions.lastSeen(id);
      if (seen === undefined) dropLocal(id);
      else if (seen < old) closeSession(id);
      else s.lastSeen = Math.max(s.lastSeen, seen);
    }
    await engine.mcpSessions.sweep();
  };
  const sweep = setInterval(() => {
    sweepIdle().catch((err: unknown) => engine.log.warn({ err }, 'MCP sessions not swept'));
  }, 60_000);
  sweep.unref();
  // A tick after the engine closed would only report its closed database.
  engine.closing.addEventListener('abort', () => clearInterval(sweep), { once: true });

  router.use((req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (!originAllowed(origin, engine.config.siteUrl))
      return next(
        new HttpError(403, `requests from origin ${origin} are not accepted`, { origin }),
      );
    if (origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
      res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate');
    }
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE');
      res.setHeader(
        'Access-Control-Allow-Headers',
        'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID',
      );
      return res.status(204).end();
    }
    next();
  });

  router.use((req: McpRequest, _res: Response, next: NextFunction) => {
    mcpPrincipal(engine, req).then((p) => {
      req.mcpPrincipal = p;
      next();
    }, next);
  });

  const notFound = (res: Response) =>
    rpcError(res, 404, -32001, 'Session not found; initialize a new session');

  /**
   * The caller's session named by MCP-Session-Id: held here (its transport), opened by another
   * process of the cluster ('elsewhere': served statelessly here), or an answer already sent.
   */
  const sessionOf = async (
    req: McpRequest,
    res: Response,
  ): Promise<Session | 'elsewhere' | null> => {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid !== 'string') {
      notFound(res);
      return null;
    }
    const email = req.mcpPrincipal!.email;
    // The metadata decides (a session ended through another process is over here too): one
    // read by key per request, next to a tool call's own work.
    const user = await engine.mcpSessions.userOf(sid);
    if (user !== email) {
      if (user === undefined && sessions.has(sid)) closeSession(sid);
      notFound(res);
      return null;
    }
    await engine.mcpSessions.touch(sid);
    const s = sessions.get(sid);
    if (s) {
      s.lastSeen = now();
      return s;
    }
    return 'elsewhere';
  };

  /** A request of a session another process holds: one transport for this request. */
  const serveStateless = async (
    principal: Principal,
    req: McpRequest,
    res: Response,
    body?: unknown,
  ) => {
    const server = await buildMcpServer(engine, principal);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  // The text first, then the shared JSON parser: nesting and value count are bounded like
  // every other body (src/shared/json.ts), whatever content type a client sends.
  const text = express.text({ limit: MAX_BODY, type: () => true });
  const parseBody = (req: Request, res: Response, next: NextFunction) =>
    text(req, res, (err?: unknown) => {
      if (err) return rpcError(res, 400, -32700, `Parse error: ${(err as Error).message}`);
      try {
        req.body = parseJson(typeof req.body === 'string' ? req.body : '');
      } catch (e) {
        return rpcError(res, 400, -32700, `Parse error: ${(e as Error).message}`);
      }
      next();
    });

  router.post('/', parseBody, async (req: McpRequest, res: Response, next: NextFunction) => {
    try {
      const principal = req.mcpPrincipal!;
      if (req.headers['mcp-session-id'] !== undefined) {
        const s = await sessionOf(req, res);
        if (s === 'elsewhere') await serveStateless(principal, req, res, req.body);
        else if (s) await s.transport.handleRequest(req, res, req.body);
        return;
      }
      const body: unknown = req.body;
      const init = Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body);
      if (init) {
        const server = await buildMcpServer(engine, principal);
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: async (id) => {
            sessions.set(id, { transport, server, email: principal.email, lastSeen: now() });
            // Known to every process before the client can send its next request. The cap
            // counts the user's sessions of the whole cluster and ends the least recently used
            // (others' processes drop their transports when they next see those).
            const ended = await engine.mcpSessions.open(id, principal.email, MAX_SESSIONS_PER_USER);
            for (const e of ended) dropLocal(e);
          },
        });
        transport.onclose = () => {
          const id = transport.sessionId;
          // Not when dropLocal closed it: the session may live on through other processes.
          if (!id || !sessions.has(id)) return;
          sessions.delete(id);
          void forget(id);
        };
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
        return;
      }
      // Without a session (the 2026 revision's stateless requests): one transport per request.
      await serveStateless(principal, req, res, body);
    } catch (err) {
      next(err);
    }
  });

  router.get('/', async (req: McpRequest, res: Response, next: NextFunction) => {
    try {
      if (req.headers['mcp-session-id'] === undefined) {
        res.setHeader('Allow', 'POST');
        return rpcError(res, 405, -32000, 'the notification stream needs an MCP session');
      }
      const s = await sessionOf(req, res);
      // The notification stream is the opening process's; elsewhere there is none to offer.
      if (s === 'elsewhere') {
        res.setHeader('Allow', 'POST, DELETE');
        return rpcError(res, 405, -32000, 'this session has no notification stream here');
      }
      if (s) await s.transport.handleRequest(req, res);
    } catch (err) {
      next(err);
    }
  });

  router.delete('/', async (req: McpRequest, res: Response, next: NextFunction) => {
    try {
      if (req.headers['mcp-session-id'] === undefined)
        return rpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      const s = await sessionOf(req, res);
      if (s === 'elsewhere') {
        // Ended here for every process; the opening one drops its transport at its sweep.
        await engine.mcpSessions.close(req.headers['mcp-session-id'] as string);
        return res.status(200).end();
      } else if (s) await s.transport.handleRequest(req, res);
    } catch (err) {
      next(err);
    }
  });

  router.all('/', (_req: Request, res: Response) => {
    res.setHeader('Allow', 'GET, POST, DELETE');
    rpcError(res, 405, -32000, 'Method not allowed.');
  });

  return Object.assign(router, { sweep: sweepIdle });
}
