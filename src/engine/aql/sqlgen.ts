// Rendering resolved expressions as DuckDB SQL. Values are always bound parameters;
// identifiers come only from the model (validated column and dataset ids).
import { ident } from '../data/databases.js';
import type { Pos } from './ast.js';
import type { Column, V } from './ir.js';
import type { AqlError } from './errors.js';
import { fail } from './resolve.js';

export class Params {
  readonly values: (string | number | boolean | null)[] = [];
  add(v: string | number | boolean | null): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export type Kind = 'number' | 'string' | 'date' | 'datetime' | 'boolean' | 'unknown';

/** How a kind is named in messages. */
const KIND_WORDS: Record<Kind, string> = {
  number: 'a number',
  string: 'text',
  date: 'a date',
  datetime: 'a date and time',
  boolean: 'a condition (true or false)',
  unknown: 'null',
};

/** The kind of operands that must agree (compared, or branches of CASE / IFNULL). */
function commonKind(vs: V[]): Kind {
  const kinds = vs.map(kindOf);
  const column = kinds.find((k, i) => k !== 'unknown' && vs[i]!.t !== 'const');
  return column ?? kinds.find((k) => k !== 'unknown') ?? 'unknown';
}

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
    case 'agg': {
      // MIN and MAX keep their argument's kind; the median of dates is a timestamp.
      const fn = v.leaf.fn;
      const k = kindOf(v.leaf.arg);
      if (fn === 'MIN' || fn === 'MAX') return k;
      if (fn === 'MEDIAN' && (k === 'date' || k === 'datetime')) return 'datetime';
      return 'number';
    }
    case 'part':
    case 'arith':
    case 'neg':
      return 'number';
    case 'fn':
      return v.name === 'IFNULL' ? commonKind(v.args) : 'number';
    case 'case':
      return commonKind([...v.whens.map((w) => w.then), ...(v.else ? [v.else] : [])]);
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

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?)?$/;
const NUMBER = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** Whether text is a calendar date (or date and time) DuckDB will read. */
function isDateText(text: string, k: 'date' | 'datetime'): boolean {
  const m = (k === 'date' ? DATE : DATETIME).exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const day = new Date(Date.UTC(2000, mo - 1, d)); // a leap year: 02-29 checked below
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  if (day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d || (mo === 2 && d === 29 && !leap))
    return false;
  return Number(m[4] ?? 0) < 24 && Number(m[5] ?? 0) < 60 && Number(m[6] ?? 0) < 60;
}

/** A number as a bound parameter; integers beyond 2^53 go as DOUBLE (not a failing BIGINT). */
function numberParam(n: number, r: RenderCtx): string {
  if (!Number.isFinite(n))
    throw fail(`a number is too large to compute with (more than about 1.8e308)`, r.pos);
  return Number.isInteger(n) && !Number.isSafeInteger(n)
    ? `CAST(${r.params.add(String(n))} AS DOUBLE)`
    : r.params.add(n);
}

const shown = (v: V) =>
  v.t === 'const' ? (typeof v.v === 'string' ? `"${v.v}"` : String(v.v)) : null;

function mismatch(v: V, k: Kind, r: RenderCtx, hint = ''): AqlError {
  const what = shown(v) ?? KIND_WORDS[kindOf(v)];
  return fail(
    `${what}${shown(v) ? ` (${KIND_WORDS[kindOf(v)]})` : ''} cannot be used where ${KIND_WORDS[k]} is expected${hint}`,
    r.pos,
    { expected: [KIND_WORDS[k]] },
  );
}

/** A constant used where a value of kind `k` is: converted so DuckDB compares like with like. */
function constAs(v: Extract<V, { t: 'const' }>, k: Kind, r: RenderCtx): string {
  if (v.v === null) return 'NULL';
  if (typeof v.v === 'string') {
    if (k === 'date' || k === 'datetime') {
      if (!isDateText(v.v, k))
        throw mismatch(v, k, r, k === 'date' ? '; write dates as "YYYY-MM-DD"' : '');
      return `CAST(${r.params.add(v.v)} AS ${k === 'date' ? 'DATE' : 'TIMESTAMP'})`;
    }
    if (k === 'number') {
      if (!NUMBER.test(v.v))
        throw fail(`"${v.v}" is compared with a number but is not one`, r.pos, { value: v.v });
      return `CAST(${numberParam(Number(v.v), r)} AS DOUBLE)`;
    }
    if (k === 'boolean') throw mismatch(v, k, r, '; write TRUE or FALSE');
    return r.params.add(v.v);
  }
  if (typeof v.v === 'number') {
    if (k === 'string') return `CAST(${numberParam(v.v, r)} AS VARCHAR)`;
    if (k === 'date' || k === 'datetime' || k === 'boolean') throw mismatch(v, k, r);
    return numberParam(v.v, r);
  }
  if (k !== 'boolean' && k !== 'unknown') throw mismatch(v, k, r);
  return r.params.add(v.v);
}

/** Operands that meet (compared, or alternatives): of one kind, constants converted to it. */
function together(vs: V[], r: RenderCtx): string[] {
  const k = commonKind(vs);
  for (const x of vs) {
    const xk = kindOf(x);
    const dates = (xk === 'date' || xk === 'datetime') && (k === 'date' || k === 'datetime');
    if (x.t !== 'const' && xk !== k && xk !== 'unknown' && !dates)
      throw fail(`${KIND_WORDS[xk]} cannot be compared with ${KIND_WORDS[k]}`, r.pos, {
        expected: [KIND_WORDS[k]],
      });
  }
  return vs.map((x) => render(x, r, k));
}

/** An operand of arithmetic (or ABS, ROUND): a number. */
function numeric(v: V, r: RenderCtx): string {
  const k = kindOf(v);
  if (v.t !== 'const' && k !== 'number' && k !== 'unknown')
    throw fail(`arithmetic needs numbers, but ${KIND_WORDS[k]} is used`, r.pos, {
      expected: [KIND_WORDS.number],
    });
  return render(v, r, 'number');
}

/** A condition: WHERE, HAVING, WHEN, and the operands of AND, OR and NOT. */
export function renderCondition(v: V, r: RenderCtx): string {
  const k = kindOf(v);
  if (k !== 'boolean' && k !== 'unknown')
    throw fail(
      `a condition is expected (a comparison, IN, LIKE, IS NULL, a true/false attribute or a saved filter), but ${shown(v) ?? KIND_WORDS[k]} is used`,
      r.pos,
      { expected: ['a condition'] },
    );
  return render(v, r, 'boolean');
}

const AGG_KINDS: Partial<Record<string, Kind[]>> = {
  SUM: ['number', 'unknown'],
  AVG: ['number', 'unknown'],
  MEDIAN: ['number', 'date', 'datetime', 'unknown'],
};

function checkAggregate(v: Extract<V, { t: 'agg' }>, r: RenderCtx): void {
  const allowed = AGG_KINDS[v.leaf.fn];
  const k = kindOf(v.leaf.arg);
  if (allowed && !allowed.includes(k))
    throw fail(
      `${v.leaf.fn} takes numbers${v.leaf.fn === 'MEDIAN' ? ' or dates' : ''}, but ${v.leaf.text} is given ${KIND_WORDS[k]}${k === 'boolean' ? '; count rows with SUM(CASE WHEN … THEN 1 ELSE 0 END)' : ''}`,
      { ...r.pos, text: v.leaf.text },
      { expected: [KIND_WORDS.number] },
    );
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
      checkAggregate(v, r);
      return r.agg(v);
    case 'arith':
      // Division by zero gives null, not an error.
      return v.op === '/'
        ? `(${numeric(v.l, r)} / NULLIF(${numeric(v.r, r)}, 0))`
        : `(${numeric(v.l, r)} ${v.op} ${numeric(v.r, r)})`;
    case 'neg':
      return `(-${numeric(v.e, r)})`;
    case 'fn':
      if (v.name === 'ABS') return `abs(${numeric(v.args[0]!, r)})`;
      if (v.name === 'ROUND') {
        const digits = v.args[1];
        if (
          digits &&
          !(
            digits.t === 'const' &&
            typeof digits.v === 'number' &&
            Number.isInteger(digits.v) &&
            digits.v <= 99
          )
        )
          throw fail(
            'ROUND takes a whole number of digits from 0 to 99, e.g. ROUND([x], 2)',
            r.pos,
          );
        return `round(${numeric(v.args[0]!, r)}${digits ? `, ${Number((digits as { v: number }).v)}` : ''})`;
      }
      return `coalesce(${together(v.args, r).join(', ')})`;
    case 'case': {
      const branches = together([...v.whens.map((w) => w.then), ...(v.else ? [v.else] : [])], r);
      const whens = v.whens
        .map((w, i) => `WHEN ${renderCondition(w.when, r)} THEN ${branches[i]}`)
        .join(' ');
      return `(CASE ${whens}${v.else ? ` ELSE ${branches[v.whens.length]}` : ''} END)`;
    }
    case 'cmp': {
      const [l, rr] = together([v.l, v.r], r);
      return `(${l} ${v.op} ${rr})`;
    }
    case 'in': {
      const [e, ...list] = together([v.e, ...v.list], r);
      return `(${e} ${v.not ? 'NOT IN' : 'IN'} (${list.join(', ')}))`;
    }
    case 'between': {
      const [e, lo, hi] = together([v.e, v.lo, v.hi], r);
      return `(${e} ${v.not ? 'NOT BETWEEN' : 'BETWEEN'} ${lo} AND ${hi})`;
    }
    case 'like': {
      const pattern =
        v.pattern.t === 'const' ? go(v.pattern, 'string') : `CAST(${go(v.pattern)} AS VARCHAR)`;
      const op = `${v.not ? 'NOT ' : ''}${v.ci ? 'ILIKE' : 'LIKE'}`;
      return `(CAST(${go(v.e)} AS VARCHAR) ${op} ${pattern})`;
    }
    case 'isnull':
      return `(${go(v.e)} IS ${v.not ? 'NOT ' : ''}NULL)`;
    case 'not':
      return `(NOT ${renderCondition(v.e, r)})`;
    case 'and':
      return `(${renderCondition(v.l, r)} AND ${renderCondition(v.r, r)})`;
    case 'or':
      return `(${renderCondition(v.l, r)} OR ${renderCondition(v.r, r)})`;
  }
}

export const colSql = (alias: string, column: string): string => `${alias}.${ident(column)}`;
