// The dimensions of a query (what its rows are grouped by) and how HAVING, QUALIFY, ORDER
// BY and windows refer to them: by repeating a dimension's expression.
import type { Pos } from './ast.js';
import type { Examples } from './examples.js';
import { columnsIn, mapV, shapeKey, type Column, type Dim, type Leaf, type V } from './ir.js';
import { fail } from './resolve-ctx.js';
import { kindOf } from './sqlgen.js';

export type { Dim } from './ir.js';

const title = (c: Column) => c.obj.name;

/** The attribute a column groups by (a label groups by its attribute). */
const asAttribute = (c: Column): Column =>
  c.kind === 'label' ? { ...c, column: c.keyColumn, kind: 'attribute' } : c;

/** The data type of a computed value, as the result's columns name it. */
export function dataTypeOf(v: V): string {
  if (v.t === 'col') return v.col.dataType;
  if (v.t === 'part') return 'integer';
  const k = kindOf(v);
  return k === 'unknown' ? 'string' : k;
}

/** `ex`: the caller's model, for the examples of an error. */
export function toDim(v: V, pos: Pos, item: number, ex: Examples): Dim {
  const base = { item, text: pos.text, pos, dataType: dataTypeOf(v) };
  if (v.t === 'col') {
    if (v.col.kind === 'fact')
      throw fail(`[${title(v.col)}] is a fact: aggregate it, e.g. SUM([${title(v.col)}])`, pos, {
        suggestions: [`SUM([${title(v.col)}])`],
      });
    const key = asAttribute(v.col);
    return { ...base, key: { t: 'col', col: key, pos: v.pos }, display: v, attrs: [key] };
  }
  const cols = columnsIn(v);
  const fact = cols.find((c) => c.kind === 'fact');
  if (fact)
    throw fail(
      `[${title(fact)}] is a fact: a dimension is built on attributes; aggregate a fact, e.g. SUM([${title(fact)}])`,
      pos,
      { suggestions: [`SUM([${title(fact)}])`] },
    );
  if (!cols.length)
    throw fail(
      `"${pos.text}" is neither a dimension (an attribute, a label, or an expression of them such as MONTH(${ex.date()}) or UPPER(${ex.attribute()})) nor a measure (an aggregation or a metric)`,
      pos,
    );
  return { ...base, key: v, display: v, attrs: cols.map(asAttribute) };
}

export function sameCol(v: V, c: Column): boolean {
  return v.t === 'col' && v.col.dataset === c.dataset && v.col.column === c.column;
}

export function dimTitle(d: Dim): string {
  return d.display.t === 'col' ? d.display.col.obj.name : d.text;
}

/** The structural keys of a query's dimensions, computed once per query. */
const dimKeys = new WeakMap<Dim[], { keys: string[][]; kinds: Set<string> }>();

/** Marks a synthetic column standing for a query dimension (see dimsAsColumns). */
export const DIM = '\u0000dim';

/**
 * HAVING, QUALIFY, ORDER BY and windows may repeat a dimension's expression
 * (`ORDER BY QUARTER([Date])`): every subtree equal to a dimension becomes a column that
 * renders as that dimension.
 */
export function dimsAsColumns(v: V, dims: Dim[]): V {
  if (!dims.length) return v;
  let known = dimKeys.get(dims);
  if (!known) {
    known = {
      keys: dims.map((d) => [shapeKey(d.display), shapeKey(d.key)]),
      // Only nodes of a kind some dimension has can equal one (keeps long chains linear).
      kinds: new Set(dims.flatMap((d) => [d.display.t, d.key.t])),
    };
    dimKeys.set(dims, known);
  }
  const { keys, kinds } = known;
  return mapV(v, (x) => {
    if (x.t === 'agg') return x;
    if (x.t === 'const' || !kinds.has(x.t)) return null;
    const k = shapeKey(x);
    const d = keys.findIndex((pair) => pair.includes(k));
    if (d < 0) return null;
    const like = dims[d]!.attrs[0]!;
    return {
      t: 'col',
      col: { ...like, dataType: dims[d]!.dataType, dataset: DIM, column: String(d) },
      pos: x.pos,
    };
  });
}

/** What sees the assembled rows uses measures and the query's dimensions only. */
export function checkAssembled(v: V, dims: Dim[], clause: string): void {
  for (const c of columnsIn(v)) {
    if (c.dataset === DIM || dims.some((d) => sameCol(d.display, c) || sameCol(d.key, c))) continue;
    const at = findCol(v, c) ?? v.pos;
    if (c.kind === 'fact')
      throw fail(
        `[${title(c)}] is a fact outside an aggregation: write SUM([${title(c)}]) (or AVG, MIN, MAX, MEDIAN)${clause === 'a window' ? `; a window takes a measure, e.g. SUM(SUM([${title(c)}])) OVER (…)` : ''}`,
        at,
        { suggestions: [`SUM([${title(c)}])`] },
      );
    throw fail(
      clause === 'SELECT'
        ? `[${title(c)}] is an attribute inside a calculation: put it in SELECT as a dimension, or count it with COUNT([${title(c)}])`
        : `${clause} uses [${title(c)}], which is not a dimension of this query; filter rows with WHERE, or add it to SELECT`,
      at,
    );
  }
}

/** Where a column is written inside `v`. */
function findCol(v: V, c: Column): Pos | null {
  let at: Pos | null = null;
  mapV(v, (x) => {
    if (!at && x.t === 'col' && x.col === c) at = x.pos;
    return x.t === 'agg' ? x : null;
  });
  return at;
}

/** Indexes of the query dimensions a leaf groups by (BY ALL removes some or all). */
export function grainFor(l: Leaf, dims: Dim[]): number[] {
  if (l.byAll === null) return dims.map((_, i) => i);
  if (l.byAll.length === 0) return [];
  return dims
    .map((_, i) => i)
    .filter(
      (i) =>
        !l.byAll!.some((c) =>
          // A label stands for its attribute: BY ALL [Month Name] removes [Month] too.
          dims[i]!.attrs.some((a) => c.dataset === a.dataset && c.keyColumn === a.column),
        ),
    );
}
