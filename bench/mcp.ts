// bench:mcp — latency of one `run_aql` tool call over MCP (SDK client, Streamable HTTP, one
// session, many calls) against the same query over REST (POST …/app/aql/execute, then GET
// the data link), both with a warm result cache, on one in-process server with the demo data,
// in the same run. Rounds alternate the two sides; medians and p95 are printed with their
// ratio (goal: MCP ≤ 1.2× REST).
// Settings: BENCH_CALLS (calls per side per round, default 200), BENCH_ROUNDS (default 5).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig, mcpAudience } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer } from '../src/server.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const GOAL = 1.2;
const ADMIN = 'admin@example.com';
const AQL =
  'SELECT [Carrier], SUM([Distance]) AS "Miles", COUNT([Flight]) AS "Flights" ORDER BY 2 DESC';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-bench-mcp-'));
const config = loadConfig({
  URSA_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  URSA_ADMIN_PASSWORD: 'bench-password-1',
  URSA_LOG_LEVEL: 'silent',
  URSA_DEMO_DATA: 'true',
});
const server = await startServer(config, createLogger(config.logLevel), false);
const { engine } = server;

try {
  for (const id of (await server.bootstrap.demoLoading) ?? []) await engine.jobs.waitFor(id);
  const project = server.bootstrap.demoProjectId!;

  // ---- REST: execute, then the data link (what a REST integration does) ----
  const restToken = await engine.issueToken(ADMIN);
  const headers = { authorization: `Bearer ${restToken}`, accept: 'application/json' };
  let restRows = 0;
  const rest = async () => {
    const ex = await fetch(`${server.url}/api/v1/projects/${project}/app/aql/execute`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ aql: AQL }),
    });
    if (ex.status !== 201) throw new Error(`execute answered ${ex.status}: ${await ex.text()}`);
    await ex.arrayBuffer();
    let data = await fetch(`${server.url}${ex.headers.get('location')}`, { headers });
    // Only the first (cold) run computes: later ones find the job OK at once.
    while (data.status === 202) {
      await data.arrayBuffer();
      await new Promise((r) => setTimeout(r, 5));
      data = await fetch(`${server.url}${ex.headers.get('location')}`, { headers });
    }
    if (data.status !== 200) throw new Error(`data answered ${data.status}: ${await data.text()}`);
    const body = (await data.json()) as { data: { values: string } };
    restRows = body.data.values.split('\n').length;
  };

  // ---- MCP: one session, one tool call per query ----
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: {
      headers: {
        Authorization: `Bearer ${await engine.issueToken(ADMIN, { audience: mcpAudience(config) })}`,
      },
    },
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  let mcpRows = 0;
  const mcp = async () => {
    const r = (await client.callTool({
      name: 'run_aql',
      arguments: { project, aql: AQL },
    })) as CallToolResult;
    if (r.isError) throw new Error(`run_aql failed: ${JSON.stringify(r.content)}`);
    mcpRows = (r.structuredContent as { rows: unknown[] }).rows.length;
  };

  const time = async (fn: () => Promise<void>, n: number, into: number[]) => {
    for (let i = 0; i < n; i++) {
      const t = process.hrtime.bigint();
      await fn();
      into.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  };
  // Warm-up: the result cache, compiled query, token cache and JIT on both paths.
  await time(rest, 50, []);
  await time(mcp, 50, []);
  if (restRows !== mcpRows) throw new Error(`REST gave ${restRows} rows, MCP ${mcpRows}`);

  const restMs: number[] = [];
  const mcpMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await time(mcp, CALLS, mcpMs);
      await time(rest, CALLS, restMs);
    } else {
      await time(rest, CALLS, restMs);
      await time(mcp, CALLS, mcpMs);
    }
  }
  await transport.terminateSession();
  await client.close();

  const q = (xs: number[], p: number) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  };
  const ratio = q(mcpMs, 0.5) / q(restMs, 0.5);
  console.log(
    `\nbench:mcp — ${ROUNDS} rounds × ${CALLS} calls per side, warm result cache, ${mcpRows} rows per answer`,
  );
  console.table({
    'MCP run_aql (one session)': {
      median: `${q(mcpMs, 0.5).toFixed(2)} ms`,
      p95: `${q(mcpMs, 0.95).toFixed(2)} ms`,
    },
    'REST execute → data': {
      median: `${q(restMs, 0.5).toFixed(2)} ms`,
      p95: `${q(restMs, 0.95).toFixed(2)} ms`,
    },
  });
  console.log(
    `ratio MCP / REST (median): ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×) ${ratio <= GOAL ? 'PASS' : 'ABOVE GOAL'}; p95 ${(q(mcpMs, 0.95) / q(restMs, 0.95)).toFixed(2)}×`,
  );
} finally {
  await server.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
