// Flows over MCP with the SDK's own client: list_flows, run_flow (MD Admin, not read-only),
// get_flow_run; errors name the box and field; members below MD Admin get no run_flow.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from './helpers/mcp-client.js';
import { rawStorage } from './helpers/storage.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let admin: Client;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
async function call(c: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await c.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) return { error: (r.content[0] as { text: string }).text };
  return r.structuredContent;
}

beforeAll(async () => {
  s = await startTestServer({ URSA_DEFAULT_PLAN: 'team' });
  await rawStorage(s.engine).writeFile(s.demo, '/in/a.csv', Buffer.from('k,v\na,1\nb,2\nc,3\n'), {
    createParents: true,
  });
  const flow = (ident: string, condition: string) => ({
    ident,
    type: 'flow',
    name: ident,
    def: {
      boxes: [
        { id: 'src', type: 'input.storage', path: '/in/a.csv' },
        { id: 'keep', type: 'transform.filter', condition },
        { id: 'out', type: 'output.dataset', dataset: 'kv', mode: 'full', primarykey: 'k' },
      ],
      edges: [
        { from: 'src', to: 'keep' },
        { from: 'keep', to: 'out' },
      ],
    },
  });
  for (const f of [flow('flow.kv', '[v] >= 2'), flow('flow.broken', '[vv] >= 2')]) {
    const r = await s.api('POST', `/projects/${s.demo}/pmd/obj`, { body: f });
    expect(r.status, r.text).toBe(201);
  }
  await invite(s, s.demo, 'reader@example.com');
  admin = await connectMcp(s, ADMIN);
});
afterAll(async () => {
  await admin?.close();
  await s?.close();
});

describe('flows over MCP', () => {
  it('annotates run_flow honestly and lists the flow tools', async () => {
    const { tools } = await admin.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('run_flow')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('list_flows')!.annotations!.readOnlyHint).toBe(true);
    expect(byName.get('get_flow_run')!.annotations!.readOnlyHint).toBe(true);
  });

  it('lists flows, runs one to the end and reads the run again', async () => {
    const list = await call(admin, 'list_flows', {});
    expect(list.flows.map((f: { id: string }) => f.id).sort()).toEqual(['flow.broken', 'flow.kv']);
    const run = await call(admin, 'run_flow', { flow: 'flow.kv' });
    expect(run.status, JSON.stringify(run)).toBe('OK');
    expect(run.boxes.keep.rows).toBe(2);
    expect(run.outputs).toEqual([
      { box: 'out', type: 'output.dataset', dataset: 'kv', mode: 'full', rows: 2 },
    ]);
    const again = await call(admin, 'get_flow_run', { jobId: run.jobId });
    expect(again).toMatchObject({ status: 'OK', flow: 'flow.kv', jobId: run.jobId });
    const rows = await call(admin, 'run_aql', { aql: 'SELECT [k], SUM([v]) ORDER BY [k]' });
    expect(rows.rows).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('says which box and field failed', async () => {
    const run = await call(admin, 'run_flow', { flow: 'flow.broken' });
    expect(run.status).toBe('ERROR');
    expect(run.message).toContain('box "keep" (condition): unknown column [vv]');
    const missing = await call(admin, 'run_flow', { flow: 'flow.none' });
    expect(missing.error).toContain('flow "flow.none" not found');
  });

  it('gives members below MD Admin no run_flow, and the engine refuses them anyway', async () => {
    const reader = await connectMcp(s, 'reader@example.com');
    try {
      const { tools } = await reader.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('list_flows');
      expect(names).not.toContain('run_flow');
      const list = await call(reader, 'list_flows', {});
      expect(list.flows).toHaveLength(2);
      const jobs = await s.api('GET', `/projects/${s.demo}/kodiak/scache/obj?type=flow`);
      const jobId = jobs.json.jobs[0].id;
      // Jobs are the starter's: a member cannot read an MD Admin's run.
      const other = await call(reader, 'get_flow_run', { jobId });
      expect(other.error).toContain('not found');
    } finally {
      await reader.close();
    }
  });
});
