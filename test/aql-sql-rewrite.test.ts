// SQL habits answered with the query to write (the trap: `SELECT origin, SUM(distance) FROM
// flights GROUP BY origin` was explained, not rewritten). The error keeps its own token and
// offers the whole query in AQL, in the caller's names, in its message and last in
// context.suggestions: columns and tables mapped by id, source column and title, COUNT(*) to
// COUNT([dataset]), WHERE/HAVING/ORDER BY/LIMIT and aliases carried over, GROUP BY dropped,
// names that map to nothing left out and said. Every suggestion runs, and answers what the
// SQL would over the loaded tables.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForDemo } from './helpers/aql-demo.js';
import { connectMcp } from './helpers/mcp-client.js';
import { ADMIN, invite, startTestServer, type TestServer } from './helpers/server.js';

const NO_DEST = 'no-dest@example.com';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await waitForDemo(s);
  // A member who does not read [Destination]: it is not a name of theirs to map to.
  const dest = (await s.engine.model.get(s.demo, 'attr.flights.dest'))!;
  await s.engine.model.upsert(
    s.demo,
    [
      { ident: 'userrole.routes', type: 'userrole', name: 'Routes', def: { members: [] } },
      {
        ident: dest.ident,
        type: dest.type,
        name: dest.name,
        def: dest.def,
        acl: [{ userrole: 'userrole.routes', acl: 'r----' }],
      },
    ],
    ADMIN,
  );
  await invite(s, s.demo, NO_DEST);
}, 120_000);
afterAll(() => s?.close());

interface Refusal {
  message: string;
  context: {
    line: number;
    column: number;
    found: string;
    suggestions?: string[];
    leftOut?: string[];
  };
}

async function refused(aql: string, as = ADMIN): Promise<Refusal> {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, { as, body: { aql } });
  expect(r.status, `${aql}\n${r.text}`).toBe(400);
  return r.json as Refusal;
}

async function rows(aql: string, as = ADMIN): Promise<string[][]> {
  const r = await s.api('POST', `/projects/${s.demo}/app/aql/execute`, {
    as,
    body: { aql },
    headers: { Prefer: 'wait=10' },
  });
  expect(r.status, `${aql}\n${r.text}`).toBe(200);
  const v = r.json.data.values as string;
  return v === '' ? [] : v.split('\n').map((l) => l.split('\t'));
}

/** The SQL itself on the loaded tables (ds_<dataset>), as text cells. */
async function duck(sql: string): Promise<string[][]> {
  const out = await s.engine.dbs.read(s.demo, async (c) =>
    (await c.runAndReadAll(sql)).getRowsJson(),
  );
  return out.map((r) => r.map((v) => (v === null ? '' : String(v))));
}

/** The query in AQL an error offers: in its message and last among its suggestions. */
function offered(r: Refusal): string {
  const aql = r.context.suggestions!.at(-1)!;
  expect(r.message).toContain(`In AQL: ${aql}`);
  return aql;
}

describe('SQL written to AQL', () => {
  it('the issue’s query: FROM and GROUP BY go, names come in brackets, at the FROM token', async () => {
    const sql = 'SELECT origin, SUM(distance) FROM flights GROUP BY origin';
    const r = await refused(sql);
    expect(r.message).toMatch(/^AQL has no FROM or GROUP BY: name objects in brackets/);
    expect(r.context).toMatchObject({ line: 1, column: 30, found: 'FROM' });
    const aql = offered(r);
    expect(aql).toBe('SELECT [Origin], SUM([Distance])');
    expect(await rows(aql)).toEqual(
      await duck('SELECT origin, SUM(distance) FROM ds_flights GROUP BY origin ORDER BY origin'),
    );
  });

  it('COUNT(*), joins and table aliases, WHERE, ORDER BY an alias, LIMIT, and a trailing ;', async () => {
    const sql = `SELECT a.state, COUNT(*) AS n
      FROM flights f JOIN airports a ON f.origin = a.code
      WHERE f.cancelled = false AND f.distance BETWEEN 500 AND 3000
      GROUP BY a.state ORDER BY n DESC LIMIT 3;`;
    const aql = offered(await refused(sql));
    expect(aql).toBe(
      'SELECT [Origin State], COUNT([flights]) AS "n" WHERE [Cancelled] = FALSE AND [Distance] BETWEEN 500 AND 3000 ORDER BY "n" DESC LIMIT 3',
    );
    expect(await rows(aql)).toEqual(
      await duck(`SELECT a.state, COUNT(*) AS n FROM ds_flights f JOIN ds_airports a ON f.origin = a.code
        WHERE f.cancelled = false AND f.distance BETWEEN 500 AND 3000
        GROUP BY a.state ORDER BY n DESC, a.state LIMIT 3`),
    );
  });

  it('HAVING on an alias, positions in GROUP BY, titles written as snake_case', async () => {
    const sql =
      'SELECT origin_state, carrier_name, AVG(dep_delay) avg_delay FROM flights GROUP BY 1, 2 HAVING avg_delay > 12 ORDER BY avg_delay DESC LIMIT 5';
    const aql = offered(await refused(sql));
    expect(aql).toBe(
      'SELECT [Origin State], [Carrier Name], AVG([Departure Delay]) AS "avg_delay" HAVING AVG([Departure Delay]) > 12 ORDER BY "avg_delay" DESC LIMIT 5',
    );
    expect(await rows(aql)).toHaveLength(5);
  });

  it('TOP, COUNT(DISTINCT …) and EXTRACT', async () => {
    const top = offered(
      await refused('SELECT TOP 3 carrier, COUNT(DISTINCT origin) FROM flights GROUP BY carrier'),
    );
    expect(top).toBe('SELECT [Carrier], COUNT([Origin]) LIMIT 3');
    expect(await rows(top)).toEqual(
      await duck(
        'SELECT carrier, COUNT(DISTINCT origin) FROM ds_flights GROUP BY 1 ORDER BY 1 LIMIT 3',
      ),
    );
    const year = offered(
      await refused(
        'SELECT EXTRACT(YEAR FROM flight_date) AS yr, COUNT(*) FROM flights GROUP BY 1',
      ),
    );
    expect(year).toBe('SELECT YEAR([Flight Date]) AS "yr", COUNT([flights])');
    expect(await rows(year)).toEqual(
      await duck('SELECT year(flight_date), COUNT(*) FROM ds_flights GROUP BY 1 ORDER BY 1'),
    );
  });

  it('bare names without FROM, and COUNT(*) without FROM counts the finest dataset named', async () => {
    const r = await refused('SELECT origin_state, COUNT(*)');
    expect(r.message).toMatch(/^names go in brackets: \[Origin State\]/);
    expect(offered(r)).toBe('SELECT [Origin State], COUNT([flights])');
    const star = await refused('SELECT [Carrier Name], COUNT(*)');
    expect(star.context.suggestions).toEqual([
      'COUNT([flights])',
      'SELECT [Carrier Name], COUNT([flights])',
    ]);
  });

  it('a name that maps to nothing is left out with its item and condition, and said', async () => {
    const sql =
      'SELECT origin, wingspan, SUM(distance) FROM flights WHERE wingspan > 3 AND distance > 1000 GROUP BY origin, wingspan';
    const r = await refused(sql);
    const aql = offered(r);
    expect(aql).toBe('SELECT [Origin], SUM([Distance]) WHERE [Distance] > 1000');
    expect(r.message).toContain('(left out: wingspan;');
    expect(r.context.leftOut).toEqual(['wingspan']);
    expect(await rows(aql)).toEqual(
      await duck(
        'SELECT origin, SUM(distance) FROM ds_flights WHERE distance > 1000 GROUP BY 1 ORDER BY 1',
      ),
    );
  });

  it('maps only to objects the caller reads', async () => {
    const sql = 'SELECT dest, COUNT(*) FROM flights GROUP BY dest';
    expect(offered(await refused(sql))).toBe('SELECT [Destination], COUNT([flights])');
    const r = await refused(sql, NO_DEST);
    expect(offered(r)).toBe('SELECT COUNT([flights])');
    expect(r.context.leftOut).toEqual(['dest']);
    expect(JSON.stringify(r)).not.toContain('Destination');
  });

  it('offers nothing it cannot compile, and the habit’s own message stays', async () => {
    // A bare fact is no query: nothing is offered, the FROM error stands as it was.
    const r = await refused('SELECT distance FROM flights');
    expect(r.message).toBe(
      'AQL has no FROM or GROUP BY: name objects in brackets; the model finds the datasets and groups by every dimension',
    );
    expect(r.context.suggestions).toBeUndefined();
  });

  it('an assistant over MCP gets the query in AQL in the error text', async () => {
    const mcp = await connectMcp(s, ADMIN, 'sql-rewrite');
    try {
      const r = (await mcp.callTool({
        name: 'run_aql',
        arguments: {
          project: s.demo,
          aql: 'SELECT origin, SUM(distance) FROM flights GROUP BY origin',
        },
      })) as CallToolResult;
      expect(r.isError).toBe(true);
      const text = (r.content[0] as { text: string }).text;
      expect(text).toMatch(/^AQL error: AQL has no FROM or GROUP BY/);
      expect(text).toContain('In AQL: SELECT [Origin], SUM([Distance])');
      expect(text).not.toContain('did you mean');
    } finally {
      await mcp.close();
    }
  });
});
