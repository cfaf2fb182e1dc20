// What a result's chart shows, from its columns' kinds and types: the chart picked for it, the
// categories (dimensions, dates written as dates, years as years) and one series per measure,
// a second axis for a measure of another magnitude, and round axis ticks.
import { dateLabeller } from '../../format.js';

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

export const CHART_KINDS = [
  ['bar', 'Bar'],
  ['line', 'Line'],
  ['number', 'Number'],
  ['table', 'Table only'],
] as const;
export type ChartKind = (typeof CHART_KINDS)[number][0];

export interface Series {
  title: string;
  values: (number | null)[];
  /** 0: the main axis; 1: the second axis (a measure ten times larger or smaller). */
  axis: 0 | 1;
}

export interface ChartData {
  labels: string[];
  series: Series[];
  /** The categories are dates, in order (a line reads them best). */
  dates: boolean;
}

/** Categories drawn at most; the table has every row. */
export const MAX_CATEGORIES = 60;
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

export function chartData(columns: ResultColumn[], rows: string[][]): ChartData | null {
  const measure = measureColumns(columns, rows);
  const mj = columns.flatMap((_, j) => (measure[j] ? [j] : []));
  const dj = columns.flatMap((_, j) => (measure[j] ? [] : [j]));
  if (!mj.length || !rows.length) return null;
  const shown = rows.slice(0, MAX_CATEGORIES);
  const dates =
    dj.length === 1 &&
    (isDateType(columns[dj[0]!]!) || shown.every((r) => DATE.test(r[dj[0]!] ?? '')));
  const label = dates ? dateLabeller(shown.map((r) => r[dj[0]!] ?? '')) : (v: string) => v;
  const labels = shown.map((r) =>
    dj.length ? dj.map((j) => label(r[j] ?? '') || '(empty)').join(' · ') : '',
  );
  const series: Series[] = mj.map((j) => ({
    title: columns[j]!.title,
    values: shown.map((r) => (r[j] && NUMBER.test(r[j]) ? Number(r[j]) : null)),
    axis: 0,
  }));
  if (series.length === 2) {
    const [a, b] = series.map((s) => Math.max(...s.values.map((v) => Math.abs(v ?? 0))));
    if (a! > 0 && b! > 0 && (a! / b! >= 10 || b! / a! >= 10)) series[1]!.axis = 1;
  }
  return { labels, series, dates };
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

/** The chart a result gets unless the reader picks another. */
export function autoKind(columns: ResultColumn[], rows: string[][]): ChartKind {
  const d = chartData(columns, rows);
  if (!d) return 'table';
  if (rows.length === 1 && d.labels[0] === '') return 'number';
  return d.dates && rows.length > 1 ? 'line' : 'bar';
}

/** Round ticks from 0 (or the lowest value) to past the highest: 0, 250, 500… */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  const min = Math.min(0, lo);
  const max = Math.max(0, hi);
  if (min === max) return [0, 1];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = Math.floor(min / step) * step; t < max + step - 1e-9; t += step)
    ticks.push(Number(t.toPrecision(12)));
  return ticks;
}
