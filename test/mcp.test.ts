// The MCP server over real HTTP with the SDK's own client: discovery, every tool, the row
// filter, paging, errors a model can fix, the output cap, protocol versions, sessions,
// stateless requests, Origin checks and bearer auth for the MCP audience.
import { DEMO_REPORTS } from '../src/engine/data/demo/load-demo.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpAudience } from '../src/engine/config.js';
import { DEMO_METRICS } from '../src/engine/data/demo/load-demo.js';
import { capped, MAX_OUTPUT_BYTES, sizeOf } from '../src/mcp/limits.js';
import { MCP_TOOLS } from '../src/site/mcp-card.js';
import { jobsPath, sleep } from './helpers/jobs.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const MEMBER = 'member@example.com'; // row filter: carrier AA only
const MD = 'md@example.com'; // Admin of a second project, plain member in the demo

/** Waits until the demo's load jobs are done: nothing PREPARED/EXPANDING/RUNNING. */
async function demoLoaded(s: TestServer): Promise<void> {
  await s.bootstrap.demoLoading;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const r = await s.api('GET', `${jobsPath(s.demo)}?limit=100`);
    expect(r.status, r.text).toBe(200);
    const busy = (r.json.jobs as { status: string }[]).filter((j) =>
      ['PREPARED', 'EXPANDING', 'RUNNING'].includes(j.status),
    );
    if (r.json.jobs.length >= 2 && !busy.length) return;
    if (Date.now() > deadline) throw new Error(`demo jobs still running: ${r.text}`);
    await sleep(100);
  }
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  const data = result.structuredContent as any;
  return { result, isError: result.isError === true, text, data };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
const json = (r: Response): Promise<any> => r.json();

/** The JSON-RPC answer of a POST: requests are answered as SSE streams, the last event. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
async function rpcAnswer(r: Response): Promise<any> {
  expect(r.headers.get('content-type')).toContain('text/event-stream');
  const events = (await r.text())
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice('data:'.length)));
  return events.at(-1);
}

/** The JSON-RPC error code of a rejected client call. */
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code?: number; message: string }) => ({ code: err.code, message: err.message }),
  );

describe('MCP over Streamable HTTP', () => {
  let s: TestServer;
  let mcpUrl: string;
  let second: string;
  const clients: Client[] = [];
  const mcpToken = (email: string) =>
    s.engine.issueToken(email, { audience: mcpAudience(s.engine.config) });

  async function connect(
    email = ADMIN,
    opts: { fetch?: FetchLike } = {},
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${await mcpToken(email)}` } },
      fetch: opts.fetch,
    });
    const client = new Client({ name: 'ursa-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  /** A raw JSON-RPC POST to /mcp. */
  async function post(
    body: unknown,
    headers: Record<string, string> = {},
    as: string | null = ADMIN,
  ): Promise<Response> {
    return fetch(mcpUrl, {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        ...(as ? { authorization: `Bearer ${await mcpToken(as)}` } : {}),
        ...headers,
      },
      body: JSON.stringify(body),
    });
  }

  let admin: Client;
  let member: Client;

  beforeAll(async () => {
    s = await startTestServer({ URSA_DEMO_DATA: 'true' });
    mcpUrl = `${s.url}/mcp`;
    await demoLoaded(s);
    await invite(s, s.demo, MEMBER, { filter: '[Carrier] = "AA"' });
    await invite(s, s.demo, MD);
    // MD creates the second project (and is its Admin): the admin keeps exactly one project.
    await s.engine.orgs.addAdmin('default', MD);
    const r = await s.api('POST', '/projects', {
      as: MD,
      body: { id: 'second', label: 'Second', entity: 'default' },
    });
    expect(r.status, r.text).toBe(201);
    second = r.json.project.id;
    const a = await s.engine.actor({ email: ADMIN }, s.demo);
    await s.engine.objects.create(a, [
      {
        type: 'metric',
        ident: 'metric.flights',
        name: 'Flights',
        def: { aql: 'SELECT COUNT([Flight])' },
      },
      {
        type: 'report',
        ident: 'report.miles_by_carrier',
        name: 'Miles by carrier',
        def: {
          aql: 'SELECT [Carrier], SUM([Distance]) AS "Miles" ORDER BY 2 DESC',
          visualization: { type: 'bar' },
        },
      },
    ]);
    admin = (await connect(ADMIN)).client;
    member = (await connect(MEMBER)).client;
  });

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await s?.close();
  });

  describe('discovery', () => {
    it('the public server card names exactly the tools the server lists', async () => {
      const { tools } = await admin.listTools();
      expect(MCP_TOOLS.map((t) => t.name).sort()).toEqual(tools.map((t) => t.name).sort());
    });

    it('the server card declares the capabilities initialize answers (listChanged too)', async () => {
      const card = await json(await fetch(`${s.url}/.well-known/mcp.json`));
      const caps = admin.getServerCapabilities()!;
      for (const kind of ['tools', 'resources', 'prompts'] as const) {
        expect(caps[kind], kind).toBeDefined();
        expect(card.capabilities[kind], kind).toEqual(caps[kind]);
      }
      expect(card.capabilities).toEqual(caps);
    });

    it('lists every tool with input and output schemas and annotations', async () => {
      const { tools } = await admin.listTools();
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(Object.keys(byName).sort()).toEqual(
        [
          'aql_help',
          'ask',
          'compatible_objects',
          'create_metric',
          'explain_aql',
          'get_attribute_values',
          'get_model',
          'get_object',
          'list_projects',
          'list_reports',
          'run_aql',
          'run_report',
          'list_dashboards',
          'get_dashboard',
          'search_objects',
          'update_object',
          'list_flows',
          'run_flow',
          'get_flow_run',
          'create_project',
          'list_warehouse_tables',
          'map_tables',
          'create_subscription',
          'create_alert',
          'list_deliveries',
          'change_delivery',
          'remove_delivery',
        ].sort(),
      );
      for (const t of tools) {
        expect(t.description!.length, t.name).toBeGreaterThan(20);
        expect(t.description!.length, t.name).toBeLessThan(400);
        expect(t.inputSchema.type).toBe('object');
        expect(t.outputSchema?.type, t.name).toBe('object');
        // Tools about a project take it; the two about Ursa itself do not.
        if (!['list_projects', 'aql_help', 'create_project'].includes(t.name))
          expect(Object.keys(t.inputSchema.properties!)).toContain('project');
        const writes = [
          'create_metric',
          'update_object',
          'ask',
          'run_flow',
          'create_subscription',
          'create_alert',
          'change_delivery',
          'remove_delivery',
        ];
        if (![...writes, 'create_project', 'map_tables'].includes(t.name))
          expect(t.annotations, t.name).toMatchObject({ readOnlyHint: true, openWorldHint: false });
      }
      expect(byName.update_object!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
      // ask writes a conversation and calls the configured AI provider.
      expect(byName.ask!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        openWorldHint: true,
      });
      expect(byName.create_metric!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
      });
      // run_flow replaces datasets and files, and its connectors reach other servers.
      expect(byName.run_flow!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
        openWorldHint: true,
      });
      const run = byName.run_aql!;
      expect(run.inputSchema.properties).toMatchObject({
        aql: { type: 'string' },
        cursor: { type: 'string' },
        limit: { type: 'integer', maximum: 1000 },
      });
      expect(run.outputSchema!.required).toEqual(
        expect.arrayContaining(['rows', 'truncated', 'totalRows', 'cursor', 'csv']),
      );
    });

    it('hides the write tools from users who are MD Admin nowhere', async () => {
      const names = (await member.listTools()).tools.map((t) => t.name);
      expect(names).toContain('run_aql');
      expect(names).not.toContain('create_metric');
      expect(names).not.toContain('update_object');
    });

    it('lists resource templates and resources', async () => {
      const { resourceTemplates } = await admin.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
        'ursa://aql/cheatsheet',
        'ursa://projects/{project}/model',
        'ursa://projects/{project}/model{?cursor}',
        'ursa://projects/{project}/objects/{id}',
        'ursa://projects/{project}/results/{id}.csv',
        'ursa://projects/{project}/results/{id}.csv{?offset}',
      ]);
      const { resources } = await admin.listResources();
      const uris = resources.map((r) => r.uri);
      expect(uris).toContain(`ursa://projects/${s.demo}/model`);
      expect(uris).toContain(`ursa://projects/${s.demo}/objects/metric.flights`);
    });

    it('lists the prompts from prompts/ and renders their arguments', async () => {
      const { prompts } = await admin.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual([
        'build-report',
        'explain-metric',
        'explore-dataset',
      ]);
      const explore = prompts.find((p) => p.name === 'explore-dataset')!;
      expect(explore.description).toBeTruthy();
      expect(explore.arguments).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ name: 'dataset', required: true }),
          expect.objectContaining({ name: 'project', required: false }),
        ]),
      );
      const p = await admin.getPrompt({
        name: 'explore-dataset',
        arguments: { dataset: 'flights', project: s.demo },
      });
      const text = (p.messages[0]!.content as { text: string }).text;
      expect(text).toContain('"flights"');
      expect(text).toContain(s.demo);
      expect(text).not.toContain('{{');
      await expect(admin.getPrompt({ name: 'build-report', arguments: {} })).rejects.toThrow();
    });
  });

  describe('tools', () => {
    it('list_projects lists the projects with the level in each', async () => {
      const r = await call(admin, 'list_projects');
      expect(r.isError, r.text).toBe(false);
      expect(r.data.projects).toEqual(
        expect.arrayContaining([{ id: s.demo, title: 'Demo', admin: true, mdAdmin: true }]),
      );
      expect(JSON.parse(r.text)).toEqual(r.data);
    });

    it('get_model gives the compact catalog, filtered and paginated', async () => {
      const all = await call(admin, 'get_model', { project: s.demo });
      expect(all.isError, all.text).toBe(false);
      expect(all.data.datasets.map((d: { name: string }) => d.name).sort()).toEqual([
        'airports',
        'calendar',
        'carriers',
        'flights',
      ]);
      const flights = all.data.datasets.find((d: { name: string }) => d.name === 'flights');
      expect(flights.columns).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: 'fact.flights.distance', title: 'Distance', type: 'fact' }),
          expect.objectContaining({ id: 'attr.flights.carrier', cardinality: 10 }),
        ]),
      );
      // The demo's own metrics (with their descriptions) and the one saved above.
      expect(all.data.metrics.map((m: { id: string }) => m.id).sort()).toEqual(
        [...DEMO_METRICS.map((m) => m.ident), 'metric.flights'].sort(),
      );
      expect(all.data.metrics).toContainEqual({
        id: 'metric.flights',
        title: 'Flights',
        aql: 'SELECT COUNT([Flight])',
      });
      // A member with a row filter gets no example values or distinct counts: they are read
      // over every row, and would show carriers outside the filter.
      const filtered = await call(member, 'get_model', { project: s.demo, dataset: 'flights' });
      const carrier = filtered.data.datasets[0].columns.find(
        (c: { id: string }) => c.id === 'attr.flights.carrier',
      );
      expect(carrier).toBeDefined();
      expect(carrier.examples).toBeUndefined();
      expect(carrier.cardinality).toBeUndefined();
      expect(filtered.data.datasets[0].rows).toBeNull();
      const searched = await call(admin, 'get_model', { search: 'delay' });
      expect(searched.data.datasets.map((d: { name: string }) => d.name)).toEqual(['flights']);
      const p1 = await call(admin, 'get_model', { limit: 1 });
      expect(p1.data.datasets).toHaveLength(1);
      expect(p1.data.total).toBe(4);
      const p2 = await call(admin, 'get_model', { limit: 1, cursor: p1.data.nextCursor });
      expect(p2.data.datasets[0].name).not.toBe(p1.data.datasets[0].name);
      // The cursor belongs to its listing: with another search it is refused.
      const moved = await call(admin, 'get_model', {
        limit: 1,
        search: 'delay',
        cursor: p1.data.nextCursor,
      });
      expect(moved.isError).toBe(true);
      expect(moved.text).toMatch(/cursor belongs to a listing with another search or dataset/);
      const anyCase = await call(admin, 'get_model', { dataset: 'Flights' });
      expect(anyCase.data.datasets.map((d: { name: string }) => d.name)).toEqual(['flights']);
      const one = await call(admin, 'get_model', { dataset: 'nope' });
      expect(one.isError).toBe(true);
      expect(one.text).toContain('flights');
    });

    it('search_objects, get_object, get_attribute_values, compatible_objects', async () => {
      const found = await call(admin, 'search_objects', { query: 'carrier' });
      expect(found.isError, found.text).toBe(false);
      expect(found.data.hits[0]).toMatchObject({ id: 'attr.flights.carrier', title: 'Carrier' });

      const byId = await call(admin, 'get_object', { id: 'metric.flights', related: true });
      expect(byId.data.object).toMatchObject({
        id: 'metric.flights',
        type: 'metric',
        def: { aql: 'SELECT COUNT([Flight])' },
      });
      expect(byId.data.predecessors).toEqual([
        { id: 'attr.flights.flight_id', type: 'attribute', title: 'Flight' },
      ]);
      const byTitle = await call(admin, 'get_object', { id: 'Miles by carrier' });
      expect(byTitle.data.object.id).toBe('report.miles_by_carrier');
      const typo = await call(admin, 'get_object', { id: 'Flihgts' });
      expect(typo.isError).toBe(true);
      expect(typo.text).toMatch(/did you mean.*\[Flights\]/);

      const values = await call(admin, 'get_attribute_values', {
        attribute: 'Origin State',
        prefix: 'C',
      });
      expect(values.isError, values.text).toBe(false);
      expect(values.data.attribute).toEqual({
        id: 'attr.airports.state',
        type: 'attribute',
        title: 'Origin State',
      });
      expect(values.data.values.map((v: { value: string }) => v.value).sort()).toEqual([
        'CA',
        'CO',
      ]);
      expect(values.data.truncated).toBe(false);
      // Prefixes match in any case: "atl" finds Atlanta.
      const atl = await call(admin, 'get_attribute_values', {
        attribute: 'Origin City',
        prefix: 'atl',
      });
      expect(atl.isError, atl.text).toBe(false);
      expect(atl.data.values.map((v: { value: string }) => v.value)).toEqual(['Atlanta']);
      const few = await call(admin, 'get_attribute_values', { attribute: 'Carrier', limit: 3 });
      expect(few.data.values).toHaveLength(3);
      expect(few.data.truncated).toBe(true);

      const comp = await call(admin, 'compatible_objects', { object: 'Distance' });
      expect(comp.data.anchors).toEqual(['flights']);
      expect(comp.data.compatible.map((c: { id: string }) => c.id)).toEqual(
        expect.arrayContaining(['attr.airports.state', 'attr.flights.carrier']),
      );
      const back = await call(admin, 'compatible_objects', { object: 'attr.airports.state' });
      expect(back.data.compatible.map((c: { id: string }) => c.id)).toContain('metric.flights');
    });

    it('run_aql returns rows, totals and a link to the full CSV', async () => {
      const r = await call(admin, 'run_aql', {
        aql: 'SELECT [Carrier], COUNT([Flight]) AS "Flights" ORDER BY 1',
      });
      expect(r.isError, r.text).toBe(false);
      expect(r.data).toMatchObject({
        project: s.demo,
        columns: [
          { title: 'Carrier', dataType: 'string' },
          { title: 'Flights', dataType: expect.any(String) },
        ],
        offset: 0,
        totalRows: 10,
        truncated: false,
        cursor: null,
      });
      expect(r.data.rows).toHaveLength(10);
      const sum = r.data.rows.reduce((n: number, row: string[]) => n + Number(row[1]), 0);
      expect(sum).toBe(60_000);
      const link = r.result.content.find((c) => c.type === 'resource_link') as { uri: string };
      expect(link.uri).toBe(`ursa://projects/${s.demo}/results/${r.data.jobId}.csv`);
      expect(r.data.csv).toBe(link.uri);
      const csv = await admin.readResource({ uri: link.uri });
      const text = (csv.contents[0] as { text: string }).text;
      expect(text.split('\r\n')[0]).toBe('Carrier,Flights');
      expect(text.trim().split('\r\n')).toHaveLength(11);
    });

    it('pages with the cursor: page 2 holds rows 101–200', async () => {
      const aql = 'SELECT [Flight], SUM([Distance]) AS "Miles"';
      const p1 = await call(admin, 'run_aql', { aql });
      expect(p1.data.rows).toHaveLength(100);
      expect(p1.data).toMatchObject({ truncated: true, totalRows: 60_000, offset: 0 });
      expect(typeof p1.data.cursor).toBe('string');
      const p2 = await call(admin, 'run_aql', { cursor: p1.data.cursor });
      expect(p2.isError, p2.text).toBe(false);
      expect(p2.data.offset).toBe(100);
      const big = await call(admin, 'run_aql', { aql, limit: 300 });
      expect(p2.data.rows).toEqual(big.data.rows.slice(100, 200));
      // Number columns are JSON numbers.
      expect(p2.data.rows[0][0]).toBe(101);
      expect(p2.data.rows[99][0]).toBe(200);
      const bad = await call(admin, 'run_aql', { cursor: 'not-a-cursor' });
      expect(bad.isError).toBe(true);
      expect(bad.text).toContain('invalid cursor');
      // A member cannot read the admin's result through a cursor.
      const stolen = await call(member, 'run_aql', { cursor: p1.data.cursor });
      expect(stolen.isError).toBe(true);
      // A cursor continues its own query only: with another aql it is refused, not answered
      // with the old query's rows; with the same aql it continues.
      const other = await call(admin, 'run_aql', {
        aql: 'SELECT [Carrier], COUNT([Flight])',
        cursor: p1.data.cursor,
      });
      expect(other.isError).toBe(true);
      expect(other.text).toMatch(/cursor belongs to a different query/);
      expect(other.text).toContain(aql);
      const same = await call(admin, 'run_aql', { aql, cursor: p1.data.cursor });
      expect(same.isError, same.text).toBe(false);
      expect(same.data.rows).toEqual(p2.data.rows);
    });

    it('keeps every answer under 100 KB: fewer rows, truncated, with a cursor', async () => {
      const aql =
        'SELECT [Flight], [Flight Date], [Carrier Name], [Airport Name], [Destination], SUM([Distance]), SUM([Departure Delay]), SUM([Arrival Delay])';
      const r = await call(admin, 'run_aql', { aql, limit: 1000 });
      expect(r.isError, r.text).toBe(false);
      expect(sizeOf(r.result)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
      expect(r.data.rows.length).toBeLessThan(1000);
      expect(r.data.rows.length).toBeGreaterThan(100);
      expect(r.data.truncated).toBe(true);
      const next = await call(admin, 'run_aql', { cursor: r.data.cursor });
      expect(next.data.offset).toBe(r.data.rows.length);
      expect(Number(next.data.rows[0][0])).toBe(r.data.rows.length + 1);
    });

    it('the cap is central: what cannot shrink becomes an isError saying how to narrow', async () => {
      const big = { items: Array.from({ length: 5000 }, (_, i) => `value number ${i} ........`) };
      const fail = await capped({ data: big }, 'pass a prefix');
      expect(fail.isError).toBe(true);
      expect((fail.content[0] as { text: string }).text).toMatch(
        /over the 100 KB limit.*pass a prefix/,
      );
      const ok = await capped(
        { data: big, shrink: (d) => ({ items: d.items.slice(0, d.items.length / 2) }) },
        'x',
      );
      expect(ok.isError).toBeUndefined();
      expect(sizeOf(ok)).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    });

    it('answers a wrong field name with a correctable error', async () => {
      const r = await call(admin, 'run_aql', { aql: 'SELECT [Carrier], SUM([Distanse])' });
      expect(r.isError).toBe(true);
      expect(r.text).toContain('line 1, column 23');
      expect(r.text).toMatch(/did you mean \[Distance\]/);
      const syntax = await call(admin, 'run_aql', { aql: 'SELECT [Carrier] SUM([Distance])' });
      expect(syntax.isError).toBe(true);
      expect(syntax.text).toMatch(/line 1, column 18/);
      expect(syntax.text).toContain('found: SUM');
      const none = await call(admin, 'run_aql', {});
      expect(none.isError).toBe(true);
      expect(none.text).toContain('pass aql');
    });

    it('explain_aql shows the plan and the row filter', async () => {
      const r = await call(member, 'explain_aql', { aql: 'SELECT [Carrier], SUM([Distance])' });
      expect(r.isError, r.text).toBe(false);
      expect(r.data.leaves[0]).toMatchObject({ anchor: 'flights' });
      expect(r.data.rowFilter).toBe('[Carrier] = "AA"');
      expect(r.data.sql).toContain('ds_flights');
    });

    it('ask says how to configure an AI provider when none is', async () => {
      const r = await call(admin, 'ask', { project: s.demo, question: 'How many flights?' });
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/AI chat is not configured/);
      expect(r.text).toMatch(/URSA_AI_PROVIDER/);
    });

    it('applies the member row filter through run_aql', async () => {
      const aql = 'SELECT [Carrier], COUNT([Flight])';
      const all = await call(admin, 'run_aql', { aql });
      const mine = await call(member, 'run_aql', { aql });
      expect(all.data.rows.length).toBe(10);
      expect(mine.data.rows.map((r: string[]) => r[0])).toEqual(['AA']);
      const aa = all.data.rows.find((r: string[]) => r[0] === 'AA');
      expect(mine.data.rows[0]).toEqual(aa);
      const total = await call(member, 'run_aql', { aql: 'SELECT COUNT([Flight])' });
      expect(total.data.rows).toEqual([[aa[1]]]);
      const values = await call(member, 'get_attribute_values', { attribute: 'Carrier' });
      expect(values.data.values.map((v: { value: string }) => v.value)).toEqual(['AA']);
      // A prefix in any case still only finds values inside the row filter.
      const codes = async (c: Client, prefix: string) =>
        (await call(c, 'get_attribute_values', { attribute: 'Carrier', prefix })).data.values
          .map((v: { value: string }) => v.value)
          .sort();
      expect(await codes(admin, 'as')).toEqual(['AS']);
      expect(await codes(member, 'as')).toEqual([]);
      expect(await codes(admin, 'a')).toEqual(['AA', 'AS']);
      expect(await codes(member, 'a')).toEqual(['AA']);
    });

    it('list_reports and run_report', async () => {
      const list = await call(member, 'list_reports');
      expect(list.isError, list.text).toBe(false);
      // The test's report and the demo's own (no ACL: every member reads them).
      expect(list.data).toMatchObject({ total: 1 + DEMO_REPORTS.length, nextOffset: null });
      expect(list.data.reports.map((r: { id: string }) => r.id).sort()).toEqual(
        ['report.miles_by_carrier', ...DEMO_REPORTS.map((r) => r.ident)].sort(),
      );
      expect(
        list.data.reports.find((r: { id: string }) => r.id === 'report.miles_by_carrier'),
      ).toMatchObject({ title: 'Miles by carrier' });
      const run = await call(member, 'run_report', { report: 'Miles by carrier' });
      expect(run.isError, run.text).toBe(false);
      expect(run.data.report.id).toBe('report.miles_by_carrier');
      expect(run.data.columns.map((c: { title: string }) => c.title)).toEqual(['Carrier', 'Miles']);
      expect(run.data.rows.map((r: string[]) => r[0])).toEqual(['AA']);
      const notReport = await call(admin, 'run_report', { report: 'metric.flights' });
      expect(notReport.isError).toBe(true);
      expect(notReport.text).toContain('not a report');
    });

    it('create_metric and update_object for MD Admins', async () => {
      const c = await call(admin, 'create_metric', {
        title: 'Total Miles',
        aql: 'SELECT SUM([Distance])',
        description: 'miles flown',
      });
      expect(c.isError, c.text).toBe(false);
      expect(c.data.object).toMatchObject({
        id: 'metric.total_miles',
        type: 'metric',
        def: { aql: 'SELECT SUM([Distance])' },
        revision: 1,
      });
      const used = await call(admin, 'run_aql', { aql: 'SELECT [Total Miles]' });
      expect(used.isError, used.text).toBe(false);
      const u = await call(admin, 'update_object', {
        id: 'Total Miles',
        aql: 'SELECT SUM([Distance]) WHERE [Cancelled] = false',
        tags: ['mcp'],
      });
      expect(u.isError, u.text).toBe(false);
      expect(u.data.object).toMatchObject({
        id: 'metric.total_miles',
        title: 'Total Miles',
        description: 'miles flown',
        tags: ['mcp'],
        revision: 2,
        def: { aql: 'SELECT SUM([Distance]) WHERE [Cancelled] = false' },
      });
      const broken = await call(admin, 'create_metric', {
        title: 'Broken',
        aql: 'SELECT SUM([Nope])',
      });
      expect(broken.isError).toBe(true);
      expect(broken.text).toContain('Nope');
    });

    it('says which level a write needs, and names the valid projects', async () => {
      const md = (await connect(MD)).client;
      const names = (await md.listTools()).tools.map((t) => t.name);
      expect(names).toContain('create_metric');
      const denied = await call(md, 'create_metric', {
        project: s.demo,
        title: 'Mine',
        aql: 'SELECT SUM([Distance])',
      });
      expect(denied.isError).toBe(true);
      expect(denied.text).toMatch(/permission denied.*MD Admin/);
      const need = await call(md, 'run_aql', { aql: 'SELECT [Carrier]' });
      expect(need.isError).toBe(true);
      expect(need.text).toContain('project is required');
      expect(need.text).toContain(s.demo);
      expect(need.text).toContain(second);
      const unknown = await call(md, 'get_model', { project: 'nope' });
      expect(unknown.isError).toBe(true);
      expect(unknown.text).toMatch(/unknown project "nope"/);
      expect(unknown.text).toContain(s.demo);
      expect(unknown.text).toContain(second);
    });

    it('pages the CSV resource of a large result under the cap of one read', async () => {
      const aql = 'SELECT [Flight], [Carrier Name], SUM([Distance]) AS "Miles"';
      const r = await call(admin, 'run_aql', { aql, limit: 10 });
      expect(r.data.totalRows).toBe(60_000);
      const rows: string[] = [];
      let uri: string | null = r.data.csv;
      let reads = 0;
      while (uri) {
        const page = await admin.readResource({ uri });
        expect(JSON.stringify(page).length).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
        const [csv, note] = page.contents as { text: string; mimeType: string }[];
        const lines = csv!.text.split('\r\n').filter(Boolean);
        expect(lines[0]).toBe('Flight,Carrier Name,Miles');
        rows.push(...lines.slice(1));
        const meta = (csv as { _meta?: Record<string, { next: string | null }> })._meta!;
        uri = meta['ursa/page']!.next;
        if (uri) {
          expect(note!.mimeType).toBe('text/plain');
          expect(note!.text).toContain(uri);
          expect(note!.text).toMatch(/of 60000: one read is capped at 100 KB/);
        } else expect(note).toBeUndefined();
        if (++reads === 3) break; // three pages show the chain; the last page is tested below
      }
      expect(reads).toBe(3);
      expect(rows.length).toBeGreaterThan(100);
      // The pages continue each other: no row lost or repeated.
      expect(rows.map((l) => Number(l.split(',')[0]))).toEqual(
        Array.from({ length: rows.length }, (_, i) => i + 1),
      );
      const last = await admin.readResource({ uri: `${r.data.csv}?offset=59990` });
      const tail = (last.contents[0] as { text: string }).text.split('\r\n').filter(Boolean);
      expect(tail).toHaveLength(11);
      expect(last.contents).toHaveLength(1);
      expect(await codeOf(admin.readResource({ uri: `${r.data.csv}?offset=60001` }))).toMatchObject(
        {
          code: -32602,
          message: expect.stringContaining('past the last row'),
        },
      );
    });

    it('answers resources that do not exist for the caller with -32002', async () => {
      const r = await call(admin, 'run_aql', { aql: 'SELECT [Carrier]' });
      // Someone else's result, an unknown job, another project, an unknown kind of resource.
      for (const uri of [
        r.data.csv,
        `ursa://projects/${s.demo}/results/nope.csv`,
        `ursa://projects/${second}/model`,
        `ursa://projects/${s.demo}/objects/metric.nope`,
        `ursa://projects/${s.demo}/nothing`,
        'https://example.com/x',
      ]) {
        const err = await codeOf(member.readResource({ uri }));
        expect(err, uri).toMatchObject({ code: -32002 });
        expect(err!.message, uri).toMatch(/not found/);
      }
    });

    it('reads the model and object resources as the user', async () => {
      const model = await member.readResource({ uri: `ursa://projects/${s.demo}/model` });
      const m = JSON.parse((model.contents[0] as { text: string }).text);
      expect(m.datasets).toHaveLength(4);
      const obj = await member.readResource({
        uri: `ursa://projects/${s.demo}/objects/metric.flights`,
      });
      expect(JSON.parse((obj.contents[0] as { text: string }).text)).toMatchObject({
        id: 'metric.flights',
      });
      await expect(member.readResource({ uri: `ursa://projects/${second}/model` })).rejects.toThrow(
        /unknown project/,
      );
    });
  });

  describe('transport', () => {
    it('negotiates protocol 2025-11-25 and sends it on every request', async () => {
      const seen: (string | null)[] = [];
      const spy: FetchLike = (url, init) => {
        seen.push(new Headers(init?.headers).get('mcp-protocol-version'));
        return fetch(url, init);
      };
      const { client, transport } = await connect(ADMIN, { fetch: spy });
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect((await call(client, 'list_projects')).isError).toBe(false);
      expect(seen.at(-1)).toBe('2025-11-25');
    });

    it('speaks protocol 2025-06-18 to a client that asks for it', async () => {
      const seen: (string | null)[] = [];
      const old: FetchLike = (url, init) => {
        let body = init?.body;
        if (typeof body === 'string' && body.includes('"initialize"'))
          body = body.replace('"protocolVersion":"2025-11-25"', '"protocolVersion":"2025-06-18"');
        seen.push(new Headers(init?.headers).get('mcp-protocol-version'));
        return fetch(url, { ...init, body });
      };
      const { client, transport } = await connect(ADMIN, { fetch: old });
      expect(transport.protocolVersion).toBe('2025-06-18');
      const r = await call(client, 'run_aql', { aql: 'SELECT COUNT([Flight])' });
      expect(r.data.rows).toEqual([[60000]]);
      expect(seen.at(-1)).toBe('2025-06-18');
      const bad = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { 'mcp-protocol-version': '1999-01-01' },
      );
      expect(bad.status).toBe(400);
    });

    it('runs sessions: MCP-Session-Id, the GET stream, DELETE', async () => {
      const { transport } = await connect(ADMIN);
      const sid = transport.sessionId!;
      expect(sid).toMatch(/^[0-9a-f-]{36}$/);
      const auth = { authorization: `Bearer ${await mcpToken(ADMIN)}` };
      const ctrl = new AbortController();
      const stream = await fetch(mcpUrl, {
        headers: {
          ...auth,
          accept: 'text/event-stream',
          'mcp-session-id': sid,
          'mcp-protocol-version': '2025-11-25',
        },
        signal: ctrl.signal,
      });
      // The SDK client holds the session's one GET stream already: a second one is a conflict.
      expect([200, 409]).toContain(stream.status);
      if (stream.status === 200)
        expect(stream.headers.get('content-type')).toContain('text/event-stream');
      ctrl.abort();
      const noSession = await fetch(mcpUrl, {
        headers: { ...auth, accept: 'text/event-stream' },
      });
      expect(noSession.status).toBe(405);
      // Someone else's session does not exist for them.
      const other = await post(
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
        MEMBER,
      );
      expect(other.status).toBe(404);
      await transport.terminateSession();
      expect(transport.sessionId).toBeUndefined();
      const after = await post(
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(after.status).toBe(404);
      const del = await fetch(mcpUrl, { method: 'DELETE', headers: auth });
      expect(del.status).toBe(400);
    });

    it('serves a request without a session (stateless), not only initialize', async () => {
      const r = await post(
        {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'run_aql', arguments: { aql: 'SELECT COUNT([Flight])' } },
        },
        { 'mcp-protocol-version': '2025-11-25' },
      );
      expect(r.status).toBe(200);
      expect(r.headers.get('mcp-session-id')).toBeNull();
      const body = await rpcAnswer(r);
      expect(body.id).toBe(7);
      expect(body.result.structuredContent.rows).toEqual([[60000]]);
      const list = await post({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
      expect(list.status).toBe(200);
      expect((await rpcAnswer(list)).result.tools.length).toBeGreaterThan(5);
    });

    it('rejects foreign Origins with 403 and accepts local and same-site ones', async () => {
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const evil = await post(list, { origin: 'https://evil.example' });
      expect(evil.status).toBe(403);
      expect((await json(evil)).message).toContain('evil.example');
      expect((await post(list, { origin: 'null' })).status).toBe(403);
      expect((await post(list, { origin: 'http://localhost:5173' })).status).toBe(200);
      expect((await post(list, { origin: 'http://127.0.0.1:6274' })).status).toBe(200);
      expect((await post(list, { origin: new URL(s.url).origin })).status).toBe(200);
    });

    it('answers 401 with a resource_metadata challenge', async () => {
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      const meta = `${s.engine.config.siteUrl}/.well-known/oauth-protected-resource/mcp`;
      const none = await post(list, {}, null);
      expect(none.status).toBe(401);
      expect(none.headers.get('www-authenticate')).toBe(
        `Bearer resource_metadata="${meta}", scope="mcp"`,
      );
      const bad = await post(list, { authorization: 'Bearer not.a.token' }, null);
      expect(bad.status).toBe(401);
      const challenge = bad.headers.get('www-authenticate')!;
      expect(challenge).toContain(`resource_metadata="${meta}"`);
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain('error_description=');
      const cookie = await post(list, { cookie: 'ursa_session=whatever' }, null);
      expect(cookie.status).toBe(401);
      // The SDK client surfaces it too.
      const t = new StreamableHTTPClientTransport(new URL(mcpUrl));
      await expect(new Client({ name: 'x', version: '1' }).connect(t)).rejects.toThrow();
    });

    it('refuses REST-audience tokens on /mcp, and MCP tokens on REST', async () => {
      const rest = await s.token(ADMIN);
      const r = await post(
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { authorization: `Bearer ${rest}` },
        null,
      );
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      // The refusal says which door the token is for and how to get one for this door.
      const said = ((await r.json()) as { message: string }).message;
      expect(said).toMatch(
        /issued for the REST API \(\/api\/v1\) \(its "aud" claim\), not for the MCP server/,
      );
      expect(said).toContain(mcpAudience(s.engine.config));
      expect(said).toContain('npm run ursa -- token <email> --mcp');
      const onRest = await s.api('GET', '/projects', { bearer: await mcpToken(ADMIN) });
      expect(onRest.status).toBe(401);
      expect(onRest.json.message).toMatch(
        /issued for the MCP server \(\/mcp\) \(its "aud" claim\), not for the REST API .*"npm run ursa -- token <email>"/,
      );
      expect((await s.api('GET', '/projects', { bearer: rest })).status).toBe(200);
    });
  });
});
