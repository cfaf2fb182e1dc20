// The one writer of delimited text (RFC 4180 quoting): tabular API results as CSV/TSV, safe to
// open in spreadsheets (toDelimited), and CSV files of generated datasets that loads read back
// (toCsv: data kept exactly, no formula guard).

export type Separator = ',' | '\t';

/** A cell of a generated dataset: null/undefined is an empty cell (loads read '' as null). */
export type Cell = string | number | boolean | null | undefined;

// RFC 4180 mandates CRLF for CSV; TSV tooling (cut, awk, pandas) expects plain LF.
const LINE_END: Record<Separator, string> = { ',': '\r\n', '\t': '\n' };

// Spreadsheets evaluate cells starting with these characters as formulas (CSV injection).
const FORMULA_TRIGGER = /^[=+\-@]/;
// ...but a plain signed number such as "-5" or "+1.5e3" is data and must stay intact.
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

/** One record: the cells quoted where needed, joined by `sep`, ended by `end`. */
function record(cells: readonly string[], sep: Separator, end: string): string {
  return cells.map((cell) => quoteIfNeeded(cell, sep)).join(sep) + end;
}

export function toDelimited(columns: string[], rows: unknown[][], sep: Separator): string {
  const line = (cells: readonly unknown[]): string =>
    record(cells.map(cellText), sep, LINE_END[sep]);
  // Every line gets exactly one field per column so the output stays rectangular.
  return line(columns) + rows.map((row) => line(columns.map((_, i) => row[i]))).join('');
}

export function tabularFromList(items: Record<string, unknown>[]): {
  columns: string[];
  rows: unknown[][];
} {
  const keys = new Set<string>();
  for (const item of items) {
    // Hypermedia links are navigation, not data: they have no meaningful cell form.
    for (const key of Object.keys(item)) if (key !== 'link') keys.add(key);
  }
  const columns = [...keys];
  // hasOwn: a column named e.g. "constructor" must not pick up inherited members.
  const rows = items.map((item) => columns.map((c) => (Object.hasOwn(item, c) ? item[c] : null)));
  return { columns, rows };
}

/** CSV text of a generated dataset: `\n` line ends, values written as they are. */
export function toCsv(header: readonly string[], rows: Iterable<readonly Cell[]>): string {
  let text = record(header, ',', '\n');
  for (const r of rows) text += record(r.map(dataCell), ',', '\n');
  return text;
}

const dataCell = (v: Cell): string => (v === null || v === undefined ? '' : String(v));

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return guardFormula(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value, bigintSafe);
  return String(value);
}

// Stricter than "trigger + non-digit": payloads like "-2+3+cmd|' /C calc'!A0" start with a
// digit after the sign, so anything that is not a whole plain number is neutralised.
function guardFormula(text: string): string {
  if (text.length < 2 || !FORMULA_TRIGGER.test(text) || PLAIN_NUMBER.test(text)) return text;
  return `'${text}`;
}

function quoteIfNeeded(text: string, sep: Separator): string {
  if (!text.includes(sep) && !/["\r\n]/.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

// JSON.stringify throws on bigint (e.g. SQLite safe integers nested in JSON columns).
function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
