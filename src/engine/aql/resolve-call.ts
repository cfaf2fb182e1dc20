// Resolution of function calls: aggregations become leaves, date parts and scalar functions
// stay expressions, and `f(…) OVER (…)` becomes a window over the assembled result.
import type { Expr } from './ast.js';
import type { AggFn, DatePart, Frame, Leaf, ScalarFn, V, WindowFn } from './ir.js';
import { columnsIn, hasWindow } from './ir.js';
import { sqlHabit } from './errors.js';
import { examplesFor } from './examples.js';
import { datasetRef, fail, posIn, where, type Ctx } from './resolve-ctx.js';
import { kindOf } from './sqlgen.js';
import { closest } from './suggest.js';
import { aggregateOverGroups } from './resolve-groups.js';

const AGGS: AggFn[] = ['SUM', 'AVG', 'MIN', 'MAX', 'MEDIAN', 'COUNT', 'PERCENTILE', 'STDDEV'];
const PARTS: DatePart[] = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY'];

/** Scalar functions and their argument counts (max null: any number from min). */
const SCALARS: Record<ScalarFn, [number, number | null]> = {
  ABS: [1, 1],
  ROUND: [1, 2],
  IFNULL: [2, 2],
  COALESCE: [1, null],
  NULLIF: [2, 2],
  LEAST: [1, null],
  GREATEST: [1, null],
  UPPER: [1, 1],
  LOWER: [1, 1],
  TRIM: [1, 1],
  LENGTH: [1, 1],
  LEFT: [2, 2],
  RIGHT: [2, 2],
  SUBSTRING: [2, 3],
  CONCAT: [1, null],
  REPLACE: [3, 3],
  DATE_TRUNC: [2, 2],
  DATE_ADD: [3, 3],
  DATE_DIFF: [3, 3],
};

export const WINDOW_FNS: WindowFn[] = [
  'SUM',
  'AVG',
  'MIN',
  'MAX',
  'COUNT',
  'LAG',
  'LEAD',
  'RANK',
  'DENSE_RANK',
  'ROW_NUMBER',
  'FIRST_VALUE',
  'LAST_VALUE',
];

/** Every function AQL knows, for "did you mean" and the full list in errors. */
export const FUNCTIONS = [
  ...new Set([
    ...AGGS,
    'COUNT_DISTINCT',
    ...PARTS,
    'TODAY',
    ...(Object.keys(SCALARS) as ScalarFn[]),
    ...WINDOW_FNS,
  ]),
].sort();

/** Units of DATE_TRUNC, DATE_ADD and DATE_DIFF. */
export const DATE_UNITS = ['year', 'quarter', 'month', 'week', 'day'] as const;

type Call = Extract<Expr, { k: 'call' }>;

function arity(e: Call, ctx: Ctx, min: number, max: number | null = min): void {
  const n = e.args.length;
  if (n >= min && (max === null || n <= max)) return;
  const want = max === null ? `at least ${min}` : min === max ? `${min}` : `${min} to ${max}`;
  throw fail(
    `${e.name} takes ${want} argument${max === 1 ? '' : 's'}, got ${n}`,
    where(ctx, e.pos),
  );
}

export function resolveCall(e: Call, ctx: Ctx): V {
  const name = e.name;
  const pos = posIn(ctx, e.pos);
  if (e.by) return aggregateOverGroups(e, ctx);
  if ((AGGS as string[]).includes(name) || name === 'COUNT_DISTINCT') return aggregate(e, ctx);
  if ((PARTS as string[]).includes(name)) {
    arity(e, ctx, 1);
    const arg = ctx.expr(e.args[0]!, ctx);
    // Any date: a date attribute, TODAY(), a date function, or a measure that is one
    // (YEAR(MIN([Order Date])), the year of the first order).
    const k = kindOf(arg);
    const ok = k === 'date' || k === 'datetime';
    if (!ok)
      throw fail(
        `${name} takes a date, e.g. ${name}(${examplesFor(ctx.env, ctx.trusted).date()}); "${e.args[0]!.pos.text}" is not one`,
        where(ctx, e.args[0]!.pos),
      );
    return { t: 'part', part: name as DatePart, e: arg, pos };
  }
  if (name === 'TODAY') {
    arity(e, ctx, 0);
    return { t: 'today', pos };
  }
  if (name in SCALARS) {
    const [min, max] = SCALARS[name as ScalarFn];
    arity(e, ctx, min, max);
    const args = e.args.map((a) => ctx.expr(a, ctx));
    if (name === 'DATE_TRUNC' || name === 'DATE_ADD' || name === 'DATE_DIFF')
      checkUnit(args[0]!, name, ctx);
    return { t: 'fn', name: name as ScalarFn, args, pos };
  }
  if ((WINDOW_FNS as string[]).includes(name)) {
    const ex = examplesFor(ctx.env, ctx.trusted);
    const arg = name.endsWith('RANK') || name === 'ROW_NUMBER' ? '' : `SUM(${ex.fact()})`;
    throw fail(
      `${name} is a window function: it needs OVER (…), e.g. ${name}(${arg}) OVER (ORDER BY MONTH(${ex.date()}))`,
      where(ctx, e.pos),
    );
  }
  const suggestions = closest(name, FUNCTIONS, 3);
  throw fail(
    `unknown function ${name}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''} AQL's functions: ${FUNCTIONS.join(', ')}`,
    where(ctx, { ...e.pos, text: name }),
    { suggestions, functions: FUNCTIONS },
  );
}

function checkUnit(unit: V, fn: string, ctx: Ctx): void {
  const ok =
    unit.t === 'const' &&
    typeof unit.v === 'string' &&
    (DATE_UNITS as readonly string[]).includes(unit.v.toLowerCase());
  const date = examplesFor(ctx.env, ctx.trusted).date();
  if (!ok)
    throw fail(
      `${fn} takes a unit first, one of ${DATE_UNITS.map((u) => `"${u}"`).join(', ')}, e.g. ${fn === 'DATE_TRUNC' ? `DATE_TRUNC("month", ${date})` : fn === 'DATE_ADD' ? 'DATE_ADD("day", -30, TODAY())' : `DATE_DIFF("day", ${date}, TODAY())`}`,
      where(ctx, unit.pos),
      { expected: DATE_UNITS.map((u) => `"${u}"`) },
    );
}

function aggregate(e: Call, ctx: Ctx): V {
  const name = e.name;
  const ex = () => examplesFor(ctx.env, ctx.trusted);
  if (ctx.inAgg)
    throw fail(
      `${name} inside another aggregation: aggregations cannot be nested, but an aggregation of per-group values can, naming its groups with BY, e.g. AVG(SUM(${ex().fact()}) BY ${ex().attribute()})${ctx.inWindow ? '' : `; to aggregate the result's rows, use a window: SUM(SUM(${ex().fact()})) OVER (…)`}`,
      where(ctx, e.pos),
    );
  const inner = { ...ctx, inAgg: true };
  let countIn: string | null = null;
  /** COUNT([dataset]): the rows of countIn. */
  let rows = false;
  let fraction: number | undefined;
  const fn: AggFn = name === 'COUNT_DISTINCT' ? 'COUNT' : (name as AggFn);
  if (name === 'COUNT') {
    arity(e, ctx, 1, 2);
    const [first, second] = e.args as [Expr, Expr | undefined];
    const counted = first.k === 'ref' ? datasetRef(ctx, first.name, true) : null;
    if (counted) {
      if (second)
        throw fail(
          `COUNT(${first.pos.text}) counts the rows of dataset ${counted}; it takes no second argument`,
          where(ctx, second.pos),
        );
      rows = true;
      countIn = counted;
    } else if (second) {
      countIn = second.k === 'ref' ? datasetRef(ctx, second.name, true) : null;
      if (!countIn) {
        const other = inner.expr(second, inner);
        if (other.t !== 'col')
          throw fail(
            `the second argument of COUNT names the dataset that counts, e.g. COUNT(${ex().attribute()}, ${ex().dataset()})`,
            where(ctx, second.pos),
          );
        countIn = other.col.dataset;
      }
    }
  } else if (name === 'PERCENTILE') {
    arity(e, ctx, 2);
    const p = e.args[1]!;
    const v = p.k === 'num' ? p.value : NaN;
    if (!(v >= 0 && v <= 1))
      throw fail(
        `PERCENTILE takes a fraction from 0 to 1 second, e.g. PERCENTILE(${e.args[0]!.pos.text}, 0.9) for the 90th percentile`,
        where(ctx, p.pos),
      );
    fraction = v;
  } else arity(e, ctx, 1);
  const first = e.args[0]!;
  if (first.k === 'star') {
    const count = `COUNT(${ex().dataset()})`;
    throw sqlHabit(
      fail(
        `there is no ${name}(*) in AQL: count the rows of a dataset with COUNT([<dataset>]), e.g. ${count}`,
        where(ctx, first.pos),
        { suggestions: [count] },
      ),
    );
  }
  const arg: V = rows
    ? { t: 'const', v: null, pos: posIn(ctx, first.pos) }
    : inner.expr(first, inner);
  if (fn === 'COUNT' && !rows && arg.t !== 'col')
    throw fail(
      `${name} takes an attribute, label or fact${name === 'COUNT' ? ', or a dataset' : ''}: COUNT(${ex().dataset()}) counts rows, COUNT(${ex().attribute()}) distinct values; count the rows that meet a condition with SUM(CASE WHEN … THEN 1 ELSE 0 END)`,
      where(ctx, first.pos),
    );
  if (!rows && !columnsIn(arg).length)
    throw fail(
      `${e.pos.text} aggregates no fact or attribute; write e.g. SUM(${ex().fact()})`,
      where(ctx, e.pos),
    );
  const leaf: Leaf = {
    id: ctx.env.counter.n++,
    fn,
    arg,
    countIn,
    ...(rows ? { rows: true } : {}),
    ...(name === 'COUNT_DISTINCT' ? { distinct: true } : {}),
    ...(fraction !== undefined ? { fraction } : {}),
    where: ctx.where,
    byAll: ctx.byAll,
    text: e.pos.text,
    origin: ctx.origin,
    pos: posIn(ctx, e.pos),
  };
  return { t: 'agg', leaf, pos: leaf.pos };
}

/** `f(…) OVER (PARTITION BY … ORDER BY … frame)`. */
export function resolveWindow(e: Extract<Expr, { k: 'window' }>, ctx: Ctx): V {
  const pos = posIn(ctx, e.pos);
  const name = e.call.name as WindowFn;
  if (ctx.inAgg) throw fail('a window (OVER …) cannot be inside an aggregation', where(ctx, e.pos));
  if (ctx.inWindow)
    throw fail('a window (OVER …) cannot be inside another window', where(ctx, e.pos));
  if (!WINDOW_FNS.includes(name))
    throw fail(
      `${e.call.name} cannot be used with OVER; window functions: ${WINDOW_FNS.join(', ')}`,
      where(ctx, { ...e.call.pos, text: e.call.name }),
      { functions: WINDOW_FNS },
    );
  const c: Call = e.call;
  if (c.by)
    throw fail(
      `${name}(… BY …) OVER (…): a window aggregates the result's rows and takes no BY; aggregate per group without OVER, or window over a measure, e.g. SUM(SUM(${examplesFor(ctx.env, ctx.trusted).fact()})) OVER (…)`,
      where(ctx, e.pos),
    );
  const inner: Ctx = { ...ctx, inWindow: true };
  if (['RANK', 'DENSE_RANK', 'ROW_NUMBER'].includes(name)) arity(c, ctx, 0);
  else if (name === 'LAG' || name === 'LEAD') arity(c, ctx, 1, 3);
  else arity(c, ctx, 1);
  const args = c.args.map((a) => inner.expr(a, inner));
  if (name === 'LAG' || name === 'LEAD') {
    const off = args[1];
    if (off && !(off.t === 'const' && Number.isSafeInteger(off.v) && (off.v as number) >= 0))
      throw fail(
        `${name}'s second argument is how many rows back or ahead, a whole number, e.g. ${name}(${c.args[0]!.pos.text}, 1)`,
        where(ctx, off.pos),
      );
  }
  const order = e.over.order.map((o) => ({ v: inner.expr(o.e, inner), desc: o.desc }));
  if (
    !order.length &&
    name !== 'SUM' &&
    name !== 'AVG' &&
    name !== 'MIN' &&
    name !== 'MAX' &&
    name !== 'COUNT'
  )
    throw fail(
      `${name} needs ORDER BY inside OVER (…), since the rows have no order otherwise, e.g. ${name}(${args.length ? c.args[0]!.pos.text : ''}) OVER (ORDER BY MONTH(${examplesFor(ctx.env, ctx.trusted).date()}))`,
      where(ctx, e.pos),
    );
  const partition = e.over.partition.map((p) => inner.expr(p, inner));
  let frame: Frame | null = null;
  if (e.over.frame) {
    const f = e.over.frame;
    for (const b of [f.from, f.to])
      if (b.n !== null && !(Number.isSafeInteger(b.n) && b.n >= 0))
        throw fail('a frame bound is a whole number of rows, e.g. 2 PRECEDING', where(ctx, b.pos));
    const rank = { preceding: 0, current: 1, following: 2 } as const;
    const unboundedWrongWay =
      (f.from.kind === 'following' && f.from.n === null) ||
      (f.to.kind === 'preceding' && f.to.n === null);
    if (unboundedWrongWay || rank[f.from.kind] > rank[f.to.kind])
      throw fail(
        'a frame runs from an earlier row to a later one, e.g. ROWS BETWEEN 2 PRECEDING AND CURRENT ROW (ROWS 2 PRECEDING alone ends at the current row)',
        where(ctx, f.from.pos),
      );
    const offset = f.from.n !== null || f.to.n !== null;
    if (f.unit === 'RANGE' && offset && (order.length !== 1 || kindOf(order[0]!.v) !== 'number'))
      throw fail(
        'a RANGE frame with a number of rows needs ORDER BY one number (a RANGE counts in its values); use ROWS to count rows',
        where(ctx, f.from.pos),
      );
    frame = {
      unit: f.unit,
      from: { kind: f.from.kind, n: f.from.n },
      to: { kind: f.to.kind, n: f.to.n },
    };
  }
  const v: V = { t: 'win', fn: name, args, partition, order, frame, pos };
  for (const x of [...args, ...partition, ...order.map((o) => o.v)])
    if (hasWindow(x))
      throw fail('a window (OVER …) cannot be inside another window', where(ctx, x.pos));
  return v;
}
