// The sample as a table for the structure guess: its width, whether the first row is a header,
// and per-column statistics the roles are chosen from.
import { invalid } from '../../errors.js';
import { MAX_COLUMNS } from '../prescription.js';
import {
  fits,
  newStats,
  observe,
  resolveType,
  statsOf,
  type ColumnStats,
  type TypeGuess,
} from './types.js';

export interface Table {
  header: string[] | null;
  body: string[][];
  width: number;
  stats: ColumnStats[];
  types: TypeGuess[];
  /** Memo of isUnique: hashing every value is the costliest check, so done only on demand. */
  unique: Map<number, boolean>;
}

/** No non-null value of the column repeats in the sample. */
export function isUnique(table: Table, col: number): boolean {
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

export function splitHeader(rows: string[][], fileName: string): Table {
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

export function fitWidth(row: string[], width: number): string[] {
  if (row.length === width) return row;
  const out = row.slice(0, width);
  while (out.length < width) out.push('');
  return out;
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
