// The phases of compiling AQL, each on its own (parse → resolve → plan → SQL), on the demo
// project's real model: what each phase produces, and that its errors point at their token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Expr, Query } from '../src/engine/aql/ast.js';
import { AqlError } from '../src/engine/aql/errors.js';
import { parse } from '../src/engine/aql/parser.js';
import { planQuery } from '../src/engine/aql/plan.js';
import { resolveQuery, type ResolvedQuery } from '../src/engine/aql/query-resolve.js';
import type { ResolveEnv } from '../src/engine/aql/resolve.js';
import { toSql } from '../src/engine/aql/sql-query.js';
import { shiftDate } from '../src/engine/aql/sqlgen.js';
import { EMBEDDED } from '../src/engine/backends/embedded/target.js';
import { waitForDemo } from './helpers/aql-demo.js';
import { startTestServer, type TestServer } from './helpers/server.js';

let s: TestServer;
let env: () => ResolveEnv;

beforeAll(async () => {
  s = await startTestServer({ URSA_DEMO_DATA: 'true' });
  await waitForDemo(s);
  const snap = await s.engine.aql.snapshot(s.demo);
  env = () => ({ snap, visible: () => true, counter: { n: 0 } });
}, 120_000);
afterAll(() => s?.close());

const resolved = (aql: string, filter: string | null = null): ResolvedQuery =>
  resolveQuery(parse(aql, 'query'), env(), filter);
const planned = (aql: string) => {
  const rq = resolved(aql);
  return { rq, plan: planQuery(rq, env().snap) };
};
const sqlOf = (aql: string, today = '2025-01-07') => {
  const { rq, plan } = planned(aql);
  return toSql(rq, plan, env().snap, today, EMBEDDED);
};
/** The error a phase throws: message and where. */
function errorOf(fn: () => unknown): { message: string; at: [number, number, string] } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof AqlError)) throw err;
    const c = err.context as { line: number; column: number; found: string };
    return { message: err.message, at: [c.line, c.column, c.found] };
  }
  throw new Error('no error');
}

describe('parse', () => {
  it('a window: its function, PARTITION BY, ORDER BY and frame, and where it is written', () => {
    const q: Query = parse(
      'SELECT [A],\n  LAG(SUM([X]), 2, 0) OVER (PARTITION BY [A] ORDER BY [B] DESC ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)\nQUALIFY ROW_NUMBER() OVER (ORDER BY [B]) = 1',
      'query',
    );
    const w = q.items[1]!.expr as Extract<Expr, { k: 'window' }>;
    expect(w.k).toBe('window');
    expect([w.pos.line, w.pos.column]).toEqual([2, 3]);
    expect(w.call.name).toBe('LAG');
    expect(w.call.args.map((a) => a.pos.text)).toEqual(['SUM([X])', '2', '0']);
    expect(w.over.partition.map((p) => p.pos.text)).toEqual(['[A]']);
    expect(w.over.order.map((o) => [o.e.pos.text, o.desc])).toEqual([['[B]', true]]);
    expect(w.over.frame).toMatchObject({
      unit: 'ROWS',
      from: { kind: 'preceding', n: 3 },
      to: { kind: 'current', n: null },
    });
    expect(q.qualify?.k).toBe('cmp');
  });

  it('|| joins text; a name without brackets and * are kept for resolution to explain', () => {
    const q = parse('SELECT origin, [A] || "-" || [B], COUNT(*)', 'query');
    expect(q.items[0]!.expr).toMatchObject({ k: 'bare', name: 'origin' });
    expect(q.items[1]!.expr).toMatchObject({ k: 'arith', op: '||' });
    expect((q.items[2]!.expr as Extract<Expr, { k: 'call' }>).args[0]).toMatchObject({ k: 'star' });
  });

  it('SQL habits are refused at their token before parsing', () => {
    expect(errorOf(() => parse('SELECT [A]\n  FROM t', 'query')).at).toEqual([2, 3, 'FROM']);
    expect(errorOf(() => parse('SELECT TOP 3 [A]', 'query')).message).toMatch(/LIMIT 3/);
    // After AS any word is an alias, and LEFT( is a function.
    expect(() => parse('SELECT LEFT([A], 2) AS from', 'query')).not.toThrow();
  });
});

describe('resolve', () => {
  it('expressions of attributes are dimensions; aggregations and windows are measures', () => {
    const rq = resolved(
      'SELECT UPPER([Carrier Name]), DATE_TRUNC("month", [Flight Date]), COUNT([Flight]), RANK() OVER (ORDER BY COUNT([Flight]))',
    );
    expect(rq.items.map((i) => [i.kind, i.dataType])).toEqual([
      ['dimension', 'string'],
      ['dimension', 'date'],
      ['measure', 'number'],
      ['measure', 'number'],
    ]);
    expect(rq.dims).toHaveLength(2);
  });

  it('every resolved node keeps its own position; inside a window the dimension becomes its column', () => {
    const rq = resolved(
      'SELECT [Origin State],\n  SUM(COUNT([Flight])) OVER (PARTITION BY [Origin State])',
    );
    const w = rq.items[1]!.v as Extract<ResolvedQuery['items'][number]['v'], { t: 'win' }>;
    expect(w.t).toBe('win');
    expect([w.pos.line, w.pos.column]).toEqual([2, 3]);
    expect(w.partition[0]).toMatchObject({ t: 'col', col: { column: '0' } });
    expect([w.partition[0]!.pos.line, w.partition[0]!.pos.column]).toEqual([2, 43]);
  });

  it('errors point at their own token, not at the start of the item', () => {
    expect(
      errorOf(() => resolved('SELECT [Origin State], COUNT([Flight]),\n  UPPER([Distance])')).at,
    ).toEqual([2, 3, 'UPPER([Distance])']);
    expect(
      errorOf(() => resolved('SELECT COUNT([Flight])\nWHERE RANK() OVER (ORDER BY [Origin]) = 1'))
        .at,
    ).toEqual([2, 7, 'RANK() OVER (ORDER BY [Origin])']);
  });

  it('collects text values compared in WHERE, for explaining a 0-row answer', () => {
    const rq = resolved(
      'SELECT COUNT([Flight]) WHERE [Carrier Name] = "delta" OR [Origin State] IN ("ca", "NY")',
    );
    expect(rq.valueChecks.map((c) => [c.col.obj.name, c.value, c.pos.column])).toEqual([
      ['Carrier Name', 'delta', 47],
      ['Origin State', 'ca', 77],
      ['Origin State', 'NY', 83],
    ]);
  });
});

describe('plan', () => {
  it('leaves with one anchor and grain share one scan; equal leaves are planned once', () => {
    const { plan } = planned(
      'SELECT [Origin State], SUM([Distance]), COUNT([Flight]), SUM([Distance]) * 2',
    );
    expect(plan.leaves).toHaveLength(2);
    expect(plan.groups).toEqual([{ leaves: [0, 1], grain: [0], rollup: null }]);
    expect(plan.frame).toEqual({ kind: 'group', g: 0 });
  });

  it('a BY ALL sum or row count is rolled up from its full-grain twin, a distinct count is not', () => {
    const { plan } = planned(
      'SELECT [Origin State], [Carrier Name], SUM([Distance]), (SELECT SUM([Distance]) BY ALL [Carrier Name]), COUNT([Flight]), (SELECT COUNT([Flight]) BY ALL), COUNT([Origin]), (SELECT COUNT([Origin]) BY ALL)',
    );
    const rollups = plan.groups.filter((g) => g.rollup).map((g) => [g.grain, g.rollup!.fn]);
    expect(rollups).toEqual([
      [[0], 'sum'],
      [[], 'sum'],
    ]);
    // COUNT([Origin]) counts distinct airports: its total is scanned, not added up.
    expect(plan.groups.filter((g) => !g.rollup).map((g) => g.grain)).toEqual([[0, 1], []]);
  });

  it('the frame: one row, one group, a union of groups, or the distinct dimension values', () => {
    expect(planned('SELECT COUNT([Flight])').plan.frame).toEqual({ kind: 'one' });
    expect(
      planned('SELECT [Origin State], COUNT([Airport Code]), COUNT([Flight])').plan.frame.kind,
    ).toBe('union');
    expect(planned('SELECT [Origin State], [Carrier Name]').plan.frame).toMatchObject({
      kind: 'distinct',
      dataset: 'flights',
    });
  });

  it('a missing join path is reported at the aggregation that needs it', () => {
    expect(errorOf(() => planned('SELECT [Carrier Name],\n    COUNT([Calendar Date])')).at).toEqual(
      [2, 5, 'COUNT([Calendar Date])'],
    );
  });
});

describe('SQL', () => {
  it('windows and QUALIFY are rendered over the assembled rows, after HAVING', () => {
    const { sql } = sqlOf(
      'SELECT [Origin State], SUM([Distance]) HAVING SUM([Distance]) > 0 QUALIFY RANK() OVER (ORDER BY SUM([Distance]) DESC) <= 3',
    );
    expect(sql).toMatch(
      / WHERE \(l0\.v0 > \$\d\) QUALIFY \(rank\(\) OVER \(ORDER BY l0\.v0 DESC NULLS LAST\) <= \$\d\) ORDER BY /,
    );
  });

  it('ROW_NUMBER breaks ties by the dimensions; frames are written out', () => {
    const { sql } = sqlOf(
      'SELECT [Origin State], ROW_NUMBER() OVER (ORDER BY COUNT([Flight])), AVG(COUNT([Flight])) OVER (ORDER BY [Origin State] ROWS 2 PRECEDING)',
    );
    expect(sql).toContain(
      'row_number() OVER (ORDER BY coalesce(l0.v0, 0) ASC NULLS LAST, l0.x0 ASC NULLS LAST, l0.k0 ASC NULLS LAST)',
    );
    expect(sql).toContain('ROWS BETWEEN 2 PRECEDING AND CURRENT ROW');
  });

  it('TODAY() is a bound date, and one value is one parameter however often it is used', () => {
    const { sql, params } = sqlOf(
      'SELECT UPPER(CONCAT([Origin City], ", ", [Origin State])), COUNT([Flight]) WHERE [Flight Date] >= DATE_ADD("day", -30, TODAY())',
      '2025-01-07',
    );
    // DATE_ADD of TODAY() by a constant is computed here: the database gets one date.
    expect(params).toContain('2024-12-08');
    expect(
      sqlOf('SELECT COUNT([Flight]) WHERE [Flight Date] <= TODAY()', '2025-01-07').params,
    ).toContain('2025-01-07');
    expect(params.filter((p) => p === ', ')).toHaveLength(1);
    // The dimension renders identically in SELECT and GROUP BY.
    const dim = /SELECT (upper\(concat\([^)]*\)\)) AS k0/.exec(sql)![1]!;
    expect(sql).toContain(`GROUP BY ${dim}`);
  });

  it('measures of two anchors at the full grain meet in one FULL JOIN, no other join', () => {
    const { sql } = sqlOf('SELECT [Origin State], COUNT([Airport Code]), COUNT([Flight])');
    expect(sql).toMatch(
      /f AS \(SELECT coalesce\(l0\.k0, l1\.k0\) AS k0, .* FROM l0 FULL JOIN l1 ON l0\.k0 IS NOT DISTINCT FROM l1\.k0\)/,
    );
    expect(sql).not.toMatch(/LEFT JOIN l\d/);
    expect(sql).toContain(
      'SELECT f.x0 AS c0, coalesce(f.g0_v0, 0) AS c1, coalesce(f.g1_v0, 0) AS c2 FROM f ',
    );
  });

  it("a count of the anchor's key counts rows; a label of a primary key groups by the key alone", () => {
    const { sql } = sqlOf(
      'SELECT [Carrier Name], [Month Name], COUNT([Flight]), COUNT([Departure Delay]), COUNT([Origin])',
    );
    // [Flight] is the flights' key: count(*) reads no column. A fact counts its values, an
    // attribute its distinct values.
    expect(sql).toContain(
      'count(*) AS v0, count(t0."dep_delay") AS v1, count(DISTINCT t0."origin") AS v2',
    );
    // A carrier's name is fixed by its code (the carriers' key); a month's name is a label of
    // [Month], which is not the calendar's key, so both stay in GROUP BY.
    expect(sql).toContain('any_value(t1."name") AS x0');
    expect(sql).toContain('GROUP BY t1."code", t2."month", t2."month_name"');
  });

  it('a rolled-up BY ALL reads its twin, not the dataset', () => {
    const { sql } = sqlOf(
      'SELECT [Origin State], COUNT([Flight]) / (SELECT COUNT([Flight]) BY ALL)',
    );
    // A window over the frame's rows, which are the twin's: no second aggregation.
    expect(sql).toContain('sum(l0.v0) OVER ()');
    expect(sql).not.toContain('l1 AS');
    expect(sql.match(/FROM "ds_flights"|FROM ds_flights/g) ?? []).toHaveLength(1);
    const kept = sqlOf(
      'SELECT [Origin Region], [Origin State], COUNT([Flight]) / (SELECT COUNT([Flight]) BY ALL [Origin State])',
    ).sql;
    expect(kept).toContain('sum(l0.v0) OVER (PARTITION BY l0.k0)');
  });

  it('a total beside a NEST or an aggregation over groups of the same measure adds up their finer groups: one scan', () => {
    for (const aql of [
      'SELECT [Origin State], COUNT([Flight]), NEST(SELECT [Carrier Name], COUNT([Flight]) ORDER BY 2 DESC LIMIT 3)',
      'SELECT [Origin State], COUNT([Flight]), AVG(COUNT([Flight]) BY [Flight Date])',
    ]) {
      const { sql } = sqlOf(aql);
      expect(sql, aql).toMatch(/sum\(v0\) AS v0 FROM l0_l0 GROUP BY/);
      expect(sql.match(/FROM "ds_flights"|FROM ds_flights/g) ?? [], aql).toHaveLength(1);
    }
    // A NEST's own WHERE filters its rows only: the total is computed on its own.
    const own = sqlOf(
      'SELECT [Origin State], COUNT([Flight]), NEST(SELECT [Carrier Name], COUNT([Flight]) WHERE [Cancelled])',
    ).sql;
    expect(own.match(/FROM "ds_flights"|FROM ds_flights/g) ?? []).toHaveLength(2);
  });

  it('under HAVING or beside a window of its own, it is a second aggregation of the twin', () => {
    for (const tail of [
      'HAVING COUNT([Flight]) > 10',
      'QUALIFY RANK() OVER (ORDER BY COUNT([Flight])) < 3',
    ]) {
      const { sql } = sqlOf(
        `SELECT [Origin State], COUNT([Flight]) / (SELECT COUNT([Flight]) BY ALL) ${tail}`,
      );
      expect(sql).toContain('l1 AS (SELECT sum(v0) AS v0 FROM l0)');
      expect(sql).not.toContain('OVER ()');
    }
  });
});

describe('constant dates are moved at compile time, as the database would', () => {
  it('days, weeks, month ends, leap years, quarters and years; odd years are left to the database', () => {
    expect(shiftDate('2025-01-07', 'day', -30)).toBe('2024-12-08');
    expect(shiftDate('2024-02-26', 'week', 1)).toBe('2024-03-04');
    expect(shiftDate('2024-01-31', 'month', 1)).toBe('2024-02-29');
    expect(shiftDate('2023-01-31', 'month', 1)).toBe('2023-02-28');
    expect(shiftDate('2024-03-31', 'month', -1)).toBe('2024-02-29');
    expect(shiftDate('2024-11-30', 'quarter', 1)).toBe('2025-02-28');
    expect(shiftDate('2024-02-29', 'year', 1)).toBe('2025-02-28');
    expect(shiftDate('0050-01-01', 'day', 1)).toBeNull();
    expect(shiftDate('8999-12-31', 'year', 2000)).toBeNull();
  });

  it('matches DuckDB for every unit over a span of days', async () => {
    const cases: [string, string, number][] = [];
    for (const unit of ['day', 'week', 'month', 'quarter', 'year'])
      for (const n of [-13, -1, 1, 2, 11])
        for (const day of ['2023-01-29', '2023-12-31', '2024-02-29', '2024-05-31', '2024-08-31'])
          cases.push([day, unit, n]);
    const sql = cases
      .map(
        ([d, u, n]) =>
          `CAST(CAST('${d}' AS DATE) + ${u === 'quarter' ? `to_months(${n} * 3)` : `to_${u}s(${n})`} AS DATE)::VARCHAR`,
      )
      .join(', ');
    const rows = await s.engine.dbs.read(s.demo, async (c) =>
      (await c.runAndReadAll(`SELECT ${sql}`)).getRowsJson(),
    );
    expect(rows[0]).toEqual(cases.map(([d, u, n]) => shiftDate(d, u, n)));
  });
});
