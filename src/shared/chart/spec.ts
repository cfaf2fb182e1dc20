// Ursa's chart spec: what a chart shows, as plain JSON (the API's `chart.spec`), drawn by
// chartOption (option.ts) into one ECharts option on the server (SVG for PDF, PNG, public
// pages and the chat) and in the app (the same picture, with tooltips and a click menu).
// The rows are inline, as the result wrote them; nothing in a spec can name a URL.

export const CHART_MARKS = [
  'bar',
  'line',
  'area',
  'point',
  'arc',
  'funnel',
  'gauge',
  'map',
] as const;
export type ChartMark = (typeof CHART_MARKS)[number];
/** The marks of a chart of columns alone (the chat's charts): the others need their keys. */
export const PLAIN_MARKS = ['bar', 'line', 'area', 'point', 'arc'] as const;

/** How a column is read: a number, a date, a label (2001 as written), or a name. */
export type FieldType = 'quantitative' | 'temporal' | 'ordinal' | 'nominal';

export interface ChartField {
  title: string;
  type: FieldType;
}

export interface ChartSpec {
  /** The spec's version: `ursa-chart/1`. */
  chart: 'ursa-chart/1';
  mark: ChartMark;
  title?: string;
  width: number;
  height: number;
  /** The categories, dates or (a scatter) numbers along the bottom; a pie's slices. */
  x: ChartField;
  /** The measures: one series each (a pie has one). */
  y: ChartField[];
  /** A second breakdown: one series per value (with one measure only). */
  color?: ChartField;
  /** Two measures ten times apart or more: the second has its own axis on the right. */
  dual?: boolean;
  /** Bars or areas of several series on top of each other: sums, or shares of 100%. */
  stack?: 'normal' | 'percent';
  /** A combo (mark `bar`): the measures (0-based, into `y`) drawn as lines over the bars. */
  lines?: number[];
  /** A gauge (its value the first row's y): its scale and an optional target. */
  gauge?: { min: number; max: number; target?: number };
  /**
   * A map: the boundaries it draws (`us-states`, `world`); regions are x (names or codes),
   * coloured by y; `points`: no regions, y are latitude, longitude and an optional size.
   */
  map?: { regions: MapRegions; points?: boolean };
  /** One row per result row: x, each y, then color, as the result wrote them. */
  data: string[][];
}

export const MAP_REGIONS = ['us-states', 'world'] as const;
export type MapRegions = (typeof MAP_REGIONS)[number];

/** A column's type on a chart: a dimension of numbers (a year) is a label, 2001 not 2,001. */
export function fieldType(dataType: string, kind?: string): FieldType {
  const numeric = dataType === 'integer' || dataType === 'number';
  if (kind === 'dimension' && numeric) return 'ordinal';
  if (numeric) return 'quantitative';
  if (dataType === 'date' || dataType === 'datetime') return 'temporal';
  return 'nominal';
}

/** Is this a spec chartOption can draw (the API's own, or one a client sent back)? */
export function isChartSpec(v: unknown): v is ChartSpec {
  const s = v as Partial<ChartSpec> | null;
  const field = (f: unknown) =>
    typeof f === 'object' &&
    f !== null &&
    typeof (f as ChartField).title === 'string' &&
    ['quantitative', 'temporal', 'ordinal', 'nominal'].includes((f as ChartField).type);
  return (
    typeof s === 'object' &&
    s !== null &&
    s.chart === 'ursa-chart/1' &&
    (CHART_MARKS as readonly string[]).includes(s.mark as string) &&
    typeof s.width === 'number' &&
    typeof s.height === 'number' &&
    field(s.x) &&
    Array.isArray(s.y) &&
    s.y.length > 0 &&
    s.y.every(field) &&
    (s.color === undefined || field(s.color)) &&
    (s.stack === undefined || s.stack === 'normal' || s.stack === 'percent') &&
    (s.lines === undefined ||
      (Array.isArray(s.lines) && s.lines.every((i) => Number.isInteger(i)))) &&
    (s.gauge === undefined ||
      (typeof s.gauge === 'object' &&
        s.gauge !== null &&
        Number.isFinite(s.gauge.min) &&
        Number.isFinite(s.gauge.max) &&
        (s.gauge.target === undefined || Number.isFinite(s.gauge.target)))) &&
    (s.mark !== 'map' || s.map !== undefined) &&
    (s.map === undefined ||
      (typeof s.map === 'object' &&
        s.map !== null &&
        (MAP_REGIONS as readonly string[]).includes(s.map.regions))) &&
    Array.isArray(s.data) &&
    s.data.every((r) => Array.isArray(r) && r.every((c) => typeof c === 'string'))
  );
}
