// Resolution: names become model columns (identifier first, then title, case-insensitive),
// saved metrics and filters are expanded in place, and every aggregation becomes a leaf
// carrying the metric-level WHERE and BY ALL around it.
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';
import type { Expr, MetricBody, Pos } from './ast.js';
import { DATASET_PREFIX } from './dataset-names.js';
import { AqlError, sqlHabit } from './errors.js';
import { examplesFor } from './examples.js';
import type { Column, Leaf, V } from './ir.js';
import { hasAgg, hasWindow } from './ir.js';
import { resolveCall, resolveWindow } from './resolve-call.js';
import { datasetRef, fail, posIn, where, type Ctx, type ResolveEnv } from './resolve-ctx.js';
import { parse } from './parser.js';
import { closest } from './suggest.js';

export { datasetRef, fail, posIn, where, type Ctx, type ResolveEnv } from './resolve-ctx.js';

const USABLE = ['attribute', 'label', 'fact', 'metric', 'filter'];

export function rootCtx(env: ResolveEnv, trusted = false): Ctx {
  return {
    env,
    trusted,
    stack: [],
    inAgg: false,
    where: [],
    byAll: null,
    origin: null,
    at: null,
    inWindow: false,
    expr: resolveExpr,
  };
}

export function lookup(ctx: Ctx, name: string, pos: Pos): ObjectRow {
  const { snap, visible } = ctx.env;
  const canSee = (o: ObjectRow) => ctx.trusted || visible(o);
  const byId = snap.byIdent.get(name);
  if (byId && canSee(byId)) return byId;
  // A dataset's identifier comes before titles, its name after them (dataset-names.ts).
  if (name.startsWith(DATASET_PREFIX)) refuseDataset(ctx, name, pos);
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
  refuseDataset(ctx, name, pos);
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

/** A dataset named where an object is expected: only COUNT takes one. */
function refuseDataset(ctx: Ctx, name: string, pos: Pos): void {
  if (!datasetRef(ctx, name)) return;
  const ex = examplesFor(ctx.env, ctx.trusted);
  throw fail(
    `[${name}] is a dataset: COUNT([${name}]) counts its rows; elsewhere name its attributes, labels and facts, e.g. ${ex.attribute()}, SUM(${ex.fact()})`,
    where(ctx, pos),
    { suggestions: [`COUNT([${name}])`] },
  );
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
    at: ctx.at ?? pos,
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
  const pos = posIn(ctx, e.pos);
  const go = (x: Expr) => resolveExpr(x, ctx);
  switch (e.k) {
    case 'num':
    case 'str':
    case 'bool':
      return { t: 'const', v: e.value, pos };
    case 'null':
      return { t: 'const', v: null, pos };
    case 'ref':
      return resolveRef(e.name, e.pos, ctx);
    case 'bare':
      throw bareName(e.name, e.pos, ctx);
    case 'star': {
      const ex = examplesFor(ctx.env, ctx.trusted);
      throw sqlHabit(
        fail(
          `AQL has no *: name the objects you want in brackets, e.g. SELECT ${ex.attribute()}, SUM(${ex.fact()}); count the rows of a dataset with COUNT([<dataset>]), e.g. COUNT(${ex.dataset()})`,
          where(ctx, e.pos),
        ),
      );
    }
    case 'call':
      return resolveCall(e, ctx);
    case 'window':
      return resolveWindow(e, ctx);
    case 'neg':
      return { t: 'neg', e: go(e.e), pos };
    case 'arith':
      return { t: 'arith', op: e.op, l: go(e.l), r: go(e.r), pos };
    case 'cmp':
      return { t: 'cmp', op: e.op, l: go(e.l), r: go(e.r), pos };
    case 'in':
      return { t: 'in', e: go(e.e), list: e.list.map(go), not: e.not, pos };
    case 'between':
      return { t: 'between', e: go(e.e), lo: go(e.lo), hi: go(e.hi), not: e.not, pos };
    case 'like':
      return { t: 'like', e: go(e.e), pattern: go(e.pattern), not: e.not, ci: e.ci, pos };
    case 'isnull':
      return { t: 'isnull', e: go(e.e), not: e.not, pos };
    case 'not':
      return { t: 'not', e: go(e.e), pos };
    case 'and':
    case 'or':
      return { t: e.k, l: go(e.l), r: go(e.r), pos };
    case 'case':
      return {
        t: 'case',
        whens: e.whens.map((w) => ({ when: go(w.when), then: go(w.then) })),
        else: e.else ? go(e.else) : null,
        pos,
      };
    case 'nest':
      throw fail(
        'NEST(SELECT …) is a SELECT item of its own (its rows per result row); it cannot be part of an expression, a condition or a metric',
        where(ctx, e.pos),
      );
    case 'sub':
      if (ctx.inAgg) throw fail('a sub-select cannot be inside an aggregation', where(ctx, e.pos));
      return resolveMetricBody(e.metric, { ...ctx, at: ctx.at ?? e.pos });
  }
}

/** `origin` without brackets: the objects it most likely means. */
function bareName(name: string, pos: Pos, ctx: Ctx): AqlError {
  const { snap, visible } = ctx.env;
  const names: string[] = [];
  let exact: string | null = null;
  for (const o of snap.byIdent.values()) {
    if (!USABLE.includes(o.type) || !(ctx.trusted || visible(o))) continue;
    names.push(o.name);
    if (titleKey(o.name) === titleKey(name) || titleKey(o.ident) === titleKey(name))
      exact ??= o.name;
  }
  const near = closest(name, names, 3);
  const suggestions = [...new Set([...(exact ? [exact] : []), ...near])].slice(0, 3);
  const best = suggestions[0] ?? name;
  return sqlHabit(
    fail(
      `names go in brackets: [${best}]${suggestions.length > 1 ? `; closest objects: ${suggestions.map((s) => `[${s}]`).join(', ')}` : ''}`,
      where(ctx, pos),
      { suggestions: suggestions.map((s) => `[${s}]`) },
    ),
  );
}

function resolveRef(name: string, pos: Pos, ctx: Ctx): V {
  const o = lookup(ctx, name, pos);
  switch (o.type) {
    case 'attribute':
    case 'label':
    case 'fact':
      return { t: 'col', col: columnOf(ctx, o, pos), pos: posIn(ctx, pos) };
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
        throw fail(
          `BY ALL takes attributes, like BY ALL ${examplesFor(ctx.env, ctx.trusted).attribute()}`,
          where(ctx, x.pos),
        );
      const v = resolveRef(x.name, x.pos, ctx);
      if (v.t !== 'col' || v.col.kind === 'fact')
        throw fail(`BY ALL takes attributes; [${x.name}] is not one`, where(ctx, x.pos));
      return v.col;
    });
    // BY ALL with no attributes removes every dimension; lists add up.
    byAll = dims.length === 0 || byAll?.length === 0 ? [] : [...(byAll ?? []), ...dims];
  }
  const v = resolveExpr(m.expr, { ...ctx, where: cond ? [...ctx.where, cond] : ctx.where, byAll });
  if (hasWindow(v))
    throw fail(
      "a window (OVER …) works on a query's result rows; use it in the query's SELECT, not in a metric or sub-select",
      where(ctx, m.expr.pos),
    );
  if (!hasAgg(v))
    throw fail(
      `a metric must aggregate, e.g. SELECT SUM(${examplesFor(ctx.env, ctx.trusted).fact()}); "${m.expr.pos.text}" does not`,
      where(ctx, m.expr.pos),
    );
  return v;
}

export type { Leaf };
