// Phase 2 of compiling a query (parse → resolve → plan → SQL): names become model columns,
// SELECT items become dimensions or measures, and each clause is checked for what it may
// hold — before any join path or SQL is considered.
import type { Expr, Pos, Query } from './ast.js';
import { checkAssembled, dataTypeOf, dimsAsColumns, toDim, type Dim } from './dims.js';
import {
  columnsIn,
  hasAgg,
  hasWindow,
  walk,
  type Item,
  type Leaf,
  type ResolvedQuery,
  type V,
  type ValueCheck,
} from './ir.js';
import { examplesFor } from './examples.js';
import { parse } from './parser.js';
import { fail, resolveExpr, rootCtx, type ResolveEnv } from './resolve.js';
import { kindOf } from './sqlgen.js';

export type { Item, OrderRef, ResolvedQuery, ValueCheck } from './ir.js';

export function resolveQuery(q: Query, env: ResolveEnv, rowFilter: string | null): ResolvedQuery {
  const ctx = rootCtx(env);
  const ex = examplesFor(env);
  const dims: Dim[] = [];
  const raw = q.items.map((it, i) => {
    if (it.expr.k === 'nest') return { v: nestLeaf(it.expr, env, rowFilter), measure: true };
    const v = resolveExpr(it.expr, ctx);
    const measure = hasAgg(v) || hasWindow(v);
    if (!measure) dims.push(toDim(v, it.pos, i, ex));
    return { v, measure };
  });
  // Measures see the assembled rows: the dimensions they repeat (in windows, arithmetic)
  // become those dimensions' columns; any other attribute or a bare fact is an error.
  const items: Item[] = q.items.map((it, i) => {
    const { v, measure } = raw[i]!;
    if (!measure) {
      const d = dims.find((x) => x.item === i)!;
      return {
        v,
        kind: 'dimension',
        pos: it.pos,
        title: it.alias ?? (d.display.t === 'col' ? d.display.col.obj.name : d.text),
        dataType: d.dataType,
      };
    }
    const assembled = dimsAsColumns(v, dims);
    checkAssembled(assembled, dims, hasWindow(v) ? 'a window' : 'SELECT');
    const single =
      it.expr.k === 'ref'
        ? (env.snap.byIdent.get(it.expr.name) ??
          env.snap.byTitle.get(it.expr.name.toLowerCase())?.[0])
        : undefined;
    const k = kindOf(assembled);
    const nest = assembled.t === 'agg' ? assembled.leaf.nest : undefined;
    return {
      v: assembled,
      kind: 'measure',
      pos: it.pos,
      title: it.alias ?? single?.name ?? it.pos.text,
      dataType: nest
        ? 'nested'
        : k === 'number' || k === 'unknown'
          ? 'number'
          : dataTypeOf(assembled),
      ...(nest
        ? { columns: nest.items.map(({ title, kind, dataType }) => ({ title, kind, dataType })) }
        : {}),
    };
  });

  const where = q.where ? resolveExpr(q.where, ctx) : null;
  if (where && hasAgg(where))
    throw fail(
      'WHERE cannot hold an aggregation; use HAVING for conditions on measures',
      q.where!.pos,
    );
  if (where && hasWindow(where))
    throw fail(
      'WHERE filters rows before aggregation, so it cannot hold a window; filter on windows with QUALIFY',
      windowPos(where),
    );
  // A measure of the query itself, else one from the caller's model, for the examples.
  const exampleMeasure = () =>
    items.find((i) => i.kind === 'measure' && !hasWindow(i.v))?.pos.text ?? `SUM(${ex.fact()})`;
  const having = q.having ? assembledClause(resolveExpr(q.having, ctx), dims, 'HAVING') : null;
  if (having && hasWindow(having))
    throw fail(
      `HAVING is applied before windows are computed; filter on a window with QUALIFY, e.g. QUALIFY RANK() OVER (ORDER BY ${exampleMeasure()} DESC) <= 3`,
      windowPos(having),
    );
  const qualify = q.qualify ? assembledClause(resolveExpr(q.qualify, ctx), dims, 'QUALIFY') : null;
  if (qualify && !hasWindow(qualify) && !items.some((i) => hasWindow(i.v)))
    throw fail(
      `QUALIFY filters on window values, and this query has none; filter on measures with HAVING, or rank in QUALIFY, e.g. QUALIFY RANK() OVER (ORDER BY ${exampleMeasure()} DESC) <= 3`,
      q.qualify!.pos,
    );
  const security = rowFilter
    ? resolveExpr(parse(rowFilter, 'condition'), rootCtx(env, true))
    : null;

  const order = q.orderBy.map((o) => {
    const t = o.target;
    if (t.k === 'position') {
      if (!Number.isInteger(t.n) || t.n < 1 || t.n > q.items.length)
        throw fail(
          `ORDER BY ${t.pos.text}: a column position is a whole number from 1 to ${q.items.length}`,
          t.pos,
        );
      return { ref: { col: t.n - 1 }, desc: o.desc, pos: t.pos };
    }
    if (t.k === 'alias')
      return { ref: { col: aliasIndex(q, t.name, t.pos) }, desc: o.desc, pos: t.pos };
    // An unquoted word that is an alias orders by that column, as SQL would.
    if (t.e.k === 'bare') {
      const bare = t.e;
      const i = q.items.findIndex((it) => it.alias?.toLowerCase() === bare.name.toLowerCase());
      if (i >= 0) return { ref: { col: i }, desc: o.desc, pos: t.e.pos };
    }
    const v = assembledClause(resolveExpr(t.e, ctx), dims, 'ORDER BY');
    // A constant orders nothing (and DuckDB refuses a bare parameter there).
    if (!columnsIn(v).length && !hasAgg(v) && !hasWindow(v))
      throw fail(
        `ORDER BY ${t.e.pos.text} orders nothing: order by a column's position, its alias in quotes, a dimension or a measure`,
        t.e.pos,
      );
    return { ref: { v }, desc: o.desc, pos: t.e.pos };
  });

  for (const [word, n, pos] of [
    ['LIMIT', q.limit, q.limitPos],
    ['OFFSET', q.offset, q.offsetPos],
  ] as const) {
    if (n !== null && !(Number.isSafeInteger(n) && n >= 0))
      throw fail(
        `${word} takes a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
        pos ?? { offset: 0, line: 1, column: 1, text: `${word} ${n}` },
      );
  }

  return {
    items,
    dims,
    where,
    having,
    qualify,
    order,
    security,
    limit: q.limit,
    offset: q.offset,
    objects: [],
    valueChecks: where ? valueChecks(where) : [],
  };
}

/**
 * NEST(SELECT …): the nested query resolved on its own, as a leaf computed per result row
 * (plan-nest.ts). Its rows are ordered and limited within each result row.
 */
function nestLeaf(e: Extract<Expr, { k: 'nest' }>, env: ResolveEnv, rowFilter: string | null): V {
  const inner = resolveQuery(e.query, env, rowFilter);
  if (inner.qualify || inner.items.some((i) => hasWindow(i.v) || i.columns))
    throw fail(
      'NEST(SELECT …) holds dimensions and measures, without windows, QUALIFY or another NEST',
      e.pos,
    );
  const leaf: Leaf = {
    id: env.counter.n++,
    fn: 'NEST',
    arg: { t: 'const', v: null, pos: e.pos },
    countIn: null,
    nest: inner,
    where: [],
    byAll: null,
    text: e.pos.text,
    origin: null,
    pos: e.pos,
  };
  return { t: 'agg', leaf, pos: e.pos };
}

/** HAVING, QUALIFY and ORDER BY: dimensions as columns, nothing else outside aggregations. */
function assembledClause(v: V, dims: Dim[], clause: string): V {
  const out = dimsAsColumns(v, dims);
  checkAssembled(out, dims, clause);
  return out;
}

function aliasIndex(q: Query, name: string, pos: Pos): number {
  // Aliases are case-insensitive, like keywords.
  const i = q.items.findIndex(
    (it) =>
      (it.alias ?? '').toLowerCase() === name.toLowerCase() || (!it.alias && it.pos.text === name),
  );
  if (i < 0)
    throw fail(
      `ORDER BY "${name}": no column has that alias; aliases: ${
        q.items
          .filter((x) => x.alias)
          .map((x) => `"${x.alias}"`)
          .join(', ') || 'none'
      }`,
      pos,
    );
  return i;
}

/** Where the first window inside `v` is written. */
function windowPos(v: V): Pos {
  let at: Pos | null = null;
  walk(v, (x) => {
    if (!at && x.t === 'win') at = x.pos;
  });
  return at ?? v.pos;
}

/** `[Carrier] = "delta"`, `[Carrier] IN ("a", "b")` on text attributes, anywhere in WHERE. */
function valueChecks(where: V): ValueCheck[] {
  const out: ValueCheck[] = [];
  const textCol = (x: V) =>
    x.t === 'col' && x.col.kind !== 'fact' && kindOf(x) === 'string' ? x.col : null;
  walk(where, (x) => {
    if (x.t === 'cmp' && x.op === '=') {
      const [c, k] = textCol(x.l) ? [textCol(x.l), x.r] : [textCol(x.r), x.l];
      if (c && k.t === 'const' && typeof k.v === 'string')
        out.push({ col: c, value: k.v, pos: k.pos });
    }
    if (x.t === 'in' && !x.not) {
      const c = textCol(x.e);
      if (c)
        for (const k of x.list)
          if (k.t === 'const' && typeof k.v === 'string')
            out.push({ col: c, value: k.v, pos: k.pos });
    }
  });
  return out;
}
