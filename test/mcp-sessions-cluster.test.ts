// MCP sessions behind a load balancer: a session's requests may reach any process, and only
// the database row (mcp_sessions) knows when it was last used. A process whose own transport
// of a session sat idle must not end a session used through the others, and the per-user cap
// counts the user's sessions of the whole cluster. This process's clock is injected; the rows
// written "by other processes" are written directly.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { eq } from 'drizzle-orm';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpAudience } from '../src/engine/config.js';
import { tablesOf } from '../src/engine/db/index.js';
import { mcpRouter, type McpRouter } from '../src/mcp/http.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

const MIN = 60_000;
const USER = 'mcp-cluster@example.com';

describe('MCP sessions across processes', () => {
  let s: TestServer;
  let http: Server;
  let router: McpRouter;
  let url: string;
  let skew = 0;

  const post = async (body: unknown, headers: Record<string, string> = {}, as = ADMIN) =>
    fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        authorization: `Bearer ${await s.engine.issueToken(as, { audience: mcpAudience(s.engine.config) })}`,
        ...headers,
      },
      body: JSON.stringify(body),
    });
  const initialize = async (as = ADMIN) => {
    const r = await post(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        },
      },
      {},
      as,
    );
    expect(r.status).toBe(200);
    await r.text();
    return r.headers.get('mcp-session-id')!;
  };
  const listTools = async (sid: string, as = ADMIN) => {
    const r = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      as,
    );
    await r.text();
    return r.status;
  };
  const sessionsOf = () => tablesOf(s.engine.db).mcpSessions;
  const row = (sid: string) => {
    const mcpSessions = sessionsOf();
    return s.engine.db
      .select()
      .from(mcpSessions)
      .where(eq(mcpSessions.id, sid))
      .then((r) => r[0]);
  };
  const setLastSeen = (sid: string, ms: number) => {
    const mcpSessions = sessionsOf();
    return s.engine.db
      .update(mcpSessions)
      .set({ lastSeen: new Date(ms).toISOString() })
      .where(eq(mcpSessions.id, sid));
  };

  beforeAll(async () => {
    s = await startTestServer();
    // This process's router; `skew` moves the time its requests are seen at.
    router = mcpRouter(s.engine, { now: () => Date.now() + skew });
    const app = express();
    app.use('/mcp', router);
    http = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => http.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
    await s?.close();
  });

  it('an idle transport here does not end a session used through other processes', async () => {
    // Its requests here were 31 minutes ago; its row was touched through the others since.
    skew = -31 * MIN;
    const sid = await initialize();
    expect(await listTools(sid)).toBe(200);
    skew = 0;
    await router.sweep();
    expect(await row(sid)).toBeDefined();
    expect(await listTools(sid)).toBe(200);
    // Idle everywhere (the row too): ended for the cluster.
    skew = -31 * MIN;
    expect(await listTools(sid)).toBe(200);
    skew = 0;
    await setLastSeen(sid, Date.now() - 31 * MIN);
    await router.sweep();
    expect(await row(sid)).toBeUndefined();
    expect(await listTools(sid)).toBe(404);
  });

  it('the per-user cap counts sessions opened through every process', async () => {
    // 32 sessions of the user opened through other processes, the first the least recent.
    const now = Date.now();
    for (let i = 0; i < 32; i++) {
      await s.engine.mcpSessions.open(`elsewhere-${i}`, USER);
      await setLastSeen(`elsewhere-${i}`, now - (40 - i) * 1000);
    }
    const sid = await initialize(USER);
    const mcpSessions = sessionsOf();
    const mine = await s.engine.db.select().from(mcpSessions).where(eq(mcpSessions.email, USER));
    expect(mine).toHaveLength(32);
    expect(mine.map((r) => r.id)).not.toContain('elsewhere-0');
    expect(mine.map((r) => r.id)).toContain(sid);
    expect(await listTools(sid, USER)).toBe(200);
  });
});
