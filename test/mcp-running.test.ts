// Long MCP tool calls: a query not finished within URSA_MCP_WAIT_MS (small here) answers a
// non-error RUNNING result with a cursor that collects its rows later, and a client that sent
// a progressToken receives notifications/progress meanwhile — over a session with the SDK's
// own client and over a stateless POST. One job slot, held by the test, keeps queries waiting
// deterministically.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { mcpAudience } from '../src/engine/config.js';
import type { JobContext } from '../src/engine/jobs/jobs.js';
import { actorOf, waitForDemo } from './helpers/aql-demo.js';
import { deferred, gateOrAbort, pollJob, type Deferred } from './helpers/jobs.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
type Json = any;

describe('MCP tool calls that outlast the wait', () => {
  let s: TestServer;
  let client: Client;

  beforeAll(async () => {
    s = await startTestServer({
      URSA_DEMO_DATA: 'true',
      URSA_JOB_CONCURRENCY: '1',
      URSA_MCP_WAIT_MS: '300',
    });
    await waitForDemo(s);
    await s.engine.objects.create(await actorOf(s, ADMIN), [
      {
        type: 'report',
        ident: 'report.flights_by_state',
        name: 'Flights by state',
        def: {
          aql: 'SELECT [Origin State], COUNT([Flight]) AS "Flights"',
          visualization: { type: 'bar' },
        },
      },
    ]);
    const token = await s.engine.issueToken(ADMIN, { audience: mcpAudience(s.engine.config) });
    client = new Client({ name: 'ursa-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await s?.close();
  });

  /** Occupies the only job slot until the returned gate opens. */
  async function holdJobSlot(): Promise<Deferred> {
    const gate = deferred();
    s.engine.jobs.register('ai', { run: (ctx: JobContext) => gateOrAbort(gate.promise, ctx) });
    const blocker = await s.engine.jobs.submit(await actorOf(s, ADMIN), 'ai', {});
    await pollJob(s.api, s.demo, blocker.id, (j) => j.status === 'RUNNING');
    return gate;
  }

  async function call(args: Record<string, unknown>, name = 'run_aql', progress?: Progress[]) {
    const r = (await client.callTool(
      { name, arguments: args },
      undefined,
      progress ? { onprogress: (p) => progress.push(p) } : undefined,
    )) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r.structuredContent as Json;
  }

  /** Calls run_aql with the cursor until the query is done (each call waits up to 300 ms). */
  async function collect(cursor: string): Promise<Json> {
    for (let i = 0; i < 200; i++) {
      const r = await call({ cursor });
      if (r.status === 'OK') return r;
      expect(r.status).toBe('RUNNING');
    }
    throw new Error('the query never finished');
  }

  it('run_aql answers RUNNING with a cursor and progress; the cursor collects the rows', async () => {
    const aql = 'SELECT [Carrier], COUNT([Flight]) AS "Flights" ORDER BY 1';
    const gate = await holdJobSlot();
    let cursor: string;
    try {
      const progress: Progress[] = [];
      const first = await call({ aql }, 'run_aql', progress);
      expect(first).toMatchObject({
        status: 'RUNNING',
        project: s.demo,
        columns: [{ title: 'Carrier' }, { title: 'Flights' }],
        rows: [],
        totalRows: null,
        truncated: true,
        csv: `ursa://projects/${s.demo}/results/${first.jobId}.csv`,
      });
      expect(typeof first.cursor).toBe('string');
      cursor = first.cursor;
      expect(progress.length).toBeGreaterThanOrEqual(1);
      expect(progress[0]!.message).toContain(first.jobId);
      const values = progress.map((p) => p.progress);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      // Collecting while it still runs: RUNNING again, the same job.
      const again = await call({ cursor });
      expect(again).toMatchObject({ status: 'RUNNING', jobId: first.jobId });
      // Saved reports wait the same way.
      const report = await call({ report: 'Flights by state' }, 'run_report');
      expect(report).toMatchObject({
        status: 'RUNNING',
        report: { id: 'report.flights_by_state' },
        rows: [],
      });
    } finally {
      gate.resolve();
    }
    const done = await collect(cursor);
    expect(done).toMatchObject({ status: 'OK', offset: 0, totalRows: 10, truncated: false });
    expect(done.rows).toHaveLength(10);
    expect(done.rows.reduce((n: number, r: string[]) => n + Number(r[1]), 0)).toBe(60_000);
  });

  it('a stateless POST with a progressToken gets progress events, then RUNNING', async () => {
    const gate = await holdJobSlot();
    try {
      const token = await s.engine.issueToken(ADMIN, { audience: mcpAudience(s.engine.config) });
      const r = await fetch(`${s.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'run_aql',
            arguments: { aql: 'SELECT [Origin State], MAX([Distance])' },
            _meta: { progressToken: 'tok-1' },
          },
        }),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/event-stream');
      const events = (await r.text())
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => JSON.parse(l.slice('data:'.length)) as Json);
      const answer = events.at(-1);
      expect(answer.id).toBe(1);
      expect(answer.result.structuredContent.status).toBe('RUNNING');
      const notes = events.slice(0, -1);
      expect(notes.length).toBeGreaterThanOrEqual(1);
      for (const n of notes)
        expect(n).toMatchObject({
          method: 'notifications/progress',
          params: { progressToken: 'tok-1', progress: expect.any(Number) },
        });
    } finally {
      gate.resolve();
    }
  });
});
