// Charts of the AI chat, reports and dashboards. The chat's model only names a mark and
// columns, a report its visualization; we build Ursa's chart spec ourselves (data inline,
// nothing that can name a URL: src/shared/chart/spec.ts) and draw its ECharts option
// (src/shared/chart/option.ts, the app's too) to SVG here, without a DOM.
import { invalid } from '../errors.js';
import { drillAreas } from './chart-drill.js';
import { serverRegions } from './maps.js';
import { chartOption } from '../../shared/chart/option.js';
import { echarts } from '../../shared/chart/echarts.js';
import {
  CHART_MARKS,
  fieldType,
  isChartSpec,
  type ChartField,
  type ChartMark,
  type ChartSpec,
} from '../../shared/chart/spec.js';

export { CHART_MARKS, type ChartMark, type ChartSpec };

export interface ChartRequest {
  mark: ChartMark;
  x: string;
  /** One measure, or several (one series each; then no color). */
  y: string | string[];
  color?: string;
  /** Of two measures, the second on its own axis (they are ten times apart or more). */
  dual?: boolean;
  title?: string;
}

export interface ChartTable {
  columns: { title: string; dataType: string; kind?: string }[];
  rows: string[][];
}

export const MAX_CHART_ROWS = 1000;
const MAX_TITLE = 200;
const WIDTH = 640;
const HEIGHT = 360;

const clip = (s: string) => (s.length > MAX_TITLE ? `${s.slice(0, MAX_TITLE - 1)}…` : s);

export interface ChartSize {
  width: number;
  height: number;
}

/** Builds the chart spec of a result, its rows inline (x, each y, color). */
export function buildChartSpec(
  req: ChartRequest,
  table: ChartTable,
  size: ChartSize = { width: WIDTH, height: HEIGHT },
): ChartSpec {
  if (!(CHART_MARKS as readonly string[]).includes(req.mark))
    throw invalid(`Unknown chart mark "${req.mark}"; use one of: ${CHART_MARKS.join(', ')}.`);
  if (table.rows.length === 0)
    throw invalid('The query returned no rows, so there is nothing to chart.');
  if (table.rows.length > MAX_CHART_ROWS)
    throw invalid(
      `The query returned ${table.rows.length} rows; a chart takes at most ${MAX_CHART_ROWS}. ` +
        'Aggregate or filter the query so it returns fewer rows, then chart that.',
    );

  const titles = table.columns.map((c) => c.title);
  const field = (name: string, role: string): ChartField & { index: number } => {
    let index = titles.indexOf(name);
    if (index < 0) {
      const folded = titles.flatMap((t, i) => (t.toLowerCase() === name.toLowerCase() ? [i] : []));
      if (folded.length === 1) index = folded[0]!;
    }
    const col = table.columns[index];
    if (!col)
      throw invalid(
        `Unknown column "${name}" for ${role}; the result's columns are: ${titles.map((t) => JSON.stringify(t)).join(', ')}.`,
        { column: name, columns: titles },
      );
    return { index, title: clip(col.title), type: fieldType(col.dataType, col.kind) };
  };

  const x = field(req.x, 'x');
  const ys = (Array.isArray(req.y) ? req.y : [req.y]).map((y) => field(y, 'y'));
  const color = req.color === undefined ? undefined : field(req.color, 'color');
  if (req.mark === 'arc') {
    if (ys.length !== 1) throw invalid('An arc (pie) chart shows one y column; choose one.');
    if (ys[0]!.type !== 'quantitative')
      throw invalid(
        `An arc (pie) chart needs a numeric y column; "${ys[0]!.title}" is not numeric.`,
      );
    if (color) throw invalid('An arc (pie) chart colours its slices by x; leave color out.');
  }
  if (color && ys.length > 1)
    throw invalid('A chart with a color column shows one y column; choose one.');
  const plain = ({ title, type }: ChartField) => ({ title, type });
  return {
    chart: 'ursa-chart/1',
    mark: req.mark,
    ...(req.title ? { title: clip(String(req.title)) } : {}),
    width: size.width,
    height: size.height,
    x: plain(x),
    y: ys.map(plain),
    ...(color ? { color: plain(color) } : {}),
    ...(req.dual && ys.length === 2 ? { dual: true } : {}),
    data: table.rows.map((r) => [x, ...ys, ...(color ? [color] : [])].map((f) => r[f.index] ?? '')),
  };
}

const PRESENTATION = new Set(['font-size', 'font-family', 'font-weight', 'font-style', 'opacity']);

/** `font-size:12px;font-family:sans-serif` as ` font-size="12px" font-family="sans-serif"`. */
function styleAttributes(css: string): string {
  return css
    .split(';')
    .map((d) => d.split(':').map((x) => x.trim()))
    .filter(([k, v]) => k && v && PRESENTATION.has(k))
    .map(([k, v]) => ` ${k}="${v!.replace(/"/g, '&quot;')}"`)
    .join('');
}

/**
 * Draws a spec (built by buildChartSpec) to an SVG string, without a DOM, loading nothing.
 * The SVG ends with one invisible rectangle per drillable mark (see chart-drill.ts).
 */
export async function renderChartSvg(spec: ChartSpec): Promise<string> {
  if (!isChartSpec(spec)) throw invalid('Not a chart spec Ursa draws (ursa-chart/1).');
  if (spec.map) serverRegions(spec.map.regions);
  const chart = echarts.init(null, null, {
    renderer: 'svg',
    ssr: true,
    width: spec.width,
    height: spec.height,
  });
  try {
    chart.setOption(chartOption(spec));
    // ECharts' hover styles name classes by the renderer's instance (zr0-cls-1): dropped, so
    // the same chart is the same text, and charts inlined on one page do not restyle each other.
    const svg = chart
      .renderToSVGString()
      .replace(/<style\b[^>]*>[\s\S]*?<\/style>\s*/g, '')
      .replace(/ class="zr\d+-cls-\d+"/g, '')
      // Pages that inline the SVG allow no inline style (CSP style-src 'self'): fonts as
      // presentation attributes instead, which SVG reads the same.
      .replace(/ style="([^"]*)"/g, (_m, css: string) => styleAttributes(css));
    if (!svg.startsWith('<svg')) throw invalid('Chart rendering produced no SVG.');
    return drillAreas(svg, spec, chart);
  } finally {
    chart.dispose();
  }
}
