// A report's `visualization` as a chart: which columns go on x, y and colour (named by title or
// 1-based position, or chosen from the result when left out), drawn with the chat's renderer.
import { invalid } from '../errors.js';
import { specialSpec } from './visualization-kinds.js';
import {
  columnTitle,
  dimensions,
  measures,
  type Visualization,
  type VisualizationType,
} from './visualization-columns.js';

export { columnTitle, type Visualization, type VisualizationType };
import {
  buildChartSpec,
  type ChartMark,
  type ChartSize,
  type ChartSpec,
  type ChartTable,
} from './chart.js';

const MARK: Record<string, ChartMark> = {
  bar: 'bar',
  line: 'line',
  area: 'area',
  pie: 'arc',
  scatter: 'point',
  combo: 'bar',
  funnel: 'funnel',
  gauge: 'gauge',
  map: 'map',
};

/** Visualization types drawn as a chart (the others are a table and a single number). */
export const isChart = (type: string): boolean => type in MARK;

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
  if (mark === 'gauge' || mark === 'map') return specialSpec(vis, table, size, title);
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
  if ((mark === 'arc' || mark === 'funnel') && ys.length > 1)
    throw invalid(`a ${vis.type} shows one y column; choose one`, { field: 'visualization.y' });
  if (mark === 'funnel') color = undefined;
  const lines = vis.type === 'combo' ? comboLines(vis, table, ys) : undefined;
  const stack = vis.stack && (mark === 'bar' || mark === 'area') && !lines ? vis.stack : undefined;
  // A combo's line gets its own axis when the measures are ten times apart; stacked series
  // share one axis (they add up).
  const dual = !stack && ys.length === 2 && apart(table, ys[0]!, ys[1]!);
  const spec = buildChartSpec({ mark, x, y: ys, color, dual, title }, table, size);
  return { ...spec, ...(stack ? { stack } : {}), ...(lines ? { lines } : {}) };
}

/** A combo's lines: `visualization.line` (columns among y), else every measure but the first. */
function comboLines(vis: Visualization, table: ChartTable, ys: string[]): number[] {
  if (ys.length < 2)
    throw invalid('a combo needs two measures or more: the first is bars, the others lines', {
      field: 'visualization.y',
    });
  if (vis.line === undefined) return ys.map((_, i) => i).slice(1);
  const refs = Array.isArray(vis.line) ? vis.line : [vis.line];
  const lines = refs.map((r) => {
    const i = ys.indexOf(columnTitle(table, r, 'line'));
    if (i < 0)
      throw invalid(`the visualization's line names a column that is not one of its y: ${r}`, {
        field: 'visualization.line',
      });
    return i;
  });
  if (lines.length >= ys.length)
    throw invalid('a combo keeps at least one measure as bars', { field: 'visualization.line' });
  return [...new Set(lines)].sort((a, b) => a - b);
}

/** The largest magnitude of a column's numbers (0 when none). */
export function largest(table: ChartTable, title: string): number {
  const i = table.columns.findIndex((c) => c.title === title);
  let most = 0;
  for (const r of table.rows) {
    const n = Math.abs(Number(r[i] ?? ''));
    if (Number.isFinite(n) && n > most) most = n;
  }
  return most;
}

/** Two measures ten times apart or more (as the app decides): the smaller gets its own axis. */
export function apart(table: ChartTable, a: string, b: string): boolean {
  const [m, n] = [largest(table, a), largest(table, b)];
  return m > 0 && n > 0 && (m / n >= 10 || n / m >= 10);
}
