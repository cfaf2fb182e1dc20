// A report's `visualization` as a chart: which columns go on x, y and colour (named by title or
// 1-based position, or chosen from the result when left out), drawn with the chat's renderer.
import { invalid } from '../errors.js';
import type { VISUALIZATION_TYPES } from '../model/defs.js';
import {
  buildChartSpec,
  type ChartMark,
  type ChartSize,
  type ChartSpec,
  type ChartTable,
} from './chart.js';

export type VisualizationType = (typeof VISUALIZATION_TYPES)[number];

export interface Visualization {
  type: VisualizationType;
  x?: string | number;
  y?: string | number | (string | number)[];
  color?: string | number;
  [styling: string]: unknown;
}

const MARK: Record<string, ChartMark> = {
  bar: 'bar',
  line: 'line',
  area: 'area',
  pie: 'arc',
  scatter: 'point',
};

/** Visualization types drawn as a chart (the others are a table and a single number). */
export const isChart = (type: string): boolean => type in MARK;

/** The title of the column a visualization names (by title, any case, or 1-based position). */
export function columnTitle(table: ChartTable, ref: string | number, role: string): string {
  const titles = table.columns.map((c) => c.title);
  if (typeof ref === 'number') {
    const t = titles[ref - 1];
    if (t === undefined)
      throw invalid(
        `the visualization's ${role} is column ${ref}, but the result has ${titles.length} column(s)`,
        { field: `visualization.${role}`, columns: titles },
      );
    return t;
  }
  const exact = titles.find((t) => t === ref);
  const folded = titles.filter((t) => t.toLowerCase() === ref.toLowerCase());
  const found = exact ?? (folded.length === 1 ? folded[0] : undefined);
  if (found === undefined)
    throw invalid(
      `the visualization's ${role} names column "${ref}", which the result does not have; its columns: ${titles.map((t) => `"${t}"`).join(', ')}`,
      { field: `visualization.${role}`, columns: titles },
    );
  return found;
}

const measures = (t: ChartTable) =>
  t.columns.filter(
    (c) => c.kind === 'measure' || (!c.kind && /^(integer|number)$/.test(c.dataType)),
  );
const dimensions = (t: ChartTable) => t.columns.filter((c) => !measures(t).includes(c));

/** The value a `kpi` shows: the visualization's y (or the first measure) of the first row. */
export function kpiColumn(vis: Visualization, table: ChartTable): number {
  const y = Array.isArray(vis.y) ? vis.y[0] : vis.y;
  const title =
    y !== undefined ? columnTitle(table, y, 'y') : (measures(table)[0] ?? table.columns[0])?.title;
  return table.columns.findIndex((c) => c.title === title);
}

/**
 * The chart spec of a chart visualization. Left out, x is the first dimension, y every
 * measure (several become one series each) and colour the second dimension.
 */
export function visualizationSpec(
  vis: Visualization,
  table: ChartTable,
  size: ChartSize,
  title?: string,
): ChartSpec {
  const mark = MARK[vis.type];
  if (!mark) throw invalid(`a ${vis.type} visualization is not a chart`);
  const dims = dimensions(table);
  const x =
    vis.x !== undefined ? columnTitle(table, vis.x, 'x') : (dims[0] ?? table.columns[0])?.title;
  if (x === undefined) throw invalid('the result has no columns to chart');
  const yRefs = vis.y === undefined ? [] : Array.isArray(vis.y) ? vis.y : [vis.y];
  let ys = yRefs.map((r) => columnTitle(table, r, 'y'));
  if (ys.length === 0)
    ys = measures(table)
      .map((c) => c.title)
      .filter((t) => t !== x)
      .slice(0, 10);
  if (ys.length === 0)
    throw invalid('the result has no numeric column to chart; add a measure or choose y', {
      field: 'visualization.y',
    });
  let color = vis.color !== undefined ? columnTitle(table, vis.color, 'color') : undefined;
  if (color === undefined && ys.length === 1 && mark !== 'arc')
    color = dims.find((d) => d.title !== x)?.title;
  if (mark === 'arc' && ys.length > 1)
    throw invalid('a pie shows one y column; choose one', { field: 'visualization.y' });
  const dual = ys.length === 2 && apart(table, ys[0]!, ys[1]!);
  return buildChartSpec({ mark, x, y: ys, color, dual, title }, table, size);
}

/** The largest magnitude of a column's numbers (0 when none). */
function largest(table: ChartTable, title: string): number {
  const i = table.columns.findIndex((c) => c.title === title);
  let most = 0;
  for (const r of table.rows) {
    const n = Math.abs(Number(r[i] ?? ''));
    if (Number.isFinite(n) && n > most) most = n;
  }
  return most;
}

/** Two measures ten times apart or more (as the app decides): the smaller gets its own axis. */
function apart(table: ChartTable, a: string, b: string): boolean {
  const [m, n] = [largest(table, a), largest(table, b)];
  return m > 0 && n > 0 && (m / n >= 10 || n / m >= 10);
}
