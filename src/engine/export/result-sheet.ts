// A report's or dashboard item's result as a download (CSV/TSV/XLSX), one shape for every way
// out (the REST downloads, a subscription's attachments): a pivot as shown (its totals at their
// grain), else the rows with nested columns flattened, measures typed and formatted, and a
// table's conditional formatting kept as cell colours.
import { flatTable, jsonRows } from '../aql/format.js';
import { pivotTabular, type PivotRun } from '../reports/pivot.js';
import { cellStyle, type ResolvedRule } from '../../shared/conditional.js';
import type { Painter, SheetColumn } from '../../shared/xlsx.js';

export interface ResultForSheet {
  columns: Parameters<typeof flatTable>[0];
  rows: string[][];
  conditional?: ResolvedRule[];
  pivot?: PivotRun;
}

export interface ResultSheet {
  columns: string[];
  rows: string[][];
  /** The cells an XLSX writes (numbers as numbers). */
  sheet: unknown[][];
  types: SheetColumn[];
  paint?: Painter;
}

export function resultSheet(r: ResultForSheet): ResultSheet {
  if (r.pivot) return pivotTabular(r.pivot);
  // Nested columns (NEST) flattened: a row per nested row, its own cells repeated.
  const t = flatTable(r.columns, r.rows);
  const rules = r.conditional;
  return {
    columns: t.columns.map((c) => c.title),
    rows: t.rows,
    sheet: jsonRows(t.columns, t.rows),
    types: t.columns,
    // The table's conditional formatting, coloured as on its page (a flattened NEST has none).
    ...(rules && t.columns.length === r.columns.length
      ? { paint: (row: number, col: number) => cellStyle(rules, col, t.rows[row]?.[col]) }
      : {}),
  };
}
