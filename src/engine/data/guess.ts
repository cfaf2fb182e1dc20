// Structure guess: from the first bytes of an uploaded file, propose a prescription (columns,
// types, attribute/label/fact roles, primary key). Pure and synchronous: the caller reads
// the sample (up to ~1 MB) and says whether the file goes on beyond it.
import { isUtf8 } from 'node:buffer';
import { invalid } from '../errors.js';
import {
  MAX_COLUMNS,
  PRIMARY_KEY_TYPES,
  SAMPLE_ROWS,
  type Column,
  type DataType,
  type ObjectType,
  type Prescription,
} from './prescription.js';

export type GuessedPrescription = Prescription & { data: string[][] };

export interface GuessOptions {
  fileName: string;
  /** The sample is a prefix of a longer file: its last line may be cut. */
  truncated: boolean;
}

const DELIMITERS = [',', ';', '\t', '|'] as const;
const QUOTE = '"';
/** Records read per candidate delimiter: enough to see consistency, cheap on 1 MB. */
const DETECT_ROWS = 200;

export function guessStructure(sample: Buffer, opts: GuessOptions): GuessedPrescription {
  const { text, bom } = decodeSample(sample, opts);
  const delimiter = detectDelimiter(text, opts.truncated);
  const rows = readRows(text, delimiter, opts.truncated, Number.POSITIVE_INFINITY);
  if (rows.length === 0)
    throw invalid(`the file "${opts.fileName}" holds no complete line of data`, {
      fileName: opts.fileName,
      truncated: opts.truncated,
    });
  const table = splitHeader(rows, opts.fileName);
  const clustername = slugId(stripExtension(baseName(opts.fileName)), 'dataset');
  const columns = buildColumns(table);
  return {
    clustername,
    primarykey: choosePrimaryKey(columns, table, clustername),
    columns,
    data: table.body.slice(0, SAMPLE_ROWS).map((r) => fitWidth(r, table.width)),
    format: {
      delimiter,
      quote: QUOTE,
      escape: QUOTE,
      header: table.header !== null,
      encoding: 'utf-8',
      bom,
    },
  };
}

// ---------------------------------------------------------------------------------------
// Decoding

function decodeSample(sample: Buffer, opts: GuessOptions): { text: string; bom: boolean } {
  const context = { fileName: opts.fileName, encoding: 'utf-8' };
  if (isUtf16Bom(sample))
    throw invalid('the file must be UTF-8 encoded; it is UTF-16 (save it as UTF-8)', context);
  const bom = sample.length >= 3 && sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf;
  let bytes = sample.subarray(bom ? 3 : 0);
  // A cut sample may end inside a multi-byte character: that is not an encoding error.
  if (opts.truncated) bytes = bytes.subarray(0, completeUtf8Length(bytes));
  if (!isUtf8(bytes)) {
    const offset = firstInvalidUtf8(bytes) + (bom ? 3 : 0);
    throw invalid(`the file must be UTF-8 encoded; byte ${offset} is not valid UTF-8`, {
      ...context,
      offset,
    });
  }
  // NUL never occurs in text; it is how UTF-16 without BOM and binary files look.
  const nul = bytes.indexOf(0);
  if (nul !== -1)
    throw invalid('the file must be UTF-8 text; it holds NUL bytes (UTF-16 or a binary file?)', {
      ...context,
      offset: nul + (bom ? 3 : 0),
    });
  return { text: bytes.toString('utf8'), bom };
}

const isUtf16Bom = (b: Buffer) =>
  b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff));

/** Expected length of a UTF-8 sequence from its lead byte (0: not a lead byte). */
function seqLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Length without a trailing, incomplete multi-byte sequence. */
function completeUtf8Length(b: Buffer): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = seqLength(byte);
    return need > back ? b.length - back : b.length;
  }
  return b.length;
}

/** Offset of the first byte that breaks UTF-8 (only called once we know one does). */
function firstInvalidUtf8(b: Buffer): number {
  let i = 0;
  while (i < b.length) {
    const need = seqLength(b[i]!);
    if (need === 0 || i + need > b.length) return i;
    if (!isUtf8(b.subarray(i, i + need))) return i;
    i += need;
  }
  return i;
}

// ---------------------------------------------------------------------------------------
// CSV reading (RFC 4180: quotes at the start of a field, doubled quotes inside)

type Stop = 'delimiter' | 'newline' | 'eof' | 'open';

interface Field {
  value: string;
  next: number;
  stop: Stop;
}

interface Records {
  rows: string[][];
  /** The last record ended with a line break (so it cannot have been cut). */
  complete: boolean;
}

/** All records of `text`; blank lines are skipped. Quoted fields may hold anything. */
export function parseCsvSample(text: string, delimiter: string, quote = QUOTE): string[][] {
  return parseRecords(text, delimiter, quote, Number.POSITIVE_INFINITY).rows;
}

function parseRecords(text: string, delimiter: string, quote: string, maxRows: number): Records {
  const rows: string[][] = [];
  let complete = true;
  let i = 0;
  while (i < text.length && rows.length < maxRows) {
    const row: string[] = [];
    let f: Field;
    do {
      f = readField(text, i, delimiter, quote);
      row.push(f.value);
      i = f.next;
    } while (f.stop === 'delimiter');
    const blank = row.length === 1 && row[0]!.trim() === '';
    if (!blank) rows.push(row);
    // A cut blank line loses nothing; only a kept record can be incomplete.
    complete = f.stop === 'newline' || blank;
  }
  return { rows, complete };
}

function readField(text: string, start: number, delimiter: string, quote: string): Field {
  // An empty quote character means no quoting (and must not match everywhere).
  if (quote !== '' && text.startsWith(quote, start))
    return readQuoted(text, start + 1, delimiter, quote);
  return readPlain(text, start, delimiter.charCodeAt(0));
}

function readPlain(text: string, start: number, delim: number): Field {
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === delim) return { value: text.slice(start, i), next: i + 1, stop: 'delimiter' };
    if (c === 10) return { value: text.slice(start, i), next: i + 1, stop: 'newline' };
    if (c === 13) {
      const next = text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
      return { value: text.slice(start, i), next, stop: 'newline' };
    }
  }
  return { value: text.slice(start), next: text.length, stop: 'eof' };
}

function readQuoted(text: string, start: number, delimiter: string, quote: string): Field {
  let value = '';
  let from = start;
  for (;;) {
    const q = text.indexOf(quote, from);
    if (q === -1) return { value: value + text.slice(from), next: text.length, stop: 'open' };
    if (text.startsWith(quote, q + 1)) {
      value += text.slice(from, q + 1); // doubled quote: one literal quote
      from = q + 2;
      continue;
    }
    // Lenient like most readers: text after the closing quote belongs to the same field.
    const rest = readPlain(text, q + 1, delimiter.charCodeAt(0));
    return { ...rest, value: value + text.slice(from, q) + rest.value };
  }
}

/** Records, without a last one that a truncated sample may have cut. */
function readRows(text: string, delimiter: string, truncated: boolean, max: number): string[][] {
  const { rows, complete } = parseRecords(text, delimiter, QUOTE, max);
  if (truncated && !complete) rows.pop();
  return rows;
}

/** The most frequent row width and the share of rows that have it (ties: the wider). */
function modeWidth(rows: string[][]): { width: number; share: number } {
  const counts = new Map<number, number>();
  for (const r of rows) counts.set(r.length, (counts.get(r.length) ?? 0) + 1);
  let width = 0;
  let count = 0;
  for (const [w, n] of counts) if (n > count || (n === count && w > width)) [width, count] = [w, n];
  return { width, share: rows.length ? count / rows.length : 0 };
}

/** The candidate that splits the lines most consistently into two or more fields. */
function detectDelimiter(text: string, truncated: boolean): string {
  let best: { delimiter: string; share: number; width: number } = {
    delimiter: ',',
    share: -1,
    width: 1,
  };
  for (const delimiter of DELIMITERS) {
    const { width, share } = modeWidth(readRows(text, delimiter, truncated, DETECT_ROWS));
    if (width < 2) continue;
    const better = share > best.share + 1e-9 || (share > best.share - 1e-9 && width > best.width);
    if (better) best = { delimiter, share, width };
  }
  return best.delimiter;
}

// ---------------------------------------------------------------------------------------
// Value types

const INT_RE = /^[+-]?(?:0|[1-9]\d{0,17})$/; // leading zeros mean a code; ≤18 digits fit int64
// A non-integer number has a point or an exponent (a 20-digit string is an id, not a double).
const FLOAT_RE =
  /^[+-]?(?:(?:0|[1-9]\d*)\.\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|(?:0|[1-9]\d*)[eE][+-]?\d+)$/;
const BOOL_WORDS = new Set(['true', 'false', 'yes', 'no']);
// Ranges of the time part are in the pattern; the calendar check of the date is in code.
const DATETIME_RE =
  /^\d{4}-\d{2}-\d{2}[T ](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;
const ISO_DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

interface DateFormat {
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
interface ColumnStats {
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

function newStats(): ColumnStats {
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

function observe(s: ColumnStats, raw: string): void {
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

interface TypeGuess {
  dataType: DataType;
  dateFormat?: string;
}

/** The narrowest type all values fit; integer before boolean so 0/1 columns stay numbers. */
function resolveType(s: ColumnStats): TypeGuess {
  if (s.values === 0) return { dataType: 'string' };
  if (s.int) return { dataType: 'integer' };
  if (s.num) return { dataType: 'number' };
  if (s.bool && s.boolWord) return { dataType: 'boolean' };
  const date = s.dates[0];
  if (date) return date.iso ? { dataType: 'date' } : { dataType: 'date', dateFormat: date.format };
  if (s.isoTemporal && s.hasTime) return { dataType: 'datetime' };
  return { dataType: 'string' };
}

function statsOf(value: string): ColumnStats {
  const s = newStats();
  observe(s, value);
  return s;
}

/** Whether a single value could be a value of a column of type `t`. */
function fits(value: string, t: TypeGuess): boolean {
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

// ---------------------------------------------------------------------------------------
// Header and table

interface Table {
  header: string[] | null;
  body: string[][];
  width: number;
  stats: ColumnStats[];
  types: TypeGuess[];
  /** Memo of isUnique: hashing every value is the costliest check, so done only on demand. */
  unique: Map<number, boolean>;
}

/** No non-null value of the column repeats in the sample. */
function isUnique(table: Table, col: number): boolean {
  let known = table.unique.get(col);
  if (known === undefined) {
    const seen = new Set<string>();
    known = table.body.every((row) => {
      const v = (row[col] ?? '').trim();
      if (v === '') return true;
      if (seen.has(v)) return false;
      seen.add(v);
      return true;
    });
    table.unique.set(col, known);
  }
  return known;
}

function collectStats(rows: string[][], width: number): ColumnStats[] {
  const stats = Array.from({ length: width }, newStats);
  for (const row of rows) for (let c = 0; c < width; c++) observe(stats[c]!, row[c] ?? '');
  return stats;
}

function splitHeader(rows: string[][], fileName: string): Table {
  const first = rows[0]!;
  const rest = rows.slice(1);
  // The first row sets the width unless most rows below agree on a wider one (a header
  // missing names); a few ragged rows do not add columns.
  const below = modeWidth(rest);
  const width = Math.max(first.length, below.share > 0.5 ? below.width : 0);
  if (width > MAX_COLUMNS)
    throw invalid(`the file has ${width} columns; at most ${MAX_COLUMNS} can be loaded`, {
      fileName,
      columns: width,
    });
  const stats = collectStats(rest, width);
  const types = stats.map(resolveType);
  if (isHeader(first, rest, stats, types))
    return { header: first, body: rest, width, stats, types, unique: new Map() };
  // No header: the first row is data too.
  stats.forEach((s, c) => observe(s, first[c] ?? ''));
  return {
    header: null,
    body: rows,
    width,
    stats,
    types: stats.map(resolveType),
    unique: new Map(),
  };
}

/**
 * A header has distinct non-empty cells, and either sits above a typed column (numbers,
 * dates) it does not fit, or consists of names that never recur as values below.
 */
function isHeader(
  first: string[],
  below: string[][],
  stats: ColumnStats[],
  types: TypeGuess[],
): boolean {
  const cells = first.map((c) => c.trim());
  if (cells.some((c) => c === '') || new Set(cells).size !== cells.length) return false;
  const aboveTyped = cells.some((c, i) => {
    const t = types[i]!;
    return stats[i]!.values > 0 && t.dataType !== 'string' && !fits(c, t);
  });
  return aboveTyped || cells.every((c, i) => looksLikeName(c, below, i));
}

function looksLikeName(cell: string, below: string[][], col: number): boolean {
  return (
    /\p{L}/u.test(cell) &&
    resolveType(statsOf(cell)).dataType === 'string' &&
    !below.some((r) => (r[col] ?? '').trim() === cell)
  );
}

function fitWidth(row: string[], width: number): string[] {
  if (row.length === width) return row;
  const out = row.slice(0, width);
  while (out.length < width) out.push('');
  return out;
}

// ---------------------------------------------------------------------------------------
// Names

// Letters NFKD does not decompose into ASCII.
const TRANSLITERATE: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
};

/** Lowercase ASCII id `[a-z][a-z0-9_]{0,62}`: accents stripped, a leading digit prefixed. */
export function slugId(text: string, fallback: string): string {
  const ascii = text
    .toLowerCase()
    .replace(/[ßæœøłđðþ]/g, (ch) => TRANSLITERATE[ch] ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '');
  let s = ascii.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (s === '') return fallback;
  if (/^[0-9]/.test(s)) s = `c_${s}`;
  return s.slice(0, 63).replace(/_+$/, '');
}

/** `id`, `id_2`, `id_3`…, kept within 63 characters. */
function uniqueId(base: string, used: Set<string>): string {
  let id = base;
  for (let n = 2; used.has(id); n++) id = `${base.slice(0, 63 - `_${n}`.length)}_${n}`;
  used.add(id);
  return id;
}

/** Words of a header, splitting camelCase too (`CarrierID` → carrier, id). */
function words(header: string): string[] {
  const split = header
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  return slugId(split, '').split('_').filter(Boolean);
}

const baseName = (fileName: string) => fileName.split(/[\\/]/).pop() ?? fileName;

function stripExtension(name: string): string {
  const once = name.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  // `data.csv.gz`: drop the inner data extension as well.
  return once.replace(/\.(csv|tsv|txt|psv|dat)$/i, '');
}

// ---------------------------------------------------------------------------------------
// Columns and roles

const ID_WORDS = new Set(['id', 'code', 'key', 'no']);
const LABEL_WORDS = new Set(['name', 'label', 'title', 'desc', 'description', 'text']);

interface Draft {
  column: Column;
  words: string[];
  index: number;
}

function buildColumns(table: Table): Column[] {
  const used = new Set<string>();
  const drafts = table.types.map((t, index): Draft => {
    const original = table.header?.[index] ?? '';
    const trimmed = original.trim();
    const id = uniqueId(slugId(trimmed, `column_${index + 1}`), used);
    const w = words(trimmed || id);
    const column: Column = {
      id,
      originalheader: original,
      objectType: objectTypeOf(t.dataType, w, table, index),
      dataType: t.dataType,
      label: trimmed || `Column ${index + 1}`,
      ...(t.dateFormat ? { dateFormat: t.dateFormat } : {}),
    };
    return { column, words: w, index };
  });
  pairLabels(drafts, table);
  return drafts.map((d) => d.column);
}

const isIdName = (w: string[]) => ID_WORDS.has(w[w.length - 1] ?? '');

/** Numbers are facts unless they identify or code something; everything else is an attribute. */
function objectTypeOf(t: DataType, w: string[], table: Table, index: number): ObjectType {
  if (t !== 'integer' && t !== 'number') return 'A';
  if (isIdName(w)) return 'A';
  const integer = t === 'integer';
  const s = table.stats[index]!;
  if (integer && index === 0 && s.nulls === 0 && s.values >= 2 && isUnique(table, 0)) return 'A';
  if (integer && s.yearLike && w[w.length - 1] === 'year') return 'A';
  return 'F';
}

/** 2: names an identifier (`*_id`, `code`); 1: a bare noun (`carrier`); 0: a label word. */
function idness(w: string[]): number {
  const last = w[w.length - 1] ?? '';
  if (ID_WORDS.has(last)) return 2;
  return LABEL_WORDS.has(last) ? 0 : 1;
}

/** `airport_code` and `airport_name` share the stem `airport`; `id` and `name` the empty one. */
function stem(w: string[]): string {
  const last = w[w.length - 1] ?? '';
  const core = ID_WORDS.has(last) || LABEL_WORDS.has(last) ? w.slice(0, -1) : w;
  return core.join('_');
}

/**
 * A string column becomes a label of an identifier column with the same stem and a more
 * identifier-like name, when each identifier value maps to one value of it in the sample.
 * Candidates go from least to most identifier-like, so an identifier is never turned into
 * a label after something was attached to it.
 */
function pairLabels(drafts: Draft[], table: Table): void {
  const candidates = drafts
    .filter((d) => d.column.dataType === 'string' && d.column.objectType === 'A')
    .sort((a, b) => idness(a.words) - idness(b.words) || a.index - b.index);
  for (const label of candidates) {
    const target = findIdentifier(label, drafts, table);
    if (!target) continue;
    label.column.objectType = 'L';
    label.column.labelOf = target.column.id;
  }
}

function findIdentifier(label: Draft, drafts: Draft[], table: Table): Draft | undefined {
  const rank = idness(label.words);
  const matches = drafts.filter(
    (d) =>
      d !== label &&
      d.column.objectType === 'A' &&
      (d.column.dataType === 'string' || d.column.dataType === 'integer') &&
      idness(d.words) > rank &&
      stem(d.words) === stem(label.words) &&
      determines(table, d.index, label.index),
  );
  // The most identifier-like wins (`carrier_code` over `carrier`), then the leftmost.
  return matches.sort((a, b) => idness(b.words) - idness(a.words) || a.index - b.index)[0];
}

/** Each non-null value of column `key` comes with exactly one value of column `dep`. */
function determines(table: Table, key: number, dep: number): boolean {
  const stats = table.stats[key]!;
  if (stats.values === 0) return false;
  if (isUnique(table, key)) return true; // every key value occurs once: nothing can conflict
  const seen = new Map<string, string>();
  for (const row of table.body) {
    const k = (row[key] ?? '').trim();
    if (k === '') continue;
    const v = (row[dep] ?? '').trim();
    const before = seen.get(k);
    if (before === undefined) seen.set(k, v);
    else if (before !== v) return false;
  }
  return seen.size > 0;
}

// ---------------------------------------------------------------------------------------
// Primary key

function keyPreference(id: string, cluster: string): number {
  const singular = cluster.replace(/s$/, '');
  if (id === 'id') return 0;
  if (id === `${cluster}_id` || id === `${singular}_id`) return 1;
  if (id.endsWith('_id')) return 2;
  if (id === 'code') return 3;
  if (id === 'key') return 4;
  if (id.endsWith('_code') || id.endsWith('_key')) return 5;
  return 6;
}

/** The best-named attribute that is unique and never null in the sample; '' when none. */
function choosePrimaryKey(columns: Column[], table: Table, cluster: string): string {
  const candidates = columns
    .map((column, index) => ({ column, index, stats: table.stats[index]! }))
    .filter(
      ({ column, stats }) =>
        column.objectType === 'A' &&
        PRIMARY_KEY_TYPES.includes(column.dataType) &&
        stats.values > 0 &&
        stats.nulls === 0,
    );
  // Array.prototype.sort is stable: equal preference keeps column order. Uniqueness is
  // checked last and lazily, so usually only the preferred column is hashed.
  candidates.sort(
    (a, b) => keyPreference(a.column.id, cluster) - keyPreference(b.column.id, cluster),
  );
  return candidates.find((c) => isUnique(table, c.index))?.column.id ?? '';
}
