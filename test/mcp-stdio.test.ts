// `npm run ursa -- mcp --stdio --user <email>` driven by the SDK's StdioClientTransport:
// beside a running server (forwarded to its /mcp, which holds the data) and alone on a data
// directory (served in-process). stdout carries only the protocol; logs go to stderr.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliEnv, lastLine, ROOT, runCli, URSA } from './helpers/cli.js';
import { jobsPath, sleep } from './helpers/jobs.js';
import {
  ADMIN,
  copyTestDatabase,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'member@example.com';

interface Stdio {
  client: Client;
  stderr: () => string;
}

async function connectStdio(dataDir: string, args: string[]): Promise<Stdio> {
  const transport = new StdioClientTransport({
    command: URSA.command,
    args: [...URSA.args, 'mcp', '--stdio', ...args],
    cwd: ROOT,
    env: cliEnv({ URSA_DATA_DIR: dataDir }) as Record<string, string>,
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const client = new Client({ name: 'ursa-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c as { text?: string }).text ?? '').join('\n');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  return { isError: r.isError === true, text, data: r.structuredContent as any };
}

describe('MCP over stdio', () => {
  let s: TestServer;
  let copy: string;
  const open: Client[] = [];

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    await s.bootstrap.demoLoading;
    for (const deadline = Date.now() + 90_000; ;) {
      const r = await s.api('GET', `${jobsPath(s.demo)}?limit=100`);
      const jobs = r.json.jobs as { status: string }[];
      if (
        jobs.length >= 2 &&
        jobs.every((j) => !['PREPARED', 'EXPANDING', 'RUNNING'].includes(j.status))
      )
        break;
      if (Date.now() > deadline) throw new Error(`demo jobs still running: ${r.text}`);
      await sleep(100);
    }
    await invite(s, s.demo, MEMBER, { filter: '[Carrier] = "AA"' });
    // A copy of the data directory that no server serves (DuckDB flushed and closed first).
    await s.engine.dbs.closeAll();
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-stdio-'));
    fs.cpSync(s.dataDir, copy, {
      recursive: true,
      filter: (src) => path.basename(src) !== 'server.json',
    });
    copyTestDatabase(s.dataDir, copy);
  });

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    await s?.close();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('beside a running server: discovery and tools, as the given user', async () => {
    const { client } = await connectStdio(s.dataDir, ['--user', ADMIN]);
    open.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_projects', 'get_model', 'run_aql', 'create_metric']),
    );
    expect(tools.find((t) => t.name === 'run_aql')!.annotations).toMatchObject({
      readOnlyHint: true,
      openWorldHint: false,
    });
    expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(6);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('build-report');
    const prompt = await client.getPrompt({
      name: 'explain-metric',
      arguments: { metric: 'Flights' },
    });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain('"Flights"');

    const projects = await call(client, 'list_projects');
    expect(projects.data.projects.map((p: { id: string }) => p.id)).toEqual([s.demo]);
    // The server holds the project's data open: the query runs there.
    const r = await call(client, 'run_aql', { aql: 'SELECT [Carrier], COUNT([Flight])' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.rows).toHaveLength(10);
    const typo = await call(client, 'run_aql', { aql: 'SELECT [Carier]' });
    expect(typo.isError).toBe(true);
    expect(typo.text).toMatch(/did you mean \[Carrier\]/);
  });

  it("applies the user's row filter, and --project as the default project", async () => {
    const { client } = await connectStdio(s.dataDir, ['--user', MEMBER, '--project', s.demo]);
    open.push(client);
    const r = await call(client, 'run_aql', { aql: 'SELECT [Carrier], COUNT([Flight])' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data.rows.map((row: string[]) => row[0])).toEqual(['AA']);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('create_metric');
  });

  it('alone on a data directory: serves in-process, logs only on stderr', async () => {
    const { client, stderr } = await connectStdio(copy, ['--user', 'nobody@example.com']);
    open.push(client);
    const none = await call(client, 'run_aql', { aql: 'SELECT [Carrier]' });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('no projects');
    await client.close();
    expect(stderr()).toContain('no projects');

    const admin = await connectStdio(copy, ['--user', ADMIN]);
    open.push(admin.client);
    const r = await call(admin.client, 'run_aql', {
      aql: 'SELECT [Flight], SUM([Distance])',
    });
    expect(r.isError, r.text).toBe(false);
    expect(r.data).toMatchObject({ totalRows: 60_000, truncated: true });
    const next = await call(admin.client, 'run_aql', { cursor: r.data.cursor });
    expect(next.data.rows[0][0]).toBe(101);
  });

  it('token --mcp prints a token for /mcp, which the API refuses', async () => {
    const r = await runCli(['token', ADMIN, '--mcp'], { URSA_DATA_DIR: s.dataDir });
    expect(r.code, r.stderr).toBe(0);
    const token = lastLine(r.stdout);
    const res = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(200);
    expect((await s.api('GET', '/projects', { bearer: token })).status).toBe(401);
  });

  it('refuses a missing --stdio or --user, and an unknown --project, with a clear message', async () => {
    const noStdio = await runCli(['mcp', '--user', ADMIN], { URSA_DATA_DIR: copy });
    expect(noStdio.code).toBe(2);
    expect(noStdio.stderr).toContain('mcp --stdio --user');
    const noUser = await runCli(['mcp', '--stdio'], { URSA_DATA_DIR: copy });
    expect(noUser.code).toBe(2);
    expect(noUser.stderr).toContain('--user');
    const badProject = await runCli(['mcp', '--stdio', '--user', ADMIN, '--project', 'nope'], {
      URSA_DATA_DIR: copy,
    });
    expect(badProject.code).toBe(1);
    expect(badProject.stderr).toContain('no access to project "nope"');
    expect(badProject.stdout).toBe('');
  });
});
