// The resolved form of AQL: every reference is a model column, every aggregation a leaf
// that knows its own filters and grain modifier.
import type { ObjectRow } from '../model/store.js';
import type { Pos } from './ast.js';

export interface Column {
  dataset: string;
  column: string;
  dataType: string;
  kind: 'attribute' | 'label' | 'fact';
  obj: ObjectRow;
  /** For a label: the column of its attribute (grouping is by the attribute). */
  keyColumn: string;
}

export type DatePart = 'YEAR' | 'QUARTER' | 'MONTH' | 'WEEK' | 'DAY';
export type AggFn =
  | 'SUM'
  | 'AVG'
  | 'MIN'
  | 'MAX'
  | 'MEDIAN'
  | 'COUNT'
  | 'PERCENTILE'
  | 'STDDEV'
  /** NEST(SELECT …): the rows of `nest` per result row, as a JSON list. */
  | 'NEST';

/** Functions computed over the assembled result (after aggregation). */
export type WindowFn =
  | 'SUM'
  | 'AVG'
  | 'MIN'
  | 'MAX'
  | 'COUNT'
  | 'LAG'
  | 'LEAD'
  | 'RANK'
  | 'DENSE_RANK'
  | 'ROW_NUMBER'
  | 'FIRST_VALUE'
  | 'LAST_VALUE';

export interface Frame {
  unit: 'ROWS' | 'RANGE';
  from: { kind: 'preceding' | 'following' | 'current'; n: number | null };
  to: { kind: 'preceding' | 'following' | 'current'; n: number | null };
}

export interface Leaf {
  id: number;
  fn: AggFn;
  arg: V;
  /** COUNT([attr], [other]): the dataset that counts; COUNT([dataset]): that dataset. */
  countIn: string | null;
  /** COUNT([dataset]): counts the rows of countIn (its argument is a placeholder). */
  rows?: boolean;
  /** COUNT_DISTINCT: distinct values even of a fact. */
  distinct?: boolean;
  /** PERCENTILE's fraction, 0 to 1. */
  fraction?: number;
  /**
   * An aggregation over groups (`MEDIAN(SUM([Net]) BY [Order ID])`): `arg` is a measure,
   * computed at the leaf's grain plus these dimensions, then aggregated to the leaf's grain.
   */
  by?: Dim[];
  /** NEST(SELECT …): the nested query, resolved on its own (its dimensions come after the outer ones). */
  nest?: ResolvedQuery;
  /** Metric-level conditions, ANDed. */
  where: V[];
  /** BY ALL: null = query grain; [] = no dimensions; else attribute columns removed. */
  byAll: Column[] | null;
  text: string;
  /** The saved metric it comes from ("metric [Revenue]"), so errors name what the user wrote. */
  origin?: string | null;
  /** Where the user wrote it (for a saved metric: where the query names the metric). */
  pos: Pos;
}

// ---- the resolved query (query-resolve.ts makes it, plan.ts plans it) ----

export interface Dim {
  /** What groups (an attribute, the attribute of a label, or an expression of attributes). */
  key: V;
  /** What is shown (the label for a label). */
  display: V;
  /** The attributes it is built on: BY ALL [x] removes the dimensions built on x. */
  attrs: Column[];
  item: number;
  /** The SELECT item's text, the title of a computed dimension. */
  text: string;
  pos: Pos;
  dataType: string;
}

export interface Item {
  v: V;
  kind: 'dimension' | 'measure';
  pos: Pos;
  title: string;
  dataType: string;
  /** NEST(SELECT …): the nested rows' columns. */
  columns?: Pick<Item, 'title' | 'kind' | 'dataType'>[];
}

export type OrderRef = { col: number } | { v: V };

/** A text value compared with a text attribute in WHERE: a 0-row answer checks it exists. */
export interface ValueCheck {
  col: Column;
  value: string;
  pos: Pos;
}

export interface ResolvedQuery {
  items: Item[];
  dims: Dim[];
  where: V | null;
  having: V | null;
  qualify: V | null;
  order: { ref: OrderRef; desc: boolean; pos: Pos }[];
  /** The caller's row-level filter, resolved (trusted: it may name hidden objects). */
  security: V | null;
  limit: number | null;
  offset: number | null;
  objects: { ident: string; type: string; title: string }[];
  valueChecks: ValueCheck[];
}

/** Scalar functions: the same at row level and over the assembled result. */
export type ScalarFn =
  | 'ABS'
  | 'ROUND'
  | 'IFNULL'
  | 'COALESCE'
  | 'NULLIF'
  | 'LEAST'
  | 'GREATEST'
  | 'UPPER'
  | 'LOWER'
  | 'TRIM'
  | 'LENGTH'
  | 'LEFT'
  | 'RIGHT'
  | 'SUBSTRING'
  | 'CONCAT'
  | 'REPLACE'
  | 'DATE_TRUNC'
  | 'DATE_ADD'
  | 'DATE_DIFF';

/** Every node knows where it was written, so an error points at its own token. */
export type V = VNode & { pos: Pos };

type VNode =
  | { t: 'const'; v: number | string | boolean | null }
  | { t: 'col'; col: Column }
  | { t: 'part'; part: DatePart; e: V }
  | { t: 'today' }
  | { t: 'agg'; leaf: Leaf }
  | { t: 'arith'; op: '+' | '-' | '*' | '/' | '||'; l: V; r: V }
  | { t: 'neg'; e: V }
  | { t: 'fn'; name: ScalarFn; args: V[] }
  | { t: 'case'; whens: { when: V; then: V }[]; else: V | null }
  | { t: 'cmp'; op: '=' | '<>' | '<' | '<=' | '>' | '>='; l: V; r: V }
  | { t: 'in'; e: V; list: V[]; not: boolean }
  | { t: 'between'; e: V; lo: V; hi: V; not: boolean }
  | { t: 'like'; e: V; pattern: V; not: boolean; ci: boolean }
  | { t: 'isnull'; e: V; not: boolean }
  | { t: 'not'; e: V }
  | { t: 'and' | 'or'; l: V; r: V }
  | {
      t: 'win';
      fn: WindowFn;
      args: V[];
      partition: V[];
      order: { v: V; desc: boolean }[];
      frame: Frame | null;
    };

export function walk(v: V, visit: (v: V) => void): void {
  visit(v);
  switch (v.t) {
    case 'part':
    case 'neg':
    case 'not':
      return walk(v.e, visit);
    case 'isnull':
      return walk(v.e, visit);
    case 'arith':
    case 'cmp':
    case 'and':
    case 'or':
      walk(v.l, visit);
      return walk(v.r, visit);
    case 'fn':
      return v.args.forEach((a) => walk(a, visit));
    case 'win':
      v.args.forEach((a) => walk(a, visit));
      v.partition.forEach((a) => walk(a, visit));
      return v.order.forEach((o) => walk(o.v, visit));
    case 'case':
      for (const w of v.whens) {
        walk(w.when, visit);
        walk(w.then, visit);
      }
      if (v.else) walk(v.else, visit);
      return;
    case 'in':
      walk(v.e, visit);
      return v.list.forEach((x) => walk(x, visit));
    case 'between':
      walk(v.e, visit);
      walk(v.lo, visit);
      return walk(v.hi, visit);
    case 'like':
      walk(v.e, visit);
      return walk(v.pattern, visit);
    default:
      return; // const, col, today, agg: leaves are walked by the planner itself
  }
}

export function columnsIn(v: V): Column[] {
  const out: Column[] = [];
  walk(v, (x) => {
    if (x.t === 'col') out.push(x.col);
  });
  return out;
}

export function leavesIn(v: V): Leaf[] {
  const out: Leaf[] = [];
  walk(v, (x) => {
    if (x.t === 'agg') out.push(x.leaf);
  });
  return out;
}

export const hasAgg = (v: V): boolean => leavesIn(v).length > 0;

export function hasWindow(v: V): boolean {
  let found = false;
  walk(v, (x) => {
    if (x.t === 'win') found = true;
  });
  return found;
}

/** Rebuilds `v` bottom-up, replacing any node for which `swap` returns one. */
export function mapV(v: V, swap: (x: V) => V | null): V {
  const hit = swap(v);
  if (hit) return hit;
  const m = (x: V) => mapV(x, swap);
  switch (v.t) {
    case 'part':
    case 'neg':
    case 'not':
    case 'isnull':
      return { ...v, e: m(v.e) };
    case 'arith':
      return { ...v, l: m(v.l), r: m(v.r) };
    case 'cmp':
      return { ...v, l: m(v.l), r: m(v.r) };
    case 'and':
    case 'or':
      return { ...v, l: m(v.l), r: m(v.r) };
    case 'fn':
      return { ...v, args: v.args.map(m) };
    case 'case':
      return {
        ...v,
        whens: v.whens.map((w) => ({ when: m(w.when), then: m(w.then) })),
        else: v.else ? m(v.else) : null,
      };
    case 'in':
      return { ...v, e: m(v.e), list: v.list.map(m) };
    case 'between':
      return { ...v, e: m(v.e), lo: m(v.lo), hi: m(v.hi) };
    case 'like':
      return { ...v, e: m(v.e), pattern: m(v.pattern) };
    case 'win':
      return {
        ...v,
        args: v.args.map(m),
        partition: v.partition.map(m),
        order: v.order.map((o) => ({ v: m(o.v), desc: o.desc })),
      };
    default:
      return v;
  }
}

/** A structural key of an expression: positions and model rows left out. */
export function shapeKey(v: unknown): string {
  return JSON.stringify(v, (k, x) =>
    k === 'obj' || k === 'pos' || k === 'text' || k === 'origin' || k === 'id' ? undefined : x,
  );
}
