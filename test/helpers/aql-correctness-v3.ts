// AQL v3 (issue 32) cases of the correctness suite (aql-correctness.ts), on both engines:
// aggregations over groups, `AVG(SUM([Amount]) BY [Customer])`. Expected answers are computed
// from the generated rows in plain TypeScript; on PostgreSQL the same questions are also asked
// of the warehouse in hand-written SQL, which must agree.
import { describe, expect, it } from 'vitest';
import { CALC, DATA, type Answer, type Row, type Val } from './aql-correctness.js';

interface V3 {
  engine: 'duckdb' | 'postgres';
  check: (aql: string, expected: Row[], opts?: { as?: string }) => Promise<Answer>;
  refused: (aql: string) => Promise<{ message: string }>;
  run: (aql: string, as?: string) => Promise<Answer>;
  /** PostgreSQL only: hand-written SQL on the warehouse's tables (schema shop). */
  hand: ((sql: string) => Promise<Record<string, unknown>[]>) | null;
}

type Leaf = Map<string, { key: Val[]; v: Val }> & { missing?: Val };
type Agg = (vs: (number | null)[]) => Val;

/**
 * `agg` over the values of `inner` per group of `outer` + `by` dimensions, per `outer` group:
 * what `AGG(inner BY by)` computes at the grain `outer`.
 */
function overGroups<R>(
  rows: readonly R[],
  outer: ((r: R) => Val)[],
  by: ((r: R) => Val)[],
  inner: (rs: R[]) => Val,
  agg: Agg,
): Leaf {
  return fromGroups(CALC.leaf(rows, [...outer, ...by], inner), outer.length, agg);
}

/** Per-group values (keys: outer dimensions first) aggregated per outer group. */
function fromGroups(groups: Leaf, outer: number, agg: Agg): Leaf {
  const byOuter = new Map<string, { key: Val[]; vs: Val[] }>();
  for (const e of groups.values()) {
    const key = e.key.slice(0, outer);
    const k = JSON.stringify(key);
    const g = byOuter.get(k) ?? { key, vs: [] };
    g.vs.push(e.v);
    byOuter.set(k, g);
  }
  return new Map(
    [...byOuter].map(([k, g]) => [k, { key: g.key, v: agg(g.vs as (number | null)[]) }]),
  );
}

const count: Agg = (vs) => vs.filter((v) => v !== null).length;
const only = (l: Leaf): Val => [...l.values()][0]?.v ?? null;

type Order = (typeof DATA.ORDERS)[number];
type Return = (typeof DATA.RETURNS)[number];

/** Hand SQL rows as the engine's cells: numbers as numbers, null as null. */
const cells = (rows: Record<string, unknown>[]): Row[] =>
  rows.map((r) =>
    Object.values(r).map((v) =>
      v === null
        ? null
        : typeof v === 'number' || /^-?\d+(\.\d+)?$/.test(String(v))
          ? Number(v)
          : String(v),
    ),
  );

export function v3Cases(t: V3): void {
  const { check, refused, hand } = t;
  // Read at call time: this module and aql-correctness.ts import each other.
  const { ORDERS, RETURNS, CUSTOMERS, RLS } = DATA;
  const { sum, avg, max, median, amounts, region, customerKey, year, month, EU, assemble } = CALC;

  describe('version 3: aggregations over groups (AGG(measure BY dims))', () => {
    it('the median, average, maximum and count of per-customer totals, in one query', async () => {
      const perCustomer = (agg: Agg) =>
        overGroups(ORDERS, [], [customerKey], (os) => sum(amounts(os)), agg);
      await check(
        'SELECT MEDIAN(SUM([Amount]) BY [Customer]), AVG(SUM([Amount]) BY [Customer]), MAX(SUM([Amount]) BY [Customer]), COUNT(SUM([Amount]) BY [Customer])',
        [
          [
            only(perCustomer(median)),
            only(perCustomer(avg)),
            only(perCustomer(max)),
            only(perCustomer(count)),
          ],
        ],
      );
    });

    it('at the query grain: per region, over the customers of that region', async () => {
      const aql =
        'SELECT [Region], AVG(SUM([Amount]) BY [Customer]), MAX(COUNT([Order ID]) BY [Customer]), SUM([Amount])';
      const expected = assemble(
        overGroups(ORDERS, [region], [customerKey], (os) => sum(amounts(os)), avg),
        overGroups(ORDERS, [region], [customerKey], (os) => os.length, max),
        CALC.leaf(ORDERS, [region], (os) => sum(amounts(os))),
      );
      await check(aql, expected);
      if (hand) {
        const rows = await hand(`
          SELECT g.region, avg(g.s), max(g.n), (SELECT sum(o2.amount) FROM shop.orders o2
            LEFT JOIN shop.customers c2 ON c2.customer_id = o2.customer_id
            WHERE c2.region IS NOT DISTINCT FROM g.region)
          FROM (SELECT c.region, c.customer_id, sum(o.amount) AS s, count(*) AS n
                FROM shop.orders o LEFT JOIN shop.customers c ON c.customer_id = o.customer_id
                GROUP BY 1, 2) g
          GROUP BY 1 ORDER BY 1 NULLS LAST`);
        await check(aql, cells(rows));
      }
    });

    it('a date part as the groups: the average of monthly totals per year', async () => {
      await check(
        'SELECT YEAR([Order Date]), AVG(SUM([Amount]) BY MONTH([Order Date])), COUNT(COUNT([Order ID]) BY MONTH([Order Date]))',
        assemble(
          overGroups(ORDERS, [year], [month], (os) => sum(amounts(os)), avg),
          overGroups(ORDERS, [year], [month], (os) => os.length, count),
        ),
      );
    });

    it('conditions on per-group values: customers who ordered in both years, customers whose first order was in 2024', async () => {
      const both = overGroups(
        ORDERS,
        [],
        [customerKey],
        (os) => {
          const ys = new Set(os.map(year));
          return ys.has(2023) && ys.has(2024) ? 1 : null;
        },
        count,
      );
      const first2024 = overGroups(
        ORDERS,
        [],
        [customerKey],
        (os) =>
          os
            .map((o) => o.order_date)
            .sort()[0]!
            .startsWith('2024')
            ? 1
            : null,
        count,
      );
      const a = await check(
        'SELECT COUNT(CASE WHEN SUM(CASE WHEN YEAR([Order Date]) = 2023 THEN 1 ELSE 0 END) > 0 AND SUM(CASE WHEN YEAR([Order Date]) = 2024 THEN 1 ELSE 0 END) > 0 THEN 1 END BY [Customer]) AS "Both years", COUNT(CASE WHEN YEAR(MIN([Order Date])) = 2024 THEN 1 END BY [Customer]) AS "First in 2024"',
        [[only(both), only(first2024)]],
      );
      expect(a.titles).toEqual(['Both years', 'First in 2024']);
      expect(Number(a.rows[0]![0])).toBeGreaterThan(0);
    });

    it('a measure of two fact datasets per customer (chasm-safe), averaged per region', async () => {
      // Per customer: revenue minus refunds, each computed on its own rows; a customer with
      // returns only is a group too.
      const net = new Map<string, { key: Val[]; v: Val }>();
      const add = (key: Val[], v: Val) => {
        const k = JSON.stringify(key);
        const e = net.get(k) ?? { key, v: 0 };
        e.v = (e.v as number) + ((v as number | null) ?? 0);
        net.set(k, e);
      };
      for (const e of CALC.leaf(ORDERS, [region, customerKey], (os: Order[]) =>
        sum(amounts(os)),
      ).values())
        add(e.key, e.v);
      for (const e of CALC.leaf(RETURNS, [region, customerKey], (rs: Return[]) =>
        sum(rs.map((r) => r.refund)),
      ).values())
        add(e.key, e.v === null ? 0 : -(e.v as number));
      await check(
        'SELECT [Region], AVG(IFNULL(SUM([Amount]), 0) - IFNULL(SUM([Refund]), 0) BY [Customer])',
        assemble(fromGroups(net, 1, avg)),
      );
    });

    it('the query WHERE applies inside; a saved metric and a sub-select work per group; ORDER BY and HAVING take it', async () => {
      const paid = ORDERS.filter((o) => o.status === 'paid');
      await check('SELECT AVG(SUM([Amount]) BY [Customer]) WHERE [Status] = "paid"', [
        [only(overGroups(paid, [], [customerKey], (os) => sum(amounts(os)), avg))],
      ]);
      // [Revenue] is SUM([Amount]); [Revenue Share] divides it by its BY ALL total, which
      // inside the groups is still the total of all rows (BY ALL removes every dimension).
      const perRegion = overGroups(ORDERS, [region], [customerKey], (os) => sum(amounts(os)), max);
      const total = sum(amounts(ORDERS))!;
      const expected = assemble(perRegion)
        .map(([r, v]) => [r!, v!, (v as number) / total])
        .filter((row) => (row[1] as number) > 1000)
        .sort((x, y) => (y[2] as number) - (x[2] as number));
      await check(
        'SELECT [Region], MAX([Revenue] BY [Customer]), MAX([Revenue Share] BY [Customer]) HAVING MAX(SUM([Amount]) BY [Customer]) > 1000 ORDER BY 3 DESC',
        expected,
      );
    });

    it('a saved metric may aggregate over groups and is broken down like any other', async () => {
      const r = await t.run('SELECT [Region], [Avg Customer Revenue]');
      expect(r.titles).toEqual(['Region', 'Avg Customer Revenue']);
      await check(
        'SELECT [Region], [Avg Customer Revenue]',
        assemble(overGroups(ORDERS, [region], [customerKey], (os) => sum(amounts(os)), avg)),
      );
    });

    it('the row-level filter applies inside every group', async () => {
      await check(
        'SELECT MEDIAN(SUM([Amount]) BY [Customer]), COUNT(COUNT([Order ID]) BY [Customer])',
        [
          [
            only(overGroups(EU(ORDERS), [], [customerKey], (os) => sum(amounts(os)), median)),
            only(overGroups(EU(ORDERS), [], [customerKey], (os) => os.length, count)),
          ],
        ],
        { as: RLS },
      );
      expect(CUSTOMERS.some((c) => c.region !== 'EU')).toBe(true);
    });

    it('NEST: per region, its two statuses with the largest amount (ties by status), beside a measure', async () => {
      const aql =
        'SELECT [Region], COUNT([Order ID]) AS "Orders", NEST(SELECT [Status], SUM([Amount]) AS "Amount" ORDER BY 2 DESC LIMIT 2) AS "Top statuses"';
      const a = await t.run(aql);
      expect(a.titles).toEqual(['Region', 'Orders', 'Top statuses']);
      const byRegion = CALC.leaf(ORDERS, [region], (os) => os.length);
      const expected = assemble(byRegion).map(([r, n]) => {
        const statuses = CALC.leaf(
          ORDERS.filter((o) => region(o) === r),
          [CALC.status],
          (os) => sum(amounts(os)),
        );
        const top = [...statuses.values()]
          .map((e) => ({ Status: e.key[0], Amount: e.v }))
          .sort((x, y) =>
            x.Amount === y.Amount
              ? String(x.Status) < String(y.Status)
                ? -1
                : 1
              : x.Amount === null
                ? 1
                : y.Amount === null
                  ? -1
                  : (y.Amount as number) - (x.Amount as number),
          )
          .slice(0, 2);
        return [r, n, top] as const;
      });
      expect(a.rows.map((row) => row[0] || null)).toEqual(expected.map((e) => e[0]));
      a.rows.forEach((row, i) => {
        expect(Number(row[1])).toBe(expected[i]![1]);
        const got = JSON.parse(row[2]!) as { Status: string; Amount: number }[];
        const want = expected[i]![2];
        expect(got.map((g) => g.Status)).toEqual(want.map((w) => w.Status));
        got.forEach((g, j) => expect(g.Amount).toBeCloseTo(want[j]!.Amount as number, 6));
      });
    });

    it("NEST: its WHERE adds to the query's, HAVING and OFFSET apply per row (an empty list, not a lost row), and the row filter applies inside", async () => {
      const a = await t.run(
        'SELECT [Region], NEST(SELECT YEAR([Order Date]) AS "Year", COUNT([Order ID]) AS "Orders" WHERE [Status] = "paid" HAVING COUNT([Order ID]) > 40 ORDER BY 1 LIMIT 1 OFFSET 1) AS "Second busy year" WHERE [Amount] > 100',
      );
      const rows = ORDERS.filter((o) => (o.amount ?? 0) > 100);
      const regions = [...new Set(rows.map(region))];
      const want = new Map(
        regions.map((r) => {
          const years = [
            ...CALC.leaf(
              rows.filter((o) => region(o) === r && o.status === 'paid'),
              [year],
              (os) => os.length,
            ).values(),
          ]
            .filter((e) => (e.v as number) > 40)
            .sort((x, y) => (x.key[0] as number) - (y.key[0] as number))
            .slice(1, 2)
            .map((e) => ({ Year: e.key[0], Orders: e.v }));
          return [r, years];
        }),
      );
      expect(a.rows.length).toBe(regions.length);
      for (const row of a.rows) expect(JSON.parse(row[1]!)).toEqual(want.get(row[0] || null));
      expect(a.rows.some((row) => row[1] === '[]')).toBe(true);
      const eu = await t.run(
        'SELECT NEST(SELECT [Region], COUNT([Order ID]) AS "Orders") AS "Regions"',
        RLS,
      );
      expect(JSON.parse(eu.rows[0]![0]!)).toEqual([{ Region: 'EU', Orders: EU(ORDERS).length }]);
    });

    it('refuses what is not an aggregation over groups, saying how to write one', async () => {
      expect((await refused('SELECT MEDIAN(SUM([Amount]))')).message).toMatch(
        /cannot be nested.*BY, e\.g\. AVG\(SUM\(\[[^\]]+\]\) BY \[/,
      );
      expect((await refused('SELECT MEDIAN([Amount] BY [Customer])')).message).toMatch(
        /MEDIAN\(… BY …\) aggregates a measure computed per group, and "\[Amount\]" does not aggregate/,
      );
      expect((await refused('SELECT ROUND(SUM([Amount]) BY [Customer])')).message).toMatch(
        /ROUND takes no BY/,
      );
      expect((await refused('SELECT SUM(SUM([Amount]) BY SUM([Qty]))')).message).toMatch(
        /BY takes dimensions/,
      );
      expect((await refused('SELECT SUM(SUM([Amount]) BY [Qty])')).message).toMatch(/is a fact/);
      expect((await refused('SELECT SUM(SUM([Amount]) BY [Customer]) OVER ()')).message).toMatch(
        /takes no BY/,
      );
    });
  });
}
