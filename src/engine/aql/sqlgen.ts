// Rendering resolved expressions as SQL of the target's dialect (dialect/: DuckDB by default).
// Values are always bound parameters; identifiers come only from the model (validated column
// and dataset ids).
import type { Pos } from './ast.js';
import { DUCKDB } from './dialect/duckdb.js';
import type { DateUnit, Dialect } from './dialect/dialect.js';
import type { Column, V } from './ir.js';
import type { AqlError } from './errors.js';
import { fail } from './resolve-ctx.js';

export class Params {
  readonly values: (string | number | boolean | null)[] = [];
  private seen = new Map<string, string>();
  /**
   * `today`: TODAY() as "YYYY-MM-DD" in the project's time zone, bound like any value;
   * `dialect`: the SQL written (how it names parameters, and everything else in sqlgen).
   */
  constructor(
    readonly today: string = new Date().toISOString().slice(0, 10),
    readonly dialect: Dialect = DUCKDB,
  ) {}
  /**
   * One parameter per distinct value: an expression rendered twice (SELECT and GROUP BY)
   * is the same text, so the database sees the same expression.
   */
  add(v: string | number | boolean | null): string {
    const key = `${typeof v}:${String(v)}`;
    const hit = this.seen.get(key);
    if (hit) return hit;
    this.values.push(v);
    const name = this.dialect.placeholder(this.values.length, v);
    this.seen.set(key, name);
    return name;
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

const kinds = new WeakMap<V, Kind>();

/** The kind of a value (remembered per node: rendering asks at every level of a chain). */
export function kindOf(v: V): Kind {
  let k = kinds.get(v);
  if (k === undefined) {
    k = kindOfNode(v);
    kinds.set(v, k);
  }
  return k;
}

function kindOfNode(v: V): Kind {
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
    case 'neg':
      return 'number';
    case 'arith': {
      if (v.op === '||') return 'string';
      const [l, r] = [kindOf(v.l), kindOf(v.r)];
      if (isDate(l) && isDate(r)) return v.op === '-' ? 'number' : l;
      if (isDate(l)) return l;
      if (isDate(r) && v.op === '+') return r;
      return 'number';
    }
    case 'fn':
      return fnKind(v);
    case 'win':
      return ['MIN', 'MAX', 'LAG', 'LEAD', 'FIRST_VALUE', 'LAST_VALUE'].includes(v.fn)
        ? kindOf(v.args[0]!)
        : 'number';
    case 'case':
      return commonKind([...v.whens.map((w) => w.then), ...(v.else ? [v.else] : [])]);
    default:
      return 'boolean';
  }
}

const isDate = (k: Kind) => k === 'date' || k === 'datetime';

function fnKind(v: Extract<V, { t: 'fn' }>): Kind {
  switch (v.name) {
    case 'IFNULL':
    case 'COALESCE':
    case 'NULLIF':
    case 'LEAST':
    case 'GREATEST':
      return commonKind(v.args);
    case 'UPPER':
    case 'LOWER':
    case 'TRIM':
    case 'LEFT':
    case 'RIGHT':
    case 'SUBSTRING':
    case 'CONCAT':
    case 'REPLACE':
      return 'string';
    case 'DATE_TRUNC':
      return 'date';
    case 'DATE_ADD':
      return kindOf(v.args[2]!) === 'datetime' ? 'datetime' : 'date';
    default:
      return 'number'; // ABS, ROUND, LENGTH, DATE_DIFF
  }
}

export interface RenderCtx {
  params: Params;
  /** Renders a column (row level) or a leaf (assembly level). */
  col: (c: Column) => string;
  agg: (v: Extract<V, { t: 'agg' }>) => string;
  pos: Pos;
  /** Over the assembled result: the dimensions, breaking ties of ROW_NUMBER, LAG and LEAD. */
  tiebreak?: string[];
}

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
function numberParam(n: number, r: RenderCtx, pos: Pos = r.pos): string {
  if (!Number.isFinite(n))
    throw fail(`a number is too large to compute with (more than about 1.8e308)`, pos);
  return Number.isInteger(n) && !Number.isSafeInteger(n)
    ? r.params.dialect.cast(r.params.add(String(n)), 'double')
    : r.params.add(n);
}

const shown = (v: V) =>
  v.t === 'const' ? (typeof v.v === 'string' ? `"${v.v}"` : String(v.v)) : null;

function mismatch(v: V, k: Kind, r: RenderCtx, hint = ''): AqlError {
  const what = shown(v) ?? KIND_WORDS[kindOf(v)];
  return fail(
    `${what}${shown(v) ? ` (${KIND_WORDS[kindOf(v)]})` : ''} cannot be used where ${KIND_WORDS[k]} is expected${hint}`,
    v.pos ?? r.pos,
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
      return r.params.dialect.cast(r.params.add(v.v), k === 'date' ? 'date' : 'timestamp');
    }
    if (k === 'number') {
      if (!NUMBER.test(v.v))
        throw fail(`"${v.v}" is compared with a number but is not one`, v.pos, { value: v.v });
      return r.params.dialect.cast(numberParam(Number(v.v), r, v.pos), 'double');
    }
    if (k === 'boolean') throw mismatch(v, k, r, '; write TRUE or FALSE');
    return r.params.add(v.v);
  }
  if (typeof v.v === 'number') {
    if (k === 'string') return r.params.dialect.cast(numberParam(v.v, r, v.pos), 'text');
    if (k === 'date' || k === 'datetime' || k === 'boolean') throw mismatch(v, k, r);
    return numberParam(v.v, r, v.pos);
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
      throw fail(`${KIND_WORDS[xk]} cannot be compared with ${KIND_WORDS[k]}`, x.pos ?? r.pos, {
        expected: [KIND_WORDS[k]],
      });
  }
  return vs.map((x) => render(x, r, k));
}

/** An operand of arithmetic (or ABS, ROUND): a number. */
function numeric(v: V, r: RenderCtx): string {
  const k = kindOf(v);
  if (v.t !== 'const' && k !== 'number' && k !== 'unknown')
    throw fail(`arithmetic needs numbers, but ${KIND_WORDS[k]} is used`, v.pos ?? r.pos, {
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
      v.pos ?? r.pos,
      { expected: ['a condition'] },
    );
  return render(v, r, 'boolean');
}

const AGG_KINDS: Partial<Record<string, Kind[]>> = {
  SUM: ['number', 'unknown'],
  AVG: ['number', 'unknown'],
  MEDIAN: ['number', 'date', 'datetime', 'unknown'],
  PERCENTILE: ['number', 'unknown'],
  STDDEV: ['number', 'unknown'],
};

function checkAggregate(v: Extract<V, { t: 'agg' }>, r: RenderCtx): void {
  const allowed = AGG_KINDS[v.leaf.fn];
  const k = kindOf(v.leaf.arg);
  if (allowed && !allowed.includes(k))
    throw fail(
      `${v.leaf.fn} takes numbers${v.leaf.fn === 'MEDIAN' ? ' or dates' : ''}, but ${v.leaf.text} is given ${KIND_WORDS[k]}${k === 'boolean' ? '; count rows with SUM(CASE WHEN … THEN 1 ELSE 0 END)' : ''}`,
      v.leaf.arg.pos ?? { ...r.pos, text: v.leaf.text },
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
      return r.params.dialect.cast(r.params.add(r.params.today), 'date');
    case 'part':
      return r.params.dialect.datePart(v.part, go(v.e));
    case 'agg':
      checkAggregate(v, r);
      return r.agg(v);
    case 'arith':
      return renderArith(v, r);
    case 'neg':
      return `(-${numeric(v.e, r)})`;
    case 'fn':
      return renderFn(v, r);
    case 'win':
      return renderWindow(v, r);
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
      const d = r.params.dialect;
      const pattern =
        v.pattern.t === 'const' ? go(v.pattern, 'string') : d.cast(go(v.pattern), 'text');
      return d.like(d.cast(go(v.e), 'text'), pattern, v.not, v.ci);
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

/** Text of any kind: text functions and || take numbers and dates as their text. */
function text(v: V, r: RenderCtx): string {
  if (v.t === 'const') return v.v === null ? 'NULL' : constAs(v, 'string', r);
  const sql = render(v, r);
  return kindOf(v) === 'string' ? sql : r.params.dialect.cast(sql, 'text');
}

/** A text position or length: whole, and within what any text can hold (no overflow). */
const whole = (v: V, r: RenderCtx) =>
  r.params.dialect.cast(`least(greatest(${numeric(v, r)}, -1000000000), 1000000000)`, 'whole');

/** A date or a date and time; a "YYYY-MM-DD" string is read as a date. */
function dateArg(v: V, r: RenderCtx, fn: string): string {
  const k = kindOf(v);
  if (v.t === 'const') return constAs(v, 'date', r);
  if (!isDate(k))
    throw fail(`${fn} takes a date, but ${KIND_WORDS[k]} is used`, v.pos ?? r.pos, {
      expected: [KIND_WORDS.date],
    });
  return render(v, r);
}

/** A number written as a constant, possibly negated (`-30` is a minus sign and 30). */
function constNumber(v: V): number | null {
  if (v.t === 'const' && typeof v.v === 'number') return v.v;
  if (v.t === 'neg') {
    const inner = constNumber(v.e);
    return inner === null ? null : -inner;
  }
  return null;
}

/**
 * "YYYY-MM-DD" moved by n units, as the database would: months keep the day, or end on the
 * last day of a shorter month (January 31 + 1 month = February 28 or 29).
 */
export function shiftDate(date: string, unit: string, n: number): string | null {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  // Years 0–99 mean 1900–1999 to Date.UTC, and years past 9999 do not print as YYYY:
  // such dates are left to the database.
  if (y < 1000 || y > 9000 || Math.abs(n) > 12_000) return null;
  const iso = (t: Date) => t.toISOString().slice(0, 10);
  if (unit === 'day' || unit === 'week') {
    const out = iso(new Date(Date.UTC(y, m - 1, d + n * (unit === 'week' ? 7 : 1))));
    return /^\d{4}-/.test(out) && out >= '1000' ? out : null;
  }
  const months = n * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
  const first = new Date(Date.UTC(y, m - 1 + months, 1));
  const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0)).getUTCDate();
  first.setUTCDate(Math.min(d, last));
  const out = iso(first);
  return /^\d{4}-/.test(out) && out >= '1000' ? out : null;
}

/** 10,000 years in each unit: further is outside any calendar a database keeps. */
const MAX_UNITS: Record<string, number> = {
  year: 10_000,
  quarter: 40_000,
  month: 120_000,
  week: 522_000,
  day: 3_653_000,
};

const unitOf = (v: V) => String((v as { v: unknown }).v).toLowerCase() as DateUnit;

function renderArith(v: Extract<V, { t: 'arith' }>, r: RenderCtx): string {
  if (v.op === '||') return `(${text(v.l, r)} || ${text(v.r, r)})`;
  const [lk, rk] = [kindOf(v.l), kindOf(v.r)];
  if (v.op === '+' || v.op === '-') {
    // Dates move by days: d + n, n + d, d - n; d - d is the number of days between.
    if (isDate(lk) && isDate(rk) && v.op === '-')
      return r.params.dialect.daysBetween(render(v.r, r), render(v.l, r));
    const [d, n] = isDate(lk) ? [v.l, v.r] : isDate(rk) && v.op === '+' ? [v.r, v.l] : [null, null];
    if (d && n) {
      const days = r.params.dialect.cast(numeric(n, r), 'integer');
      const kind = kindOf(d) === 'date' ? 'date' : 'datetime';
      return r.params.dialect.addDays(render(d, r), kind, v.op, days);
    }
  }
  // Division by zero gives null, not an error.
  return v.op === '/'
    ? r.params.dialect.divide(numeric(v.l, r), numeric(v.r, r))
    : `(${numeric(v.l, r)} ${v.op} ${numeric(v.r, r)})`;
}

function renderFn(v: Extract<V, { t: 'fn' }>, r: RenderCtx): string {
  const a = v.args;
  switch (v.name) {
    case 'ABS':
      return `abs(${numeric(a[0]!, r)})`;
    case 'ROUND': {
      const digits = a[1];
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
          `ROUND takes a whole number of digits from 0 to 99, e.g. ROUND(${a[0]!.pos?.text ?? 'x'}, 2)`,
          digits.pos ?? r.pos,
        );
      return r.params.dialect.round(
        numeric(a[0]!, r),
        digits ? Number((digits as { v: number }).v) : null,
      );
    }
    case 'IFNULL':
    case 'COALESCE':
      return `coalesce(${together(a, r).join(', ')})`;
    case 'NULLIF':
      return `nullif(${together(a, r).join(', ')})`;
    case 'LEAST':
    case 'GREATEST':
      return `${v.name.toLowerCase()}(${together(a, r).join(', ')})`;
    case 'UPPER':
    case 'LOWER':
    case 'TRIM':
    case 'LENGTH':
      return `${v.name.toLowerCase()}(${text(a[0]!, r)})`;
    case 'LEFT':
    case 'RIGHT':
      return `${v.name.toLowerCase()}(${text(a[0]!, r)}, ${whole(a[1]!, r)})`;
    case 'SUBSTRING':
      return `substring(${text(a[0]!, r)}, ${a
        .slice(1)
        .map((x) => whole(x, r))
        .join(', ')})`;
    case 'CONCAT':
      return `concat(${a.map((x) => text(x, r)).join(', ')})`;
    case 'REPLACE':
      return `replace(${a.map((x) => text(x, r)).join(', ')})`;
    case 'DATE_TRUNC':
      return r.params.dialect.truncDate(unitOf(a[0]!), dateArg(a[1]!, r, 'DATE_TRUNC'));
    case 'DATE_ADD': {
      const unit = unitOf(a[0]!);
      const n = a[1]!;
      const k = constNumber(n);
      if (k !== null && Math.abs(k) > MAX_UNITS[unit]!)
        throw fail(
          `DATE_ADD moves a date by at most ${MAX_UNITS[unit]} ${unit}s (10,000 years)`,
          n.pos ?? r.pos,
        );
      // A constant date moved by a constant is computed here: the database then sees one
      // date, which it can use to skip blocks of rows (zone maps), as with a date written out.
      const base =
        a[2]!.t === 'today'
          ? r.params.today
          : a[2]!.t === 'const' && typeof a[2]!.v === 'string' && isDateText(a[2]!.v, 'date')
            ? a[2]!.v
            : null;
      const shifted = base && k !== null && Number.isInteger(k) ? shiftDate(base, unit, k) : null;
      const dialect = r.params.dialect;
      if (shifted) return dialect.cast(r.params.add(shifted), 'date');
      const d = dateArg(a[2]!, r, 'DATE_ADD');
      const moved = `(${d} + ${dialect.interval(unitOf(a[0]!), dialect.cast(numeric(a[1]!, r), 'integer'))})`;
      return kindOf(a[2]!) === 'datetime' ? moved : dialect.cast(moved, 'date');
    }
    case 'DATE_DIFF': {
      const both = [a[1]!, a[2]!];
      const mixed = new Set(both.map(kindOf)).size > 1;
      const [x, y] = both.map((d) => {
        const sql = dateArg(d, r, 'DATE_DIFF');
        return mixed ? r.params.dialect.cast(sql, 'timestamp') : sql;
      });
      // Whole units from the first date to the second (complete units).
      return r.params.dialect.unitsBetween(unitOf(a[0]!), x!, y!);
    }
  }
}

function bound(b: { kind: string; n: number | null }): string {
  if (b.kind === 'current') return 'CURRENT ROW';
  return `${b.n === null ? 'UNBOUNDED' : b.n} ${b.kind === 'preceding' ? 'PRECEDING' : 'FOLLOWING'}`;
}

function renderWindow(v: Extract<V, { t: 'win' }>, r: RenderCtx): string {
  const a = v.args;
  let call: string;
  switch (v.fn) {
    case 'SUM':
    case 'AVG':
      call = `${v.fn.toLowerCase()}(${numeric(a[0]!, r)})`;
      break;
    case 'COUNT':
      call = `count(${render(a[0]!, r)})`;
      break;
    case 'LAG':
    case 'LEAD': {
      const off = a[1] ? String((a[1] as { v: number }).v) : '1';
      const vals = a[2] ? together([a[0]!, a[2]], r) : [render(a[0]!, r)];
      call = `${v.fn.toLowerCase()}(${vals[0]}, ${off}${vals[1] ? `, ${vals[1]}` : ''})`;
      break;
    }
    default:
      call = `${v.fn.toLowerCase()}(${a.map((x) => render(x, r)).join(', ')})`;
  }
  const parts: string[] = [];
  if (v.partition.length)
    parts.push(`PARTITION BY ${v.partition.map((p) => render(p, r)).join(', ')}`);
  const order = v.order.map((o) => `${render(o.v, r)} ${o.desc ? 'DESC' : 'ASC'} NULLS LAST`);
  // Ties in ORDER BY would number rows (or pick neighbours) in no fixed order.
  if (order.length && ['ROW_NUMBER', 'LAG', 'LEAD'].includes(v.fn) && r.tiebreak)
    order.push(...r.tiebreak);
  if (order.length) parts.push(`ORDER BY ${order.join(', ')}`);
  if (v.frame)
    parts.push(`${v.frame.unit} BETWEEN ${bound(v.frame.from)} AND ${bound(v.frame.to)}`);
  return `${call} OVER (${parts.join(' ')})`;
}
