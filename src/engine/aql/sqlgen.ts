// Rendering resolved expressions as DuckDB SQL. Values are always bound parameters;
// identifiers come only from the model (validated column and dataset ids).
import { ident } from '../data/databases.js';
import type { Pos } from './ast.js';
import type { Column, V } from './ir.js';
import { fail } from './resolve.js';

export class Params {
  readonly values: (string | number | boolean | null)[] = [];
  add(v: string | number | boolean | null): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

type Kind = 'number' | 'string' | 'date' | 'datetime' | 'boolean' | 'unknown';

export function kindOf(v: V): Kind {
  switch (v.t) {
    case 'const':
      return typeof v.v === 'number'
        ? 'number'
        : typeof v.v === 'boolean'
          ? 'boolean'
          : v.v === null
            ? 'unknown'
            : 'string';
    case 'col':
      return v.col.dataType === 'integer' || v.col.dataType === 'number'
        ? 'number'
        : (v.col.dataType as Kind);
    case 'today':
      return 'date';
    case 'part':
    case 'arith':
    case 'neg':
    case 'agg':
      return 'number';
    case 'fn':
      return v.name === 'IFNULL' ? kindOf(v.args[0]!) : 'number';
    case 'case':
      return v.whens[0] ? kindOf(v.whens[0].then) : 'unknown';
    default:
      return 'boolean';
  }
}

export interface RenderCtx {
  params: Params;
  /** Renders a column (row level) or a leaf (assembly level). */
  col: (c: Column) => string;
  agg: (v: Extract<V, { t: 'agg' }>) => string;
  pos: Pos;
}

const PART_SQL = {
  YEAR: 'year',
  QUARTER: 'quarter',
  MONTH: 'month',
  WEEK: 'week',
  DAY: 'day',
} as const;

/** A constant compared with something of kind `k`: cast so DuckDB compares like with like. */
function constAs(v: Extract<V, { t: 'const' }>, k: Kind, r: RenderCtx): string {
  if (v.v === null) return 'NULL';
  const p = r.params.add(v.v);
  if (typeof v.v === 'string') {
    if (k === 'date') return `CAST(${p} AS DATE)`;
    if (k === 'datetime') return `CAST(${p} AS TIMESTAMP)`;
    if (k === 'number') {
      if (!Number.isFinite(Number(v.v)) || v.v.trim() === '')
        throw fail(`"${v.v}" is compared with a number but is not one`, r.pos, { value: v.v });
      return `CAST(${p} AS DOUBLE)`;
    }
  }
  if (typeof v.v === 'number' && k === 'string') return `CAST(${p} AS VARCHAR)`;
  return p;
}

/** Renders `v`; `peer` is what it is compared with, so constants take its type. */
export function render(v: V, r: RenderCtx, peer: Kind = 'unknown'): string {
  const go = (x: V, k: Kind = 'unknown') => render(x, r, k);
  switch (v.t) {
    case 'const':
      return constAs(v, peer, r);
    case 'col':
      return r.col(v.col);
    case 'today':
      return 'current_date';
    case 'part':
      return `${PART_SQL[v.part]}(${go(v.e)})`;
    case 'agg':
      return r.agg(v);
    case 'arith':
      // Division by zero gives null, not an error.
      return v.op === '/'
        ? `(${go(v.l, 'number')} / NULLIF(${go(v.r, 'number')}, 0))`
        : `(${go(v.l, 'number')} ${v.op} ${go(v.r, 'number')})`;
    case 'neg':
      return `(-${go(v.e, 'number')})`;
    case 'fn':
      if (v.name === 'ABS') return `abs(${go(v.args[0]!, 'number')})`;
      if (v.name === 'ROUND') {
        const digits = v.args[1];
        if (digits && !(digits.t === 'const' && Number.isInteger(digits.v)))
          throw fail('ROUND takes a whole number of digits, e.g. ROUND([x], 2)', r.pos);
        return `round(${go(v.args[0]!, 'number')}${digits ? `, ${Number((digits as { v: number }).v)}` : ''})`;
      }
      return `coalesce(${go(v.args[0]!)}, ${go(v.args[1]!, kindOf(v.args[0]!))})`;
    case 'case': {
      const whens = v.whens
        .map((w) => `WHEN ${go(w.when)} THEN ${go(w.then, kindOf(v.whens[0]!.then))}`)
        .join(' ');
      return `(CASE ${whens}${v.else ? ` ELSE ${go(v.else, kindOf(v.whens[0]!.then))}` : ''} END)`;
    }
    case 'cmp': {
      const lk = kindOf(v.l);
      const rk = kindOf(v.r);
      return `(${go(v.l, rk)} ${v.op} ${go(v.r, lk)})`;
    }
    case 'in': {
      const k = kindOf(v.e);
      return `(${go(v.e)} ${v.not ? 'NOT IN' : 'IN'} (${v.list.map((x) => go(x, k)).join(', ')}))`;
    }
    case 'between': {
      const k = kindOf(v.e);
      return `(${go(v.e)} ${v.not ? 'NOT BETWEEN' : 'BETWEEN'} ${go(v.lo, k)} AND ${go(v.hi, k)})`;
    }
    case 'like':
      return `(CAST(${go(v.e)} AS VARCHAR) ${v.not ? 'NOT LIKE' : 'LIKE'} ${go(v.pattern, 'string')})`;
    case 'isnull':
      return `(${go(v.e)} IS ${v.not ? 'NOT ' : ''}NULL)`;
    case 'not':
      return `(NOT ${go(v.e)})`;
    case 'and':
      return `(${go(v.l)} AND ${go(v.r)})`;
    case 'or':
      return `(${go(v.l)} OR ${go(v.r)})`;
  }
}

export const colSql = (alias: string, column: string): string => `${alias}.${ident(column)}`;
