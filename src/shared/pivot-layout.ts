// How a pivot (PivotTable, below) is laid out as a table: its header rows
// (the column dimensions' values spanning their groups, then the measures), each line's
// labels, and the same as one flat sheet (CSV/XLSX). The pages, the PDF and the app draw
// from these, so a pivot reads the same everywhere.

/** A column of a report's result (contract/dashboards.ts ReportColumn). */
export interface PivotColumn {
  title: string;
  kind: string;
  dataType: string;
  format?: string;
}

/**
 * A pivot table: rows × columns × measures. `keys` are its columns in order, `lines` its rows
 * in order; each has the dimension values it fixes and its `level` (how many of its
 * dimensions it fixes: fewer than all is a subtotal, 0 the grand total). `cells[k][m]` is
 * measure m at the line's and key k's grain, computed by the engine at that grain.
 */
export interface PivotTable<Cell = unknown> {
  rows: PivotColumn[];
  columns: PivotColumn[];
  measures: PivotColumn[];
  keys: { values: string[]; level: number }[];
  lines: { values: string[]; level: number; cells: Cell[][] }[];
}

export interface HeadCell {
  text: string;
  colspan: number;
  rowspan: number;
  /** A subtotal's or the grand total's header. */
  total: boolean;
  /** A measure's title (numbers below it: right-aligned). */
  measure: boolean;
}

type Pivot = PivotTable<unknown>;

/** Whether the header has a row of measure titles (several measures, or no column dimension). */
const measureRow = (p: Pivot) => p.measures.length > 1 || p.columns.length === 0;
/** Label columns at the left: one per row dimension (one for "Total" when there is none). */
export const labelColumns = (p: Pivot) => Math.max(1, p.rows.length);

/** The header rows, corner included. */
export function pivotHead(p: Pivot): HeadCell[][] {
  const m = p.columns.length;
  const nm = p.measures.length;
  // One measure over column dimensions: its title above them all (no row of measure titles).
  const top = nm === 1 && m > 0 ? 1 : 0;
  const depth = top + m + (measureRow(p) ? 1 : 0);
  const cell = (text: string, colspan = 1, rowspan = 1, total = false, measure = false) => ({
    text,
    colspan,
    rowspan,
    total,
    measure,
  });
  const rows: HeadCell[][] = Array.from({ length: depth }, () => []);
  // The corner: the row dimensions' titles on the last header row, blank above.
  if (depth > 1) rows[0]!.push(cell('', labelColumns(p), depth - 1));
  const titles = p.rows.length ? p.rows.map((c) => c.title) : [''];
  rows[depth - 1]!.push(...titles.map((t) => cell(t)));
  if (top) rows[0]!.push(cell(p.measures[0]!.title, p.keys.length));
  for (let d = 0; d < m; d++) {
    const row = rows[top + d]!;
    let k = 0;
    while (k < p.keys.length) {
      const key = p.keys[k]!;
      if (key.level < d) {
        k++;
        continue;
      }
      if (key.level === d) {
        row.push(cell('Total', nm, m - d, true));
        k++;
        continue;
      }
      // Keys below this level that share its values so far form one spanning header.
      const prefix = JSON.stringify(key.values.slice(0, d + 1));
      let n = 0;
      while (
        k + n < p.keys.length &&
        p.keys[k + n]!.level > d &&
        JSON.stringify(p.keys[k + n]!.values.slice(0, d + 1)) === prefix
      )
        n++;
      row.push(cell(key.values[d] ?? '', n * nm));
      k += n;
    }
  }
  if (measureRow(p))
    for (const key of p.keys)
      rows[depth - 1]!.push(...p.measures.map((ms) => cell(ms.title, 1, 1, key.level < m, true)));
  return rows;
}

/** A line's label cells: its values, then "Total" across the dimensions it does not fix. */
export function lineLabels(p: Pivot, line: { values: string[]; level: number }): HeadCell[] {
  const n = labelColumns(p);
  const total = line.level < p.rows.length || p.rows.length === 0;
  const out: HeadCell[] = line.values.map((text) => ({
    text,
    colspan: 1,
    rowspan: 1,
    total,
    measure: false,
  }));
  if (total)
    out.push({ text: 'Total', colspan: n - line.level, rowspan: 1, total, measure: false });
  return out;
}

/** The words of a column key: its values, or the total it is. */
function keyText(p: Pivot, key: { values: string[]; level: number }): string {
  if (key.level === p.columns.length) return key.values.join(' / ');
  return key.level === 0 ? 'Total' : `${key.values.join(' / ')} total`;
}

/** The pivot as one sheet: one header row, a row per line, label cells then numbers. */
export function pivotSheet<Cell>(p: PivotTable<Cell>): {
  columns: string[];
  rows: (Cell | string)[][];
  /** Which measure each column shows (-1: a label column). */
  measureOf: number[];
} {
  const n = labelColumns(p);
  const labels = p.rows.length ? p.rows.map((c) => c.title) : [''];
  const both = measureRow(p) && p.columns.length > 0;
  const columns = [
    ...labels,
    ...p.keys.flatMap((k) =>
      p.measures.map((ms) =>
        p.columns.length === 0 ? ms.title : both ? `${keyText(p, k)} · ${ms.title}` : keyText(p, k),
      ),
    ),
  ];
  const measureOf = [...labels.map(() => -1), ...p.keys.flatMap(() => p.measures.map((_, i) => i))];
  const rows = p.lines.map((line) => {
    const label: string[] = [...line.values];
    if (line.level < p.rows.length || p.rows.length === 0) label.push('Total');
    while (label.length < n) label.push('');
    return [...label, ...line.cells.flat()];
  });
  return { columns, rows, measureOf };
}
