// Charts of the AI chat, reports and dashboards. The chat's model only names a mark and
// columns, a report its visualization; we build the Vega-Lite spec ourselves (so it can never
// point Vega at a URL) and render it to SVG on the server with a loader that refuses every fetch.
import { LRUCache } from 'lru-cache';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import { invalid } from '../errors.js';
import { drillAreas } from './chart-drill.js';
import { AXIS_NUMBER } from './chart-format.js';

export const CHART_MARKS = ['bar', 'line', 'area', 'point', 'arc'] as const;
export type ChartMark = (typeof CHART_MARKS)[number];

export interface ChartRequest {
  mark: ChartMark;
  x: string;
  y: string;
  color?: string;
  /** The colours are measures (one series each): side by side, never stacked into a sum. */
  group?: boolean;
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

type FieldType = 'quantitative' | 'temporal' | 'nominal' | 'ordinal';
interface Field {
  key: string; // c0, c1…: titles may hold dots/brackets that Vega-Lite reads as field paths
  index: number;
  title: string;
  type: FieldType;
}

const clip = (s: string) => (s.length > MAX_TITLE ? `${s.slice(0, MAX_TITLE - 1)}…` : s);

function fieldType(dataType: string, kind?: string): FieldType {
  // A dimension of numbers (a year) is a label: 2001, not 2,001.
  if (kind === 'dimension' && (dataType === 'integer' || dataType === 'number')) return 'ordinal';
  if (dataType === 'integer' || dataType === 'number') return 'quantitative';
  if (dataType === 'date' || dataType === 'datetime') return 'temporal';
  return 'nominal';
}

function cellValue(cell: string | undefined, type: FieldType): string | number | null {
  if (cell === undefined) return null;
  if (type === 'quantitative') {
    const n = cell.trim() === '' ? NaN : Number(cell);
    return Number.isFinite(n) ? n : null;
  }
  if (type === 'temporal') {
    if (cell === '') return null;
    // A zone-less datetime would parse as server-local time; read it as UTC (the utc scale
    // below labels in UTC too) so the SVG does not depend on the server's time zone.
    const iso = cell.replace(' ', 'T');
    return /T/.test(iso) && !/(Z|[+-]\d\d(:?\d\d)?)$/i.test(iso) ? `${iso}Z` : iso;
  }
  return cell;
}

export interface ChartSize {
  width: number;
  height: number;
}

/** Builds a Vega-Lite v5 spec with the table inline as data.values. */
export function buildChartSpec(
  req: ChartRequest,
  table: ChartTable,
  size: ChartSize = { width: WIDTH, height: HEIGHT },
): Record<string, unknown> {
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
  const field = (name: string, role: string): Field => {
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
    return {
      key: `c${index}`,
      index,
      title: clip(col.title),
      type: fieldType(col.dataType, col.kind),
    };
  };

  const x = field(req.x, 'x');
  const y = field(req.y, 'y');
  const color = req.color === undefined ? undefined : field(req.color, 'color');
  if (req.mark === 'arc') {
    if (y.type !== 'quantitative')
      throw invalid(`An arc (pie) chart needs a numeric y column; "${y.title}" is not numeric.`);
    if (color) throw invalid('An arc (pie) chart colours its slices by x; leave color out.');
  }

  const used = [x, y, ...(color ? [color] : [])];
  // What a click on a mark filters by: its categories and dates as the result wrote them
  // (Vega-Lite turns dates into timestamps in place), keyed like the fields (never by a title).
  const drillable = [x, ...(color ? [color] : [])].filter((f) => f.type !== 'quantitative');
  const values = table.rows.map((row) => ({
    ...Object.fromEntries(used.map((f) => [f.key, cellValue(row[f.index], f.type)])),
    ...(drillable.length
      ? { [RAW]: Object.fromEntries(drillable.map((f) => [f.key, row[f.index] ?? ''])) }
      : {}),
  }));

  const enc = (f: Field, extra: Record<string, unknown> = {}) => ({
    field: f.key,
    type: f.type,
    title: f.title,
    ...(f.type === 'temporal' ? { scale: { type: 'utc' } } : {}),
    ...extra,
  });
  // Numbers on an axis as the app writes them: compact from ten thousand (1.2M), else grouped.
  const numberAxis = (f: Field, channel: 'x' | 'y') =>
    f.type === 'quantitative' ? { labelExpr: AXIS_NUMBER(channel) } : {};
  const axis = (a: Record<string, unknown>) => (Object.keys(a).length ? { axis: a } : {});
  // Category labels stay level when each fits its band (about 7 px a character at 11 px).
  const banded = x.type === 'nominal' || x.type === 'ordinal';
  const categories = banded ? new Set(table.rows.map((r) => r[x.index] ?? '')) : new Set();
  const widest = Math.max(0, ...[...categories].map((c) => String(c).length * 7));
  const level = banded && widest <= size.width / Math.max(1, categories.size) - 4;
  const encoding =
    req.mark === 'arc'
      ? { theta: enc(y), color: enc(x, { legend: { title: x.title } }) }
      : {
          x: enc(x, {
            ...(req.mark === 'bar' && x.type === 'nominal' ? { sort: '-y' } : {}),
            ...axis({ ...(level ? { labelAngle: 0 } : {}), ...numberAxis(x, 'x') }),
          }),
          y: enc(y, axis(numberAxis(y, 'y'))),
          ...(color
            ? { color: enc(color, { type: 'nominal', legend: { title: color.title } }) }
            : {}),
          ...(color && req.group && req.mark === 'bar' && banded
            ? { xOffset: { field: color.key, type: 'nominal', title: color.title } }
            : {}),
        };

  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    ...(req.title ? { title: clip(String(req.title)) } : {}),
    width: size.width,
    height: size.height,
    data: { values },
    mark: req.mark,
    encoding,
  };
}

/** The fields a click on a mark filters by (its categories and dates), by key with titles. */
function drillFields(spec: Record<string, unknown>): Map<string, string> {
  const encoding = (spec.encoding ?? {}) as Record<
    string,
    { field?: string; type?: string; title?: string }
  >;
  const out = new Map<string, string>();
  for (const ch of ['x', 'color'])
    if (encoding[ch]?.field && encoding[ch].type !== 'quantitative')
      out.set(encoding[ch].field, encoding[ch].title ?? encoding[ch].field);
  return out;
}

// Every fetch (data, images, hrefs) goes through the loader; refusing here means nothing leaves.
function refusingLoader(refused: string[]): vega.Loader {
  const refuse = async (uri: string): Promise<never> => {
    refused.push(uri);
    throw new Error('Charts cannot load external resources');
  };
  return { load: refuse, sanitize: refuse, http: refuse, file: refuse };
}

const DATA = 'table';
/** The key of a data value holding its categories and dates as the result wrote them. */
const RAW = '_raw';
const MAX_RUNTIMES = 500;
/**
 * Parsed charts by their spec without its data: compiling Vega-Lite and parsing Vega take
 * about half of a render, and a dashboard's charts keep their shape while their data changes.
 */
const runtimes = new LRUCache<string, vega.Runtime>({ max: MAX_RUNTIMES });

function runtimeOf(
  spec: Record<string, unknown>,
  logger: vega.LoggerInterface,
  errors: unknown[],
): { runtime: vega.Runtime; values?: object[] } {
  const values = (spec.data as { values?: unknown } | undefined)?.values;
  const inline = Array.isArray(values);
  const shape = inline ? { ...spec, data: { name: DATA } } : spec;
  const key = JSON.stringify(shape);
  const hit = runtimes.get(key);
  if (hit) return { runtime: hit, values: inline ? (values as object[]) : undefined };
  const before = errors.length;
  const runtime = vega.parse(vl.compile(shape as unknown as TopLevelSpec, { logger }).spec);
  if (errors.length === before) {
    runtimes.set(key, runtime);
  }
  return { runtime, values: inline ? (values as object[]) : undefined };
}

/**
 * Renders a spec built by buildChartSpec to an SVG string; never loads anything external. The
 * SVG ends with one invisible rectangle per drillable mark (see chart-drill.ts).
 */
export async function renderChartSvg(
  spec: Record<string, unknown>,
  timeoutMs = 10_000,
): Promise<string> {
  const errors: unknown[] = [];
  const refused: string[] = [];
  // Collect errors instead of printing them: the caller turns them into a tool result.
  const logger = vega.logger(vega.Error, undefined, (_method, _level, input) => {
    errors.push(input[0]);
  });
  const { runtime, values } = runtimeOf(spec, logger, errors);
  const view = new vega.View(runtime, {
    renderer: 'none',
    loader: refusingLoader(refused),
    logger,
  });
  if (values) view.data(DATA, values);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(invalid(`Rendering the chart took longer than ${timeoutMs} ms.`)),
        timeoutMs,
      );
    });
    const svg = await Promise.race([view.toSVG(), timeout]);
    if (refused.length > 0) throw invalid('Charts cannot load external data or images.');
    if (errors.length > 0)
      throw invalid(
        `Rendering the chart failed: ${String(errors[0] instanceof Error ? errors[0].message : errors[0])}`,
      );
    if (!svg.startsWith('<svg')) throw invalid('Chart rendering produced no SVG.');
    return drillAreas(svg, view, RAW, drillFields(spec));
  } finally {
    clearTimeout(timer);
    view.finalize();
  }
}
