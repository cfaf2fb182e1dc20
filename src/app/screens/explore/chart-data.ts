// What a result's chart is, from its columns' kinds and types: the visualization it gets unless
// the reader picks another (a listing of rows is a table), and the chart spec of a NEST
// result's nested rows (drawn by the shared renderer, src/shared/chart, as every chart is).
import type { ChartSpec } from '../../../shared/chart/spec.js';
import { fieldType } from '../../../shared/chart/spec.js';

export interface ResultColumn {
  title: string;
  /** The engine's title when it was the item's AQL text, shown in words as `title`. */
  aql?: string;
  /** From the query's plan (app/aql/explain); absent when it could not be read. */
  kind?: 'dimension' | 'measure';
  dataType?: string;
  /** A NEST column (dataType `nested`): the columns of its rows. */
  columns?: ResultColumn[];
}

/** Rows a chart takes (the engine's MAX_CHART_ROWS): a longer result is a table. */
export const MAX_CHART_ROWS = 1000;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}/;
const isDateType = (c: ResultColumn) => c.dataType === 'date' || c.dataType === 'datetime';

/** Which columns are measures: the plan's kinds, else the numeric columns after the first. */
export function measureColumns(columns: ResultColumn[], rows: string[][]): boolean[] {
  if (columns.every((c) => c.kind)) return columns.map((c) => c.kind === 'measure');
  return columns.map(
    (_, j) =>
      (j > 0 || columns.length === 1) &&
      rows.some((r) => r[j]) &&
      rows.every((r) => !r[j] || NUMBER.test(r[j])),
  );
}

/**
 * What a result with a NEST column charts: its nested rows, each under its result row's
 * dimensions ("Midwest · IL"), with the nested measures as series. The result's own measures
 * repeat on every nested row, so they are left out. Null when there is no NEST column.
 */
export function nestedChartSource(
  columns: ResultColumn[],
  rows: string[][],
): { columns: ResultColumn[]; rows: string[][] } | null {
  const n = columns.findIndex((c) => c.dataType === 'nested' && c.columns?.length);
  if (n < 0) return null;
  const inner = columns[n]!.columns!;
  const outer = columns.flatMap((c, j) => (c.kind === 'dimension' ? [j] : []));
  const out: string[][] = [];
  for (const r of rows) {
    let list: Record<string, unknown>[];
    try {
      list = JSON.parse(r[n] || '[]') as Record<string, unknown>[];
    } catch {
      continue;
    }
    for (const x of list)
      out.push([
        ...outer.map((j) => r[j] ?? ''),
        ...inner.map((c) => {
          const v = x[c.title];
          return v === null || v === undefined ? '' : String(v);
        }),
      ]);
  }
  return { columns: [...outer.map((j) => columns[j]!), ...inner], rows: out };
}

/** A model attribute as Explore lists it: a primary key's rows are records, not categories. */
export interface KeyObject {
  type: string;
  name: string;
  def?: { primaryKey?: boolean };
}

/**
 * The visualization a result gets unless the reader picks another: a table for a listing (a
 * dataset's primary key among its columns: one row per record, as "see the rows behind it"
 * asks), for rows without a measure and for more rows than a chart takes; one number alone is
 * a KPI; a line over dates; else bars.
 */
export function autoChoice(
  columns: ResultColumn[],
  rows: string[][],
  objects: KeyObject[] = [],
): 'table' | 'kpi' | 'line' | 'bar' {
  const measure = measureColumns(columns, rows);
  const dims = columns.filter((_, j) => !measure[j]);
  if (!rows.length || !measure.some(Boolean) || rows.length > MAX_CHART_ROWS) return 'table';
  if (columns.some((c) => c.dataType === 'nested')) return 'bar';
  const keys = new Set(
    objects.filter((o) => o.type === 'attribute' && o.def?.primaryKey).map((o) => o.name),
  );
  if (dims.some((c) => keys.has(c.title))) return 'table';
  if (!dims.length) return rows.length === 1 ? 'kpi' : 'table';
  const dated =
    dims.length === 1 &&
    (isDateType(dims[0]!) || rows.every((r) => DATE.test(r[columns.indexOf(dims[0]!)] ?? '')));
  return dated && rows.length > 1 ? 'line' : 'bar';
}

/**
 * The chart of a NEST result's nested rows (nestedChartSource): each under its result row's
 * dimensions ("Midwest · IL") along x, the nested measures as series. Null when there is
 * nothing to chart.
 */
export function nestedSpec(
  source: { columns: ResultColumn[]; rows: string[][] },
  mark: 'bar' | 'line' | 'area',
): ChartSpec | null {
  const measure = measureColumns(source.columns, source.rows);
  const mj = source.columns.flatMap((_, j) => (measure[j] ? [j] : []));
  const dj = source.columns.flatMap((_, j) => (measure[j] ? [] : [j]));
  if (!mj.length || !source.rows.length) return null;
  const rows = source.rows.slice(0, MAX_CHART_ROWS);
  return {
    chart: 'ursa-chart/1',
    mark,
    width: 640,
    height: 360,
    x: { title: dj.map((j) => source.columns[j]!.title).join(' · ') || ' ', type: 'nominal' },
    y: mj.map((j) => ({
      title: source.columns[j]!.title,
      type: fieldType(source.columns[j]!.dataType ?? 'number', 'measure'),
    })),
    data: rows.map((r) => [
      dj.map((j) => r[j] || '(empty)').join(' · '),
      ...mj.map((j) => r[j] ?? ''),
    ]),
  };
}
