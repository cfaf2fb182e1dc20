// NEST(SELECT …) (issue 32) at every door on the demo project: the REST data answer (a JSON
// list per cell in `values`), explain's nested columns, CSV and TSV flattened (a line per
// nested row), and MCP's run_aql (a list of objects per cell). Its numbers are checked
// against the same breakdown asked without NEST.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf, waitForDemo } from './helpers/aql-demo.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let mcp: Client;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await waitForDemo(s);
  mcp = await connectMcp(s, ADMIN, 'aql-nest-test');
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await s?.close();
});

const TOP =
  'SELECT [Origin Region], COUNT([flights]) AS "Flights", NEST(SELECT [Origin State], COUNT([flights]) AS "Flights" ORDER BY 2 DESC LIMIT 2) AS "Top states"';

/** The same top 2 per region, asked without NEST. */
async function expectedTop(): Promise<Map<string, [string, number][]>> {
  const rows = await rowsOf(
    s,
    ADMIN,
    'SELECT [Origin Region], [Origin State], COUNT([flights]) QUALIFY ROW_NUMBER() OVER (PARTITION BY [Origin Region] ORDER BY COUNT([flights]) DESC) <= 2 ORDER BY 1, 3 DESC',
  );
  const out = new Map<string, [string, number][]>();
  for (const [region, state, n] of rows)
    out.set(region!, [...(out.get(region!) ?? []), [state!, Number(n)]]);
  return out;
}

async function execute(aql: string, accept = 'application/json') {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    body: { aql },
    headers: { prefer: 'wait=30' },
  });
  expect(r.status, r.text).toBe(200);
  const data = (r.json.link as { rel: string; href: string }[]).find(
    (l) => l.rel === 'data.created',
  )!;
  return s.api('GET', data.href, { headers: { accept } });
}

describe('NEST(SELECT …)', () => {
  it('REST: each cell of the nested column is a JSON list of its rows, as the breakdown without NEST gives them', async () => {
    const want = await expectedTop();
    const d = await execute(TOP);
    expect(d.status, d.text).toBe(200);
    const rows = (d.json.data.values as string).split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => r[0])).toEqual([...want.keys()]);
    for (const [region, flights, nested] of rows) {
      const list = JSON.parse(nested!) as { 'Origin State': string; Flights: number }[];
      expect(list.map((x) => [x['Origin State'], x.Flights])).toEqual(want.get(region!));
      expect(Number(flights)).toBeGreaterThan(list[0]!.Flights);
    }
    const ex = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, { body: { aql: TOP } });
    expect(ex.status, ex.text).toBe(200);
    expect(ex.json.explain.columns[2]).toEqual({
      title: 'Top states',
      kind: 'measure',
      dataType: 'nested',
      columns: [
        { title: 'Origin State', kind: 'dimension', dataType: 'string' },
        { title: 'Flights', kind: 'measure', dataType: 'number' },
      ],
    });
  });

  it('CSV and TSV: a line per nested row, the row’s own cells repeated, the nested columns titled by the NEST', async () => {
    const want = await expectedTop();
    const csv = await execute(TOP, 'text/csv');
    expect(csv.status, csv.text).toBe(200);
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('Origin Region,Flights,Top states: Origin State,Top states: Flights');
    const expected = [...want].flatMap(([region, list]) =>
      list.map(([state, n]) => [region, state, String(n)]),
    );
    expect(
      lines
        .slice(1)
        .map((l) => l.split(','))
        .map((c) => [c[0], c[2], c[3]]),
    ).toEqual(expected);
    const tsv = await execute(TOP, 'text/tab-separated-values');
    expect(tsv.text.trimEnd().split('\n')).toHaveLength(expected.length + 1);
  });

  it('MCP: run_aql gives each nested cell as a list of objects with JSON numbers', async () => {
    const want = await expectedTop();
    const r = (await mcp.callTool({
      name: 'run_aql',
      arguments: { project: s.demo, aql: TOP },
    })) as CallToolResult;
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const out = r.structuredContent as {
      columns: { title: string; dataType: string }[];
      rows: [string, number, { 'Origin State': string; Flights: number }[]][];
    };
    expect(out.columns.map((c) => c.dataType)).toEqual(['string', 'number', 'nested']);
    for (const [region, , list] of out.rows)
      expect(list.map((x) => [x['Origin State'], x.Flights])).toEqual(want.get(region));
  });

  it('is refused inside an expression, and a NEST inside a NEST', async () => {
    for (const [aql, message] of [
      [
        'SELECT [Origin Region], COUNT([flights]) + NEST(SELECT COUNT([flights]))',
        /syntax error|NEST\(SELECT …\) is a SELECT item of its own/,
      ],
      [
        'SELECT [Origin Region], NEST(SELECT [Origin State], NEST(SELECT [Carrier Name]))',
        /without windows, QUALIFY or another NEST/,
      ],
    ] as const) {
      const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, { body: { aql } });
      expect(r.status, r.text).toBe(400);
      expect(r.json.message).toMatch(message);
    }
  });
});
