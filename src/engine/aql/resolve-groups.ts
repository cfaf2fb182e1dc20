// Aggregations over groups: `MEDIAN(SUM([Net]) BY [Order ID])` is the median, over orders, of
// each order's net. The first argument is a measure (anything a SELECT measure may be); it is
// computed at the query's grain plus the BY dimensions, as a query of its own (so it is as
// fan- and chasm-safe as any measure), and the outer function aggregates those values to the
// query's grain (plan.ts, sql-query.ts).
import type { Expr } from './ast.js';
import { toDim, type Dim } from './dims.js';
import { examplesFor } from './examples.js';
import { hasAgg, hasWindow, shapeKey, type AggFn, type Leaf, type V } from './ir.js';
import { fail, posIn, where, type Ctx } from './resolve-ctx.js';

type Call = Extract<Expr, { k: 'call' }>;

/** What each outer function does with the per-group values (COUNT: the groups with a value). */
export const GROUP_FNS = [
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'MEDIAN',
  'COUNT',
  'COUNT_DISTINCT',
  'PERCENTILE',
  'STDDEV',
];

export function aggregateOverGroups(e: Call, ctx: Ctx): V {
  const name = e.name;
  const ex = () => examplesFor(ctx.env, ctx.trusted);
  const example = () =>
    `${name === 'COUNT' ? 'AVG' : name}(SUM(${ex().fact()}) BY ${ex().attribute()})`;
  if (!GROUP_FNS.includes(name))
    throw fail(
      `${name} takes no BY: BY belongs to an aggregation over groups, e.g. ${example()}`,
      where(ctx, e.pos),
    );
  if (ctx.inAgg)
    throw fail(
      `${name}(… BY …) inside another aggregation: put the inner aggregation in its first argument instead, e.g. ${example()}`,
      where(ctx, e.pos),
    );
  const want = name === 'PERCENTILE' ? 2 : 1;
  if (e.args.length !== want)
    throw fail(
      `${name}(… BY …) takes ${want === 1 ? 'one measure' : 'a measure and a fraction'} before BY, got ${e.args.length} argument${e.args.length === 1 ? '' : 's'}`,
      where(ctx, e.pos),
    );
  let fraction: number | undefined;
  if (name === 'PERCENTILE') {
    const p = e.args[1]!;
    const v = p.k === 'num' ? p.value : NaN;
    if (!(v >= 0 && v <= 1))
      throw fail(
        `PERCENTILE takes a fraction from 0 to 1 second, e.g. PERCENTILE(${e.args[0]!.pos.text}, 0.9 BY …)`,
        where(ctx, p.pos),
      );
    fraction = v;
  }
  // The measure is computed per group at its own grain: the query's BY ALL does not reach in
  // (it changes the grain of this aggregation as a whole), a metric WHERE does.
  const inner: Ctx = { ...ctx, inAgg: false, byAll: null };
  const first = e.args[0]!;
  const arg = inner.expr(first, inner);
  if (hasWindow(arg))
    throw fail(
      `a window (OVER …) cannot be inside ${name}(… BY …); it works on the query's result rows`,
      where(ctx, first.pos),
    );
  if (!hasAgg(arg))
    throw fail(
      `${name}(… BY …) aggregates a measure computed per group, and "${first.pos.text}" does not aggregate; e.g. ${example()}`,
      where(ctx, first.pos),
    );
  const by: Dim[] = [];
  for (const b of e.by!) {
    const v = inner.expr(b, inner);
    if (hasAgg(v) || hasWindow(v))
      throw fail(
        `BY takes dimensions (attributes, labels, date parts such as MONTH(${ex().date()})); "${b.pos.text}" is a measure`,
        where(ctx, b.pos),
      );
    const d = toDim(v, posIn(ctx, b.pos), -1, ex());
    if (!by.some((x) => shapeKey(x.key) === shapeKey(d.key))) by.push(d);
  }
  const fn: AggFn = name === 'COUNT_DISTINCT' ? 'COUNT' : (name as AggFn);
  const leaf: Leaf = {
    id: ctx.env.counter.n++,
    fn,
    arg,
    countIn: null,
    ...(name === 'COUNT_DISTINCT' ? { distinct: true } : {}),
    ...(fraction !== undefined ? { fraction } : {}),
    by,
    where: ctx.where,
    byAll: ctx.byAll,
    text: e.pos.text,
    origin: ctx.origin,
    pos: posIn(ctx, e.pos),
  };
  return { t: 'agg', leaf, pos: leaf.pos };
}
