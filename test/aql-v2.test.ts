// AQL v2 over REST and MCP on the demo project: errors that teach an assistant with SQL
// habits (each at its own token's line and column), the new syntax answering the same rows
// through both doors, and unquoted aliases in ORDER BY.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHEATSHEET, CHEATSHEET_HEAD } from '../src/engine/aql/cheatsheet.js';
import { shiftDate } from '../src/engine/aql/sqlgen.js';
import { loadConfig, todayIn } from '../src/engine/config.js';
import { rowsOf, waitForDemo } from './helpers/aql-demo.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';
import { connectMcp } from './helpers/mcp-client.js';

let s: TestServer;
let mcp: Client;

beforeAll(async () => {
  // A zone far from UTC: for most of the day its date differs from UTC's.
  s = await startTestServer({ URSA_DEMO_DATA: 'true', URSA_TIMEZONE: 'Pacific/Kiritimati' });
  await waitForDemo(s);
  mcp = await connectMcp(s, ADMIN, 'aql-v2-test');
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  await s?.close();
});

const refused = async (aql: string) => {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, { body: { aql } });
  expect(r.status, `${aql}\n${r.text}`).toBe(400);
  return r.json as {
    message: string;
    context: { line: number; column: number; found: string; suggestions?: string[] };
  };
};

async function runAql(aql: string) {
  const result = (await mcp.callTool({
    name: 'run_aql',
    arguments: { project: s.demo, aql },
  })) as CallToolResult;
  const text = result.content
    .filter((c) => c.type === 'text')
    .map((c) => (c as { text: string }).text)
    .join('\n');
  return { isError: result.isError === true, text, data: result.structuredContent as unknown };
}

describe('errors that teach SQL habits, at their own token', () => {
  const cases: [string, RegExp, number, number, string][] = [
    ['SELECT origin, SUM([Distance])', /^names go in brackets: \[Origin\]/, 1, 8, 'origin'],
    [
      'SELECT [Origin], SUM([Distance])\nFROM flights',
      /AQL has no FROM or GROUP BY: name objects in brackets; the model finds the datasets and groups by every dimension/,
      2,
      1,
      'FROM',
    ],
    [
      'SELECT [Origin], SUM([Distance])\n  GROUP BY [Origin]',
      /AQL has no FROM or GROUP BY/,
      2,
      3,
      'GROUP',
    ],
    ['SELECT [Origin] JOIN airports', /AQL has no JOIN/, 1, 17, 'JOIN'],
    [
      'SELECT [Origin], COUNT(*)',
      /there is no COUNT\(\*\) in AQL: count the rows of a dataset with COUNT\(\[<dataset>\]\), e\.g\. COUNT\(\[flights\]\)/,
      1,
      24,
      '*',
    ],
    ['SELECT TOP 5 [Origin], SUM([Distance])', /AQL has no TOP: write LIMIT 5/, 1, 8, 'TOP'],
    ['SELECT [Origin], SUM([Distance]) Miles', /AS "Miles"/, 1, 34, 'Miles'],
    ['SELECT [Origin], SUM([Distance]) AS Total Miles', /AS "Total Miles"/, 1, 43, 'Miles'],
    ['SELECT DISTINCT [Origin]', /AQL has no DISTINCT/, 1, 8, 'DISTINCT'],
    [
      'SELECT [Origin],\n  SUMM([Distance])',
      /unknown function SUMM; did you mean SUM.*PERCENTILE/,
      2,
      3,
      'SUMM',
    ],
    [
      'SELECT COUNT([Flight])\nWHERE [Flight Date] > 5',
      /5 \(a number\) cannot be used where a date is expected/,
      2,
      23,
      '5',
    ],
    [
      'SELECT COUNT([Flight])\nWHERE [Distance] > "far"',
      /"far" is compared with a number but is not one/,
      2,
      20,
      '"far"',
    ],
    [
      'SELECT [Carrier Name],\n  COUNT([Calendar Date])',
      /cannot be broken down by \[Carrier Name\]: no reference path/,
      2,
      3,
      'COUNT([Calendar Date])',
    ],
    [
      'SELECT [Origin State],\n       DATE_TRUNC("fortnight", [Flight Date]), COUNT([Flight])',
      /DATE_TRUNC takes a unit first, one of "year", "quarter", "month", "week", "day"/,
      2,
      19,
      '"fortnight"',
    ],
    [
      'SELECT [Origin], SUM([Distance])\nQUALIFY SUM([Distance]) > 10',
      /QUALIFY filters on window values, and this query has none; filter on measures with HAVING/,
      2,
      9,
      'SUM([Distance]) > 10',
    ],
    [
      'SELECT [Origin], SUM([Distance])\nHAVING RANK() OVER (ORDER BY SUM([Distance])) < 3',
      /filter on a window with QUALIFY/,
      2,
      8,
      'RANK() OVER (ORDER BY SUM([Distance]))',
    ],
  ];
  for (const [aql, message, line, column, found] of cases)
    it(`${aql.replace(/\s+/g, ' ')}`, async () => {
      const e = await refused(aql);
      expect(e.message).toMatch(message);
      expect([e.context.line, e.context.column, e.context.found]).toEqual([line, column, found]);
    });

  it('bare names suggest the closest objects; an unknown function lists every function', async () => {
    const bare = await refused('SELECT carrier_name, COUNT([Flight])');
    expect(bare.context.suggestions).toContain('[Carrier Name]');
    const fn = await refused('SELECT [Origin], PERCENTIL([Distance], 0.5)');
    expect(fn.message).toMatch(/did you mean PERCENTILE/);
    expect(fn.message).toMatch(/AQL's functions: .*DATE_TRUNC.*ROW_NUMBER/);
  });

  it('over MCP a 0-row answer names the value that matches no member and the closest members', async () => {
    const r = await runAql(
      'SELECT [Carrier Name], COUNT([Flight]) WHERE [Carrier Name] = "delta air lines"',
    );
    expect(r.isError, r.text).toBe(false);
    const data = r.data as { rows: string[][]; warnings?: string[] };
    expect(data.rows).toEqual([]);
    expect(data.warnings).toEqual([
      '[Carrier Name] has no member "delta air lines"; closest members: "Delta Air Lines"',
    ]);
  });

  it('over MCP the same errors reach the assistant', async () => {
    const r = await runAql('SELECT origin FROM flights');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/AQL has no FROM or GROUP BY/);
    const star = await runAql('SELECT [Origin], COUNT(*)');
    expect(star.isError).toBe(true);
    expect(star.text).toMatch(/COUNT\(\[<dataset>\]\), e\.g\. COUNT\(\[flights\]\)/);
  });
});

describe('the new syntax answers the same over REST and MCP', () => {
  const QUERIES = [
    `SELECT DATE_TRUNC("month", [Flight Date]) AS "Month", COUNT([Flight]) AS "Flights",
       SUM(COUNT([Flight])) OVER (ORDER BY DATE_TRUNC("month", [Flight Date])) AS "Running"`,
    `SELECT [Origin State], [Carrier Name], SUM([Distance]) AS "Miles"
     QUALIFY ROW_NUMBER() OVER (PARTITION BY [Origin State] ORDER BY SUM([Distance]) DESC) = 1`,
    `SELECT UPPER([Carrier Name]) || " (" || [Carrier Code] || ")" AS "Carrier",
       PERCENTILE([Departure Delay], 0.9) AS "P90", STDDEV([Departure Delay]) AS "SD"
     WHERE [Carrier Name] ILIKE "%air%"`,
  ];
  for (const aql of QUERIES)
    it(aql.split('\n')[0]!, async () => {
      const rest = await rowsOf(s, ADMIN, aql);
      expect(rest.length).toBeGreaterThan(0);
      const r = await runAql(aql);
      expect(r.isError, r.text).toBe(false);
      // Every REST row appears in the MCP answer's text, cell by cell.
      for (const row of rest) for (const cell of row) expect(r.text).toContain(cell);
    });

  it('QUALIFY keeps one row per partition: the top carrier by miles in each state', async () => {
    const top = await rowsOf(s, ADMIN, QUERIES[1]!);
    const states = top.map((r) => r[0]);
    expect(new Set(states).size).toBe(states.length);
    const all = await rowsOf(s, ADMIN, 'SELECT [Origin State], [Carrier Name], SUM([Distance])');
    for (const [state, carrier, miles] of top) {
      const inState = all.filter((r) => r[0] === state).map((r) => Number(r[2]));
      expect(Number(miles)).toBe(Math.max(...inState));
      expect(all.some((r) => r[0] === state && r[1] === carrier)).toBe(true);
    }
  });

  it('an unquoted alias in ORDER BY orders by that column', async () => {
    const rows = await rowsOf(
      s,
      ADMIN,
      'SELECT [Origin], SUM([Distance]) AS Miles ORDER BY Miles DESC LIMIT 3',
    );
    expect(rows).toHaveLength(3);
    const miles = rows.map((r) => Number(r[1]));
    expect(miles).toEqual([...miles].sort((a, b) => b - a));
  });
});

describe('TODAY() follows URSA_TIMEZONE', () => {
  it('is bound as the date in that zone (explain shows it), so a cached answer never outlives its day', async () => {
    const r = await s.api('POST', `/projects/${s.demo}/app/aql/explain`, {
      body: { aql: 'SELECT COUNT([Flight]) WHERE [Flight Date] <= DATE_ADD("day", -1, TODAY())' },
    });
    expect(r.status, r.text).toBe(200);
    // DATE_ADD of a constant is computed at compile time: yesterday in that zone.
    expect(r.json.explain.params).toContain(shiftDate(todayIn('Pacific/Kiritimati'), 'day', -1));
    expect(todayIn('Pacific/Kiritimati', new Date('2025-01-07T12:00:00Z'))).toBe('2025-01-08');
  });

  it('an unknown zone is refused at start-up', () => {
    expect(() => loadConfig({ URSA_TIMEZONE: 'Mars/Olympus_Mons' })).toThrow(/URSA_TIMEZONE/);
  });
});

describe('the AQL cheatsheet', () => {
  const examples = CHEATSHEET.split('\n').filter((l) => l.startsWith('SELECT '));
  /** The example on the line after the one holding `words`. */
  const exampleAfter = (words: string) => {
    const lines = CHEATSHEET.split('\n');
    return lines[lines.findIndex((l) => l.includes(words)) + 1]!;
  };
  const read = (sql: string) =>
    s.engine.dbs.read(s.demo, async (c) => (await c.runAndReadAll(sql)).getRowsJson());

  it('every example in it is a query that runs on the demo project', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(8);
    for (const aql of examples) {
      const rows = await rowsOf(s, ADMIN, aql);
      expect(rows.length, aql).toBeGreaterThan(0);
    }
  });

  it('is the full text: it does not send the reader to itself for the full cheatsheet', () => {
    expect(CHEATSHEET).not.toMatch(/aql_help|ursa:\/\/aql\/cheatsheet/);
    expect(CHEATSHEET_HEAD).toMatch(/the full cheatsheet: the aql_help tool/);
  });

  it('says what COUNT counts: rows of a dataset, distinct values of an attribute, values of a fact', async () => {
    expect(CHEATSHEET).toMatch(/COUNT\(\[flights\]\) the rows of dataset flights/);
    expect(CHEATSHEET).toMatch(/COUNT\(\[Origin\]\), of an attribute, its distinct values/);
    expect(CHEATSHEET).toMatch(
      /COUNT\(\[Departure Delay\]\),\s+of a fact, the rows where it has a value/,
    );
    const [counted] = await rowsOf(s, ADMIN, exampleAfter('among the rows of another dataset'));
    const [want] = await read(
      'SELECT count(*), count(dep_delay), count(DISTINCT origin) FROM ds_flights',
    );
    expect(counted).toEqual(want!.map(String));
  });

  it('shows conditional aggregation, computing what it says', async () => {
    const aql = exampleAfter('Conditional aggregation');
    expect(aql).toContain('AVG(CASE WHEN [Cancelled] THEN 1 ELSE 0 END)');
    const got = await rowsOf(s, ADMIN, `${aql} ORDER BY 1`);
    const want = await read(`SELECT c.name, avg(CASE WHEN cancelled THEN 1 ELSE 0 END),
        sum(CASE WHEN dep_delay > 15 THEN 1 ELSE 0 END)
      FROM ds_flights f JOIN ds_carriers c ON c.code = f.carrier GROUP BY 1 ORDER BY 1`);
    expect(got.map((r) => [r[0], Number(r[1]).toFixed(9), r[2]])).toEqual(
      want.map((r) => [r[0], Number(r[1]).toFixed(9), String(r[2])]),
    );
  });

  it('says BY ALL keeps WHERE, and shows a share of the unfiltered total', async () => {
    expect(CHEATSHEET).toMatch(/BY ALL drops the dimensions but keeps the query's WHERE/);
    expect(CHEATSHEET).toMatch(/For a share of the unfiltered total/);
    const share = (rows: string[][]) => rows.reduce((t, r) => t + Number(r[1]), 0);
    // Filtered: the shares of the CA flights add up to 1.
    const filtered = await rowsOf(s, ADMIN, exampleAfter("keeps the query's WHERE"));
    expect(share(filtered)).toBeCloseTo(1, 9);
    // Unfiltered: they add up to the CA flights' share of all flights.
    const all = await rowsOf(s, ADMIN, exampleAfter('For a share of the unfiltered total'));
    const [[ca, total]] = (await read(`SELECT count(*) FILTER (WHERE a.state = 'CA'), count(*)
      FROM ds_flights f JOIN ds_airports a ON a.code = f.origin`)) as [[unknown, unknown]];
    expect(share(all)).toBeCloseTo(Number(ca) / Number(total), 9);
  });

  it("says a sub-select keeps the query's WHERE and adds its own, computing what it says", async () => {
    expect(CHEATSHEET).toMatch(/every sub-select too \(a sub-select's own WHERE adds to it\)/);
    const rows = await rowsOf(s, ADMIN, exampleAfter('A sub-select keeps the query'));
    const [want] = (await read(`SELECT count(*) FILTER (WHERE f.cancelled), count(*)
      FROM ds_flights f JOIN ds_airports a ON a.code = f.origin WHERE a.state = 'CA'`)) as [
      [unknown, unknown],
    ];
    // Per carrier, cancelled CA flights over CA flights: weighted back, the CA total share.
    const flights = await rowsOf(
      s,
      ADMIN,
      'SELECT [Carrier Name], COUNT([flights]) WHERE [Origin State] = "CA"',
    );
    const n = new Map(flights.map((r) => [r[0], Number(r[1])]));
    const cancelled = rows.reduce((t, r) => t + Number(r[1]) * n.get(r[0])!, 0);
    expect(cancelled).toBeCloseTo(Number(want![0]), 6);
    expect(Number(want![0])).toBeLessThan(Number(want![1]));
  });

  it('is an MCP resource and the aql_help tool', async () => {
    const listed = await mcp.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain('ursa://aql/cheatsheet');
    const read = await mcp.readResource({ uri: 'ursa://aql/cheatsheet' });
    expect((read.contents[0] as { text: string }).text).toBe(CHEATSHEET);
    const help = await mcp.callTool({ name: 'aql_help', arguments: {} });
    expect((help.structuredContent as { cheatsheet: string }).cheatsheet).toBe(CHEATSHEET);
  });

  it('the rules an AQL error is about follow it over MCP (not the whole list), not over REST', async () => {
    const rules = CHEATSHEET_HEAD.split('\n').slice(1);
    const [brackets, , aggregate, form, quotes, metrics] = rules as [string, ...string[]];
    const r = await runAql('SELECT [Origin State], SUM([Distance]');
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^AQL error: syntax error at line 1, column 38/);
    expect(r.text).toContain('AQL in brief (the full cheatsheet: the aql_help tool');
    for (const rule of [brackets, form, quotes]) expect(r.text).toContain(rule);
    expect(r.text).not.toContain(metrics);
    const nested = await runAql('SELECT AVG(SUM([Distance]))');
    expect(nested.text).toContain(aggregate);
    expect(nested.text).toMatch(/AVG\(SUM\(\[<fact>\]\) BY \[<attribute>\]\)/);
    expect(nested.text).not.toContain(quotes);
    const rest = await refused('SELECT [Origin State], SUM([Distance]');
    expect(rest.message).not.toContain('AQL in brief');
  });
});
