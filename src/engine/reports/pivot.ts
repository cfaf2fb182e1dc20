// A `pivot` visualization: rows × columns × measures with subtotals and grand totals. A
// subtotal of an AVG or a COUNT DISTINCT is not the sum of its cells, so every total is
// computed by the engine: the report's AQL again at the coarser grain (the same measures,
// fewer dimensions; AQL has no GROUPING SETS, so one query per level), run for the same
// reader as the report, so within their row filter and the dashboard's filters.
import type { PivotTable, ReportColumn } from '../../contract/dashboards.js';
import { pivotSheet } from '../../shared/pivot-layout.js';
import { jsonCell, type JsonCell } from '../aql/format.js';
import type { Query } from '../aql/ast.js';
import { parse } from '../aql/parser.js';
import type { QueryResult } from '../aql/result-cache.js';
import { invalid } from '../errors.js';
import { columnTitle, type Visualization } from './visualization.js';

/** Columns (distinct combinations of the column dimensions) a pivot may have. */
export const MAX_PIVOT_COLUMNS = 50;
/** Rows (distinct combinations of the row dimensions) a pivot may have. */
export const MAX_PIVOT_ROWS = 1000;
/** Dimensions a pivot may place (at most (4+1)… queries: one per level of rows × columns). */
const MAX_PIVOT_DIMENSIONS = 4;

export type PivotRun = PivotTable<string>;

interface Table {
  columns: ReportColumn[];
  rows: string[][];
}

const refs = (v: unknown): (string | number)[] | undefined =>
  v === undefined ? undefined : ((Array.isArray(v) ? v : [v]) as (string | number)[]);

/** Whether an expression holds a window (`… OVER (…)`): its value depends on the grain's rows. */
const hasWindow = (node: unknown): boolean =>
  typeof node === 'object' &&
  node !== null &&
  ((node as { k?: unknown }).k === 'window' || Object.values(node).some(hasWindow));

/**
 * The pivot of a report's result. `text` is the report's AQL as it ran; `run` runs AQL for
 * the same reader (the coarser grains).
 */
export async function computePivot(
  text: string,
  vis: Visualization,
  table: Table,
  run: (aql: string) => Promise<QueryResult>,
): Promise<PivotRun> {
  const q = parse(text, 'query');
  refuseClauses(q);
  const index = (ref: string | number, role: string) => {
    const title = columnTitle(table, ref, role);
    return table.columns.findIndex((c) => c.title === title);
  };
  const isDim = (i: number) => table.columns[i]!.kind !== 'measure';
  const dims = table.columns.flatMap((_, i) => (isDim(i) ? [i] : []));
  const placed = (role: 'rows' | 'columns') =>
    refs(vis[role])?.map((r) => {
      const i = index(r, role);
      if (!isDim(i))
        throw invalid(
          `the pivot's ${role} names "${table.columns[i]!.title}", a measure; rows and columns are dimensions (measures are y)`,
          { field: `visualization.${role}` },
        );
      return i;
    });
  let rows = placed('rows');
  let cols = placed('columns');
  // Left out: the second dimension is the columns, the others the rows.
  if (!rows && !cols) [rows, cols] = [dims.filter((_, n) => n !== 1), dims.slice(1, 2)];
  else if (!rows) rows = dims.filter((d) => !cols!.includes(d));
  else if (!cols) cols = dims.filter((d) => !rows!.includes(d));
  const [R, C] = [rows!, cols!];
  for (const d of dims)
    if (R.includes(d) === C.includes(d) || new Set(R).size < R.length || new Set(C).size < C.length)
      throw invalid(
        `each dimension of a pivot is once in its rows or its columns; "${table.columns[d]!.title}" is ${R.includes(d) ? 'in both (or twice)' : 'in neither'}`,
        { field: 'visualization.rows' },
      );
  if (dims.length > MAX_PIVOT_DIMENSIONS)
    throw invalid(
      `a pivot places at most ${MAX_PIVOT_DIMENSIONS} dimensions in its rows and columns; this report has ${dims.length}`,
      { field: 'visualization.rows' },
    );
  const y = refs(vis.y);
  const M = y
    ? y.map((r) => {
        const i = index(r, 'y');
        if (isDim(i))
          throw invalid(`the pivot's y names "${table.columns[i]!.title}", not a measure`, {
            field: 'visualization.y',
          });
        return i;
      })
    : table.columns.flatMap((c, i) => (c.kind === 'measure' ? [i] : []));
  if (!M.length)
    throw invalid('a pivot needs a measure to show; add one to the query', {
      field: 'visualization.y',
    });
  for (const m of M) {
    if (table.columns[m]!.dataType === 'nested' || hasWindow(q.items[m]?.expr))
      throw invalid(
        `a pivot recomputes each measure at the grain of its totals; "${table.columns[m]!.title}" (a window or NEST) has no value there: leave it out of y`,
        { field: 'visualization.y' },
      );
  }

  // The cells at full grain are the report's own rows; the totals, one query per level.
  const grain = async (k: number, j: number): Promise<Map<string, string[]>> => {
    const keyOf = [...R.slice(0, k), ...C.slice(0, j)];
    if (k === R.length && j === C.length) return cellsOf(table.rows, keyOf, M);
    const kept = q.items.flatMap((_, i) => (keyOf.includes(i) || M.includes(i) ? [i] : []));
    const aql = `SELECT ${kept.map((i) => q.items[i]!.pos.text).join(', ')}${q.where ? ` WHERE ${q.where.pos.text}` : ''}`;
    const r = await run(aql);
    const at = (i: number) => kept.indexOf(i);
    return cellsOf(r.rows, keyOf.map(at), M.map(at));
  };

  const rowKeys = distinct(table.rows, R);
  const colKeys = distinct(table.rows, C);
  if (colKeys.length > MAX_PIVOT_COLUMNS)
    throw invalid(
      `the pivot has ${colKeys.length} columns (distinct ${C.map((c) => table.columns[c]!.title).join(' × ')}); it shows at most ${MAX_PIVOT_COLUMNS}: filter the report, or put a dimension with fewer values in its columns`,
      { field: 'visualization.columns', columns: colKeys.length, max: MAX_PIVOT_COLUMNS },
    );
  if (rowKeys.length > MAX_PIVOT_ROWS)
    throw invalid(
      `the pivot has ${rowKeys.length} rows; it shows at most ${MAX_PIVOT_ROWS}: filter or aggregate the report`,
      { field: 'visualization.rows', rows: rowKeys.length, max: MAX_PIVOT_ROWS },
    );
  const levels = new Map<string, Map<string, string[]>>();
  for (let k = 0; k <= R.length; k++)
    for (let j = 0; j <= C.length; j++) levels.set(`${k}/${j}`, await grain(k, j));

  const keys = withTotals(colKeys, C.length);
  const lines = withTotals(rowKeys, R.length).map((line) => ({
    ...line,
    cells: keys.map((key) => {
      const at = levels.get(`${line.level}/${key.level}`)!;
      return at.get(JSON.stringify([...line.values, ...key.values])) ?? M.map(() => '');
    }),
  }));
  const columnsAt = (is: number[]) => is.map((i) => table.columns[i]!);
  return { rows: columnsAt(R), columns: columnsAt(C), measures: columnsAt(M), keys, lines };
}

/** LIMIT, OFFSET, HAVING and QUALIFY pick rows at the report's grain: totals over them are not the report's. */
function refuseClauses(q: Query): void {
  const clause =
    q.limit !== null
      ? 'LIMIT'
      : q.offset !== null
        ? 'OFFSET'
        : q.having
          ? 'HAVING'
          : q.qualify
            ? 'QUALIFY'
            : null;
  if (clause)
    throw invalid(
      `a pivot's totals are computed over every row its WHERE selects; ${clause} picks rows at one grain only, so a pivot's query cannot have it: filter with WHERE`,
      { field: 'visualization.type' },
    );
}

/** Measure values by the JSON of their key values. */
function cellsOf(rows: string[][], key: number[], measures: number[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows)
    out.set(
      JSON.stringify(key.map((i) => r[i] ?? '')),
      measures.map((i) => r[i] ?? ''),
    );
  return out;
}

/** The distinct combinations of these columns' values, in the order they first appear. */
function distinct(rows: string[][], at: number[]): string[][] {
  const seen = new Map<string, string[]>();
  for (const r of rows) {
    const v = at.map((i) => r[i] ?? '');
    const k = JSON.stringify(v);
    if (!seen.has(k)) seen.set(k, v);
  }
  return [...seen.values()];
}

/**
 * Keys grouped by their leading values (each group where its first member appears), a
 * subtotal after each group of a level above the last, the grand total at the end.
 */
function withTotals(keys: string[][], depth: number): { values: string[]; level: number }[] {
  const out: { values: string[]; level: number }[] = [];
  const walk = (prefix: string[], members: string[][]) => {
    if (prefix.length === depth) {
      out.push({ values: prefix, level: depth });
      return;
    }
    const groups = new Map<string, string[][]>();
    for (const k of members) {
      const v = k[prefix.length]!;
      const group = groups.get(v);
      if (group) group.push(k);
      else groups.set(v, [k]);
    }
    for (const [v, group] of groups) walk([...prefix, v], group);
    out.push({ values: prefix, level: prefix.length });
  };
  if (depth === 0) return [{ values: [], level: 0 }];
  walk([], keys);
  return out;
}

/** A pivot's cells typed as the measures' columns are (JSON numbers). */
export function pivotJson(p: PivotRun, exact = false): PivotTable<JsonCell> {
  return {
    ...p,
    lines: p.lines.map((l) => ({
      ...l,
      cells: l.cells.map((key) =>
        key.map((v, m) => jsonCell(v, p.measures[m]?.dataType ?? 'string', exact)),
      ),
    })),
  };
}

/**
 * A pivot report's download (CSV/TSV/XLSX): the pivot as shown, one header row (each
 * column's key and measure), a row per line with its subtotals and totals.
 */
export function pivotTabular(p: PivotRun) {
  const sheet = pivotSheet(p);
  const typed = pivotSheet(pivotJson(p));
  return {
    columns: sheet.columns,
    rows: sheet.rows,
    sheet: typed.rows,
    types: sheet.measureOf.map((m) => (m < 0 ? { dataType: 'string' } : p.measures[m]!)),
  };
}
