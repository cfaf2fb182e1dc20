// Result cells as text: numbers without trailing zeros or exponent for ordinary magnitudes,
// dates as YYYY-MM-DD, null as an empty cell; and those cells typed for JSON (jsonCell).
import type { JsonCell, NestedRow } from '../../contract/data.js';

export type { JsonCell };

export function formatCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') {
    // DuckDB's JSON form gives big integers and decimals as strings.
    if (/^-?\d+\.\d+$/.test(v)) return v.replace(/\.?0+$/, '');
    return v;
  }
  return JSON.stringify(v);
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? '' : n > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return n.toFixed(0);
  // 15 significant digits hide binary noise (0.1 + 0.2 → 0.3).
  // JavaScript writes 1e-6 ≤ |n| < 1e21 without an exponent and without trailing zeros.
  const rounded = Number(n.toPrecision(15));
  return Object.is(rounded, -0) ? '0' : String(rounded);
}

/** The spec's values: rows joined by "\n", cells by "\t" (tabs and line breaks in cells become spaces). */
export function toValues(rows: string[][]): string {
  return rows.map((r) => r.map((c) => c.replace(/[\t\r\n]/g, ' ')).join('\t')).join('\n');
}

// ---- cells in JSON ----

const NUMERIC = new Set(['integer', 'number']);

/** Significant digits of a fraction in a JSON cell: as `values` prints a double. */
export const JSON_DIGITS = 15;

/**
 * A cell as JSON renderings of rows with column types give it (REST report and dashboard
 * JSON, public shares, MCP tools, the chat agent; the spec's `data.values` stays TSV text):
 * in an `integer` or `number` column a JSON number, or null for an empty cell, on every
 * backend (a PostgreSQL numeric or a DuckDB DECIMAL as a double would be). A fraction is
 * rounded to 15 significant digits; with `exact`, one no JSON number holds exactly keeps
 * its exact text instead. A whole number beyond 2^53 keeps its exact text either way (a
 * count or an id must not change), as does what no JSON number is (Infinity, NaN). Other
 * columns keep their text.
 */
export function jsonCell(text: string, dataType: string, exact = false): JsonCell {
  if (dataType === 'nested') return nestedRows(text, exact);
  if (!NUMERIC.has(dataType)) return text;
  if (text === '') return null;
  const n = Number(text);
  if (!Number.isFinite(n) || !decimal(text)) return text;
  if (sameDecimal(String(n), text)) return Number.isInteger(n) || exact ? n : rounded(n);
  return exact || WHOLE.test(text) ? text : rounded(n);
}

const WHOLE = /^[+-]?\d+$/;

const rounded = (n: number) => Number(n.toPrecision(JSON_DIGITS));

/** Rows with each cell as jsonCell gives it for its column. */
export const jsonRows = (
  columns: { dataType: string }[],
  rows: string[][],
  exact = false,
): JsonCell[][] =>
  rows.map((row) => row.map((cell, i) => jsonCell(cell, columns[i]?.dataType ?? 'string', exact)));

/** Whether two decimal numerals (optional sign, fraction, exponent) have the same value. */
function sameDecimal(a: string, b: string): boolean {
  const x = decimal(a);
  return x !== null && x === decimal(b);
}

/** A decimal numeral as `sign digits e exponent`, without leading or trailing zeros. */
function decimal(text: string): string | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!m || !(m[2] || m[3])) return null;
  const [, sign, whole = '', frac = '', exp = '0'] = m;
  let digits = (whole + frac).replace(/^0+/, '');
  if (!digits) return '0';
  let e = Number(exp) - frac.length;
  const zeros = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - zeros);
  e += zeros;
  return `${sign === '-' ? '-' : ''}${digits}e${e}`;
}

// ---- NEST(SELECT …) cells ----

/** A row with its nested cells (at `at`) as compact JSON: the same text from every database. */
export function compactNested(row: string[], at: number[]): string[] {
  const out = [...row];
  for (const i of at) {
    try {
      out[i] = JSON.stringify(JSON.parse(out[i] || '[]'));
    } catch {
      // not JSON: kept as the database wrote it
    }
  }
  return out;
}

/**
 * A nested cell's rows: the JSON list the database wrote, its fractions rounded as jsonCell
 * rounds them (unless `exact`).
 */
export function nestedRows(text: string, exact = false): NestedRow[] {
  let rows: unknown;
  try {
    rows = text ? JSON.parse(text) : [];
  } catch {
    return [];
  }
  if (!Array.isArray(rows)) return [];
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r as NestedRow).map(([k, v]) => [
        k,
        typeof v === 'number' && !Number.isInteger(v) && !exact ? rounded(v) : v,
      ]),
    ),
  );
}

interface ResultColumn {
  title: string;
  dataType: string;
  kind?: string;
  format?: string;
  columns?: { title: string; dataType: string }[];
}

type FlatColumn = { title: string; dataType: string; kind?: string; format?: string };
/** A column as a flat table has it: its title and type, its kind and format when known. */
const flat = ({ title, dataType, kind, format }: ResultColumn): FlatColumn => ({
  title,
  dataType,
  ...(kind ? { kind } : {}),
  ...(format ? { format } : {}),
});

/**
 * A result with nested columns as one flat table (CSV, TSV, XLSX): each nested column becomes
 * its own columns ("Top states: Origin State"), and a result row takes as many lines as its
 * longest nested list, its other cells repeated on each (a list's missing lines are empty).
 */
export function flatTable(
  columns: ResultColumn[],
  rows: string[][],
): { columns: FlatColumn[]; rows: string[][] } {
  if (!columns.some((c) => c.columns)) return { columns: columns.map(flat), rows };
  const flatColumns = columns.flatMap((c) =>
    c.columns
      ? c.columns.map((i) => ({ title: `${c.title}: ${i.title}`, dataType: i.dataType }))
      : [flat(c)],
  );
  const out: string[][] = [];
  for (const row of rows) {
    const lists = columns.map((c, i) => (c.columns ? nestedRows(row[i] ?? '', true) : null));
    const lines = Math.max(1, ...lists.map((l) => l?.length ?? 0));
    for (let k = 0; k < lines; k++)
      out.push(
        columns.flatMap((c, i) =>
          c.columns
            ? c.columns.map((inner) => formatCell(lists[i]![k]?.[inner.title] ?? null))
            : [row[i] ?? ''],
        ),
      );
  }
  return { columns: flatColumns, rows: out };
}
