// Value types of the structure guess: the narrowest of Ursa's data types every sampled value
// of a column fits (integer, number, boolean, date with its strptime format, datetime, string),
// chosen so the load reads each value as the type says (see load-sql.ts).
import type { DataType } from '../prescription.js';

const INT_RE = /^[+-]?(?:0|[1-9]\d{0,17})$/; // leading zeros mean a code; ≤18 digits fit int64
// A non-integer number has a point or an exponent (a 20-digit string is an id, not a double).
const FLOAT_RE =
  /^[+-]?(?:(?:0|[1-9]\d*)\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|(?:0|[1-9]\d*)[eE][+-]?\d+)$/;
const BOOL_WORDS = new Set(['true', 'false', 'yes', 'no']);
// Ranges of the time part are in the pattern; the calendar check of the date is in code.
const DATETIME_RE =
  /^\d{4}-\d{2}-\d{2}[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;
const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export interface DateFormat {
  /** DuckDB strptime format; ISO needs none. */
  format: string;
  iso: boolean;
  re: RegExp;
  order: 'ymd' | 'dmy' | 'mdy';
}

// Order = preference when values fit several (01/02/2024 is read as US month/day).
const DATE_FORMATS: readonly DateFormat[] = [
  { format: '%Y-%m-%d', iso: true, re: /^(\d{4})-(\d{2})-(\d{2})$/, order: 'ymd' },
  { format: '%Y/%m/%d', iso: false, re: /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/, order: 'ymd' },
  { format: '%d.%m.%Y', iso: false, re: /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/, order: 'dmy' },
  { format: '%m/%d/%Y', iso: false, re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: 'mdy' },
  { format: '%d/%m/%Y', iso: false, re: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: 'dmy' },
];

function isRealDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}

/** The number written by `len` ASCII digits of `v` from `from` (already known digits). */
function digitsAt(v: string, from: number, len: number): number {
  let n = 0;
  for (let i = from; i < from + len; i++) n = n * 10 + v.charCodeAt(i) - 48;
  return n;
}

/** ISO dates are the common case: checked without allocating a match. */
const isoDateAt = (v: string) =>
  isRealDate(digitsAt(v, 0, 4), digitsAt(v, 5, 2), digitsAt(v, 8, 2));

function matchesDate(v: string, f: DateFormat): boolean {
  if (f.iso) return ISO_DATE_RE.test(v) && isoDateAt(v);
  const m = f.re.exec(v);
  if (!m) return false;
  const a = Number(m[1]);
  const b = Number(m[2]);
  const c = Number(m[3]);
  if (f.order === 'ymd') return isRealDate(a, b, c);
  if (f.order === 'dmy') return isRealDate(c, b, a);
  return isRealDate(c, a, b);
}

function isIsoDatetime(v: string): boolean {
  return DATETIME_RE.test(v) && isoDateAt(v);
}

/** What one column's sampled values allow; each flag only ever goes from true to false. */
export interface ColumnStats {
  values: number;
  nulls: number;
  int: boolean;
  num: boolean;
  bool: boolean;
  boolWord: boolean;
  dates: DateFormat[];
  /** Every value is an ISO date or ISO datetime… */
  isoTemporal: boolean;
  /** …and at least one has a time. */
  hasTime: boolean;
  yearLike: boolean;
}

export function newStats(): ColumnStats {
  return {
    values: 0,
    nulls: 0,
    int: true,
    num: true,
    bool: true,
    boolWord: false,
    dates: [...DATE_FORMATS],
    isoTemporal: true,
    hasTime: false,
    yearLike: true,
  };
}

export function observe(s: ColumnStats, raw: string): void {
  const v = raw.trim();
  if (v === '') {
    s.nulls++; // empty cells are nulls, whatever the column type
    return;
  }
  s.values++;
  if (s.num) observeNumber(s, v);
  if (s.bool) observeBool(s, v);
  if (s.dates.length) observeDate(s, v);
  if (s.isoTemporal) observeIsoTemporal(s, v);
}

function observeNumber(s: ColumnStats, v: string): void {
  const isInt = s.int && INT_RE.test(v);
  if (isInt) {
    const n = Number(v);
    if (s.yearLike) s.yearLike = n >= 1900 && n <= 2100;
    return;
  }
  s.int = false;
  s.num = FLOAT_RE.test(v) || INT_RE.test(v);
}

/** Drops the formats `v` does not fit (allocating only when one drops out). */
function observeDate(s: ColumnStats, v: string): void {
  for (const f of s.dates) {
    if (matchesDate(v, f)) continue;
    s.dates = s.dates.filter((g) => matchesDate(v, g));
    return;
  }
}

function observeBool(s: ColumnStats, v: string): void {
  const lower = v.toLowerCase();
  if (BOOL_WORDS.has(lower)) s.boolWord = true;
  else if (v !== '0' && v !== '1') s.bool = false;
}

function observeIsoTemporal(s: ColumnStats, v: string): void {
  if (isIsoDatetime(v)) s.hasTime = true;
  else if (!matchesDate(v, DATE_FORMATS[0]!)) s.isoTemporal = false;
}

export interface TypeGuess {
  dataType: DataType;
  dateFormat?: string;
}

/** The narrowest type all values fit; integer before boolean so 0/1 columns stay numbers. */
export function resolveType(s: ColumnStats): TypeGuess {
  if (s.values === 0) return { dataType: 'string' };
  if (s.int) return { dataType: 'integer' };
  if (s.num) return { dataType: 'number' };
  if (s.bool && s.boolWord) return { dataType: 'boolean' };
  const date = s.dates[0];
  if (date) return date.iso ? { dataType: 'date' } : { dataType: 'date', dateFormat: date.format };
  if (s.isoTemporal && s.hasTime) return { dataType: 'datetime' };
  return { dataType: 'string' };
}

export function statsOf(value: string): ColumnStats {
  const s = newStats();
  observe(s, value);
  return s;
}

/** Whether a single value could be a value of a column of type `t`. */
export function fits(value: string, t: TypeGuess): boolean {
  const s = statsOf(value);
  switch (t.dataType) {
    case 'integer':
      return s.int;
    case 'number':
      return s.num;
    case 'boolean':
      return s.bool;
    case 'date':
      return s.dates.some((f) => f.format === (t.dateFormat ?? '%Y-%m-%d'));
    case 'datetime':
      return s.isoTemporal;
    case 'string':
      return true;
  }
}
