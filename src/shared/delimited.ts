// CSV/TSV rendering of tabular API results (RFC 4180 style), safe to open in spreadsheets.

export type Separator = ',' | '\t';

// RFC 4180 mandates CRLF for CSV; TSV tooling (cut, awk, pandas) expects plain LF.
const LINE_END: Record<Separator, string> = { ',': '\r\n', '\t': '\n' };

// Spreadsheets evaluate cells starting with these characters as formulas (CSV injection).
const FORMULA_TRIGGER = /^[=+\-@]/;
// ...but a plain signed number such as "-5" or "+1.5e3" is data and must stay intact.
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

export function toDelimited(columns: string[], rows: unknown[][], sep: Separator): string {
  const line = (cells: readonly unknown[]): string =>
    cells.map((cell) => quoteIfNeeded(cellText(cell), sep)).join(sep) + LINE_END[sep];
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
