// The resolved form of AQL: every reference is a model column, every aggregation a leaf
// that knows its own filters and grain modifier.
import type { ObjectRow } from '../model/store.js';

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
export type AggFn = 'SUM' | 'AVG' | 'MIN' | 'MAX' | 'MEDIAN' | 'COUNT';

export interface Leaf {
  id: number;
  fn: AggFn;
  arg: V;
  /** COUNT([attr], [other]): the dataset that counts. */
  countIn: string | null;
  /** Metric-level conditions, ANDed. */
  where: V[];
  /** BY ALL: null = query grain; [] = no dimensions; else attribute columns removed. */
  byAll: Column[] | null;
  text: string;
  /** The saved metric it comes from ("metric [Revenue]"), so errors name what the user wrote. */
  origin?: string | null;
}

export type V =
  | { t: 'const'; v: number | string | boolean | null }
  | { t: 'col'; col: Column }
  | { t: 'part'; part: DatePart; e: V }
  | { t: 'today' }
  | { t: 'agg'; leaf: Leaf }
  | { t: 'arith'; op: '+' | '-' | '*' | '/'; l: V; r: V }
  | { t: 'neg'; e: V }
  | { t: 'fn'; name: 'ABS' | 'ROUND' | 'IFNULL'; args: V[] }
  | { t: 'case'; whens: { when: V; then: V }[]; else: V | null }
  | { t: 'cmp'; op: '=' | '<>' | '<' | '<=' | '>' | '>='; l: V; r: V }
  | { t: 'in'; e: V; list: V[]; not: boolean }
  | { t: 'between'; e: V; lo: V; hi: V; not: boolean }
  | { t: 'like'; e: V; pattern: V; not: boolean; ci: boolean }
  | { t: 'isnull'; e: V; not: boolean }
  | { t: 'not'; e: V }
  | { t: 'and' | 'or'; l: V; r: V };

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
