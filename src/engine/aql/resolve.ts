// Resolution: names become model columns (identifier first, then title, case-insensitive),
// saved metrics and filters are expanded in place, and every aggregation becomes a leaf
// carrying the metric-level WHERE and BY ALL around it.
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';
import type { Expr, MetricBody, Pos } from './ast.js';
import { AqlError } from './errors.js';
import type { AggFn, Column, DatePart, Leaf, V } from './ir.js';
import { hasAgg } from './ir.js';
import type { ModelSnapshot } from './model.js';
import { parse } from './parser.js';
import { closest } from './suggest.js';

const AGGS: AggFn[] = ['SUM', 'AVG', 'MIN', 'MAX', 'MEDIAN', 'COUNT'];
const PARTS: DatePart[] = ['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY'];
const SCALARS = ['ABS', 'ROUND', 'IFNULL'] as const;
const FUNCTIONS = [...AGGS, ...PARTS, ...SCALARS, 'TODAY'];
const USABLE = ['attribute', 'label', 'fact', 'metric', 'filter'];

export interface ResolveEnv {
  snap: ModelSnapshot;
  /** Whether the caller may read an object they name (saved definitions are trusted). */
  visible: (o: ObjectRow) => boolean;
  counter: { n: number };
}

interface Ctx {
  env: ResolveEnv;
  trusted: boolean;
  /** Saved metrics and filters being expanded, for cycle detection. */
  stack: string[];
  inAgg: boolean;
  where: V[];
  byAll: Column[] | null;
  /** Where the text being resolved comes from, for messages ("in metric [Revenue]"). */
  origin: string | null;
}

export function rootCtx(env: ResolveEnv, trusted = false): Ctx {
  return { env, trusted, stack: [], inAgg: false, where: [], byAll: null, origin: null };
}

export function fail(message: string, pos: Pos, extra: Record<string, unknown> = {}): AqlError {
  return new AqlError(message, { line: pos.line, column: pos.column, found: pos.text, ...extra });
}

function where(ctx: Ctx, pos: Pos): Pos {
  return ctx.origin ? { ...pos, text: `${pos.text} (in ${ctx.origin})` } : pos;
}

export function lookup(ctx: Ctx, name: string, pos: Pos): ObjectRow {
  const { snap, visible } = ctx.env;
  const canSee = (o: ObjectRow) => ctx.trusted || visible(o);
  const byId = snap.byIdent.get(name);
  if (byId && canSee(byId)) return byId;
  const byTitle = (snap.byTitle.get(titleKey(name)) ?? []).filter(canSee);
  if (byTitle.length === 1) return byTitle[0]!;
  if (byTitle.length > 1) {
    const ids = byTitle.map((o) => o.ident);
    throw fail(
      `[${name}] is ambiguous: ${ids.length} objects have that title; use an identifier: ${ids.map((i) => `[${i}]`).join(', ')}`,
      where(ctx, pos),
      {
        candidates: ids,
      },
    );
  }
  // Suggestions come only from objects the caller can see.
  const names: string[] = [];
  for (const o of snap.byIdent.values()) {
    if (!USABLE.includes(o.type) || !canSee(o)) continue;
    names.push(o.ident, o.name);
  }
  const suggestions = closest(name, names, 3);
  const hint = suggestions.length
    ? `; did you mean ${suggestions.map((s) => `[${s}]`).join(', ')}?`
    : '';
  throw fail(`unknown object [${name}]${hint}`, where(ctx, pos), { suggestions });
}

function columnOf(ctx: Ctx, o: ObjectRow, pos: Pos): Column {
  const def = o.def as { dataset?: string; column?: string; dataType?: string; attribute?: string };
  const ds = def.dataset ? ctx.env.snap.datasets.get(def.dataset) : undefined;
  if (!ds || !def.column || !ds.columns.has(def.column)) {
    throw fail(
      `[${o.name}] (${o.ident}) belongs to dataset "${def.dataset}", which is not loaded`,
      where(ctx, pos),
    );
  }
  let keyColumn = def.column;
  if (o.type === 'label') {
    const attr = def.attribute ? ctx.env.snap.byIdent.get(def.attribute) : undefined;
    keyColumn = (attr?.def as { column?: string } | undefined)?.column ?? def.column;
  }
  return {
    dataset: ds.name,
    column: def.column,
    dataType: ds.columns.get(def.column)!,
    kind: o.type as Column['kind'],
    obj: o,
    keyColumn,
  };
}

function expand<T>(ctx: Ctx, o: ObjectRow, pos: Pos, fn: (c: Ctx) => T): T {
  if (ctx.stack.includes(o.ident)) {
    const cycle = [...ctx.stack.slice(ctx.stack.indexOf(o.ident)), o.ident];
    throw fail(
      `definitions refer to each other in a cycle: ${cycle.map((i) => `[${i}]`).join(' → ')}`,
      where(ctx, pos),
      { cycle },
    );
  }
  return fn({
    ...ctx,
    trusted: true,
    stack: [...ctx.stack, o.ident],
    origin: `${o.type} [${o.name}]`,
  });
}

function savedText(o: ObjectRow): string {
  return String((o.def as { aql?: unknown }).aql ?? '');
}

/** Parses a saved definition; its syntax errors say which object is broken. */
function parseSaved<E extends 'metric' | 'condition'>(o: ObjectRow, entry: E) {
  try {
    return parse(savedText(o), entry as 'metric') as E extends 'metric' ? MetricBody : Expr;
  } catch (err) {
    const e = err as AqlError;
    throw new AqlError(`${o.type} [${o.name}] (${o.ident}) does not compile: ${e.message}`, {
      ...(e.context as { line: number; column: number; found: string }),
      object: o.ident,
    });
  }
}

export function resolveExpr(e: Expr, ctx: Ctx): V {
  switch (e.k) {
    case 'num':
      return { t: 'const', v: e.value };
    case 'str':
      return { t: 'const', v: e.value };
    case 'bool':
      return { t: 'const', v: e.value };
    case 'null':
      return { t: 'const', v: null };
    case 'ref':
      return resolveRef(e.name, e.pos, ctx);
    case 'call':
      return resolveCall(e, ctx);
    case 'neg':
      return { t: 'neg', e: resolveExpr(e.e, ctx) };
    case 'arith':
      return { t: 'arith', op: e.op, l: resolveExpr(e.l, ctx), r: resolveExpr(e.r, ctx) };
    case 'cmp':
      return { t: 'cmp', op: e.op, l: resolveExpr(e.l, ctx), r: resolveExpr(e.r, ctx) };
    case 'in':
      return {
        t: 'in',
        e: resolveExpr(e.e, ctx),
        list: e.list.map((x) => resolveExpr(x, ctx)),
        not: e.not,
      };
    case 'between':
      return {
        t: 'between',
        e: resolveExpr(e.e, ctx),
        lo: resolveExpr(e.lo, ctx),
        hi: resolveExpr(e.hi, ctx),
        not: e.not,
      };
    case 'like':
      return {
        t: 'like',
        e: resolveExpr(e.e, ctx),
        pattern: resolveExpr(e.pattern, ctx),
        not: e.not,
        ci: e.ci,
      };
    case 'isnull':
      return { t: 'isnull', e: resolveExpr(e.e, ctx), not: e.not };
    case 'not':
      return { t: 'not', e: resolveExpr(e.e, ctx) };
    case 'and':
    case 'or':
      return { t: e.k, l: resolveExpr(e.l, ctx), r: resolveExpr(e.r, ctx) };
    case 'case':
      return {
        t: 'case',
        whens: e.whens.map((w) => ({
          when: resolveExpr(w.when, ctx),
          then: resolveExpr(w.then, ctx),
        })),
        else: e.else ? resolveExpr(e.else, ctx) : null,
      };
    case 'sub':
      if (ctx.inAgg) throw fail('a sub-select cannot be inside an aggregation', where(ctx, e.pos));
      return resolveMetricBody(e.metric, ctx);
  }
}

function resolveRef(name: string, pos: Pos, ctx: Ctx): V {
  const o = lookup(ctx, name, pos);
  switch (o.type) {
    case 'attribute':
    case 'label':
    case 'fact':
      return { t: 'col', col: columnOf(ctx, o, pos) };
    case 'metric': {
      if (ctx.inAgg)
        throw fail(`[${o.name}] is a metric; it cannot be inside an aggregation`, where(ctx, pos));
      return expand(ctx, o, pos, (c) => resolveMetricBody(parseSaved(o, 'metric'), c));
    }
    case 'filter':
      return expand(ctx, o, pos, (c) => resolveExpr(parseSaved(o, 'condition'), { ...c }));
    default:
      throw fail(
        `[${o.name}] is a ${o.type}; AQL uses attributes, labels, facts, metrics and filters`,
        where(ctx, pos),
        { type: o.type },
      );
  }
}

/** `SELECT <measure> [BY ALL …] [WHERE …]`, from a saved metric or a sub-select. */
export function resolveMetricBody(m: MetricBody, ctx: Ctx): V {
  const cond = m.where ? resolveExpr(m.where, { ...ctx, inAgg: false }) : null;
  if (cond && hasAgg(cond))
    throw fail('a metric WHERE cannot hold an aggregation', where(ctx, m.where!.pos));
  let byAll = ctx.byAll;
  if (m.byAll) {
    const dims = m.byAll.map((x) => {
      if (x.k !== 'ref')
        throw fail('BY ALL takes attributes, like BY ALL [Month]', where(ctx, x.pos));
      const v = resolveRef(x.name, x.pos, ctx);
      if (v.t !== 'col' || v.col.kind === 'fact')
        throw fail(`BY ALL takes attributes; [${x.name}] is not one`, where(ctx, x.pos));
      return v.col;
    });
    // BY ALL with no attributes removes every dimension; lists add up.
    byAll = dims.length === 0 || byAll?.length === 0 ? [] : [...(byAll ?? []), ...dims];
  }
  const v = resolveExpr(m.expr, { ...ctx, where: cond ? [...ctx.where, cond] : ctx.where, byAll });
  if (!hasAgg(v))
    throw fail(
      `a metric must aggregate, e.g. SELECT SUM([Amount]); "${m.expr.pos.text}" does not`,
      where(ctx, m.expr.pos),
    );
  return v;
}

function resolveCall(e: Extract<Expr, { k: 'call' }>, ctx: Ctx): V {
  const name = e.name;
  const arity = (min: number, max = min) => {
    if (e.args.length < min || e.args.length > max) {
      const want = min === max ? `${min}` : `${min} to ${max}`;
      throw fail(
        `${name} takes ${want} argument${max === 1 ? '' : 's'}, got ${e.args.length}`,
        where(ctx, e.pos),
      );
    }
  };
  if ((AGGS as string[]).includes(name)) {
    if (ctx.inAgg)
      throw fail(
        `${name} inside another aggregation: aggregations cannot be nested`,
        where(ctx, e.pos),
      );
    const inner = { ...ctx, inAgg: true };
    let countIn: string | null = null;
    if (name === 'COUNT') {
      arity(1, 2);
      if (e.args[1]) {
        const other = resolveExpr(e.args[1], inner);
        if (other.t !== 'col')
          throw fail(
            'the second argument of COUNT names the dataset that counts, e.g. COUNT([Customer], [Order ID])',
            where(ctx, e.args[1].pos),
          );
        countIn = other.col.dataset;
      }
    } else arity(1);
    const arg = resolveExpr(e.args[0]!, inner);
    if (name === 'COUNT' && arg.t !== 'col')
      throw fail(
        'COUNT takes an attribute, label or fact, e.g. COUNT([Flight])',
        where(ctx, e.args[0]!.pos),
      );
    const leaf: Leaf = {
      id: ctx.env.counter.n++,
      fn: name as AggFn,
      arg,
      countIn,
      where: ctx.where,
      byAll: ctx.byAll,
      text: e.pos.text,
      origin: ctx.origin,
    };
    return { t: 'agg', leaf };
  }
  if ((PARTS as string[]).includes(name)) {
    arity(1);
    const arg = resolveExpr(e.args[0]!, ctx);
    const ok =
      arg.t === 'today' ||
      (arg.t === 'col' && (arg.col.dataType === 'date' || arg.col.dataType === 'datetime'));
    if (!ok)
      throw fail(
        `${name} takes a date attribute, e.g. ${name}([Flight Date]); "${e.args[0]!.pos.text}" is not one`,
        where(ctx, e.args[0]!.pos),
      );
    return { t: 'part', part: name as DatePart, e: arg };
  }
  if (name === 'TODAY') {
    arity(0);
    return { t: 'today' };
  }
  if ((SCALARS as readonly string[]).includes(name)) {
    if (name === 'ABS') arity(1);
    if (name === 'ROUND') arity(1, 2);
    if (name === 'IFNULL') arity(2);
    return {
      t: 'fn',
      name: name as (typeof SCALARS)[number],
      args: e.args.map((a) => resolveExpr(a, ctx)),
    };
  }
  const suggestions = closest(name, FUNCTIONS, 3);
  throw fail(
    `unknown function ${name}${suggestions.length ? `; did you mean ${suggestions.join(', ')}?` : ''}`,
    where(ctx, e.pos),
    {
      suggestions,
      functions: FUNCTIONS,
    },
  );
}
