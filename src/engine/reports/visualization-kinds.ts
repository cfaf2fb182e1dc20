// Visualizations whose columns are not a category axis and its series: a gauge (one value of
// the first row, on a scale with an optional target) and a map (regions coloured by a value,
// or points at a latitude and longitude).
import type { QueryWarning } from '../../contract/dashboards.js';
import { invalid } from '../errors.js';
import { niceAxis } from '../../shared/chart/axis.js';
import { regionMatches, regionOf } from '../../shared/chart/geo.js';
import type { MapRegions } from '../../shared/chart/spec.js';
import { buildChartSpec, type ChartSize, type ChartSpec, type ChartTable } from './chart.js';
import { serverRegions } from './maps.js';
import { columnTitle, dimensions, measures, type Visualization } from './visualization-columns.js';

const LATITUDE = /^(lat|latitude)$/i;
const LONGITUDE = /^(lon|lng|long|longitude)$/i;

export function specialSpec(
  vis: Visualization,
  table: ChartTable,
  size: ChartSize,
  title?: string,
): ChartSpec {
  return vis.type === 'gauge'
    ? gaugeSpec(vis, table, size, title)
    : mapSpec(vis, table, size, title);
}

const yRef = (vis: Visualization) => (Array.isArray(vis.y) ? vis.y[0] : vis.y);

function gaugeSpec(vis: Visualization, table: ChartTable, size: ChartSize, title?: string) {
  const ref = yRef(vis);
  const y = ref !== undefined ? columnTitle(table, ref, 'y') : measures(table)[0]?.title;
  if (y === undefined)
    throw invalid('a gauge shows a number; the result has no numeric column', {
      field: 'visualization.y',
    });
  const x = dimensions(table)[0]?.title ?? y;
  const first = { columns: table.columns, rows: table.rows.slice(0, 1) };
  const spec = buildChartSpec({ mark: 'gauge', x, y: [y], title }, first, size);
  const value = Number(spec.data[0]?.[1] ?? '');
  const min = vis.min ?? Math.min(0, Number.isFinite(value) ? value : 0);
  const top = Math.max(value, vis.target ?? -Infinity);
  const max = vis.max ?? (Number.isFinite(top) && top > min ? niceAxis(min, top).max : min + 100);
  if (!(min < max)) throw invalid('a gauge needs min below max', { field: 'visualization.max' });
  return {
    ...spec,
    gauge: { min, max, ...(vis.target !== undefined ? { target: vis.target } : {}) },
  };
}

function mapSpec(vis: Visualization, table: ChartTable, size: ChartSize, title?: string) {
  const titles = table.columns.map((c) => c.title);
  const lat =
    vis.latitude !== undefined
      ? columnTitle(table, vis.latitude, 'latitude')
      : titles.find((t) => LATITUDE.test(t));
  const lon =
    vis.longitude !== undefined
      ? columnTitle(table, vis.longitude, 'longitude')
      : titles.find((t) => LONGITUDE.test(t));
  if (lat !== undefined && lon !== undefined) {
    const rest = (cs: { title: string }[]) =>
      cs.map((c) => c.title).filter((t) => t !== lat && t !== lon);
    const x =
      vis.x !== undefined ? columnTitle(table, vis.x, 'x') : (rest(dimensions(table))[0] ?? lat);
    const ref = yRef(vis);
    const size3 = ref !== undefined ? columnTitle(table, ref, 'y') : rest(measures(table))[0];
    const regions = vis.map ?? (inUS(table, lat, lon) ? 'us-states' : 'world');
    serverRegions(regions);
    const spec = buildChartSpec(
      { mark: 'map', x, y: [lat, lon, ...(size3 !== undefined ? [size3] : [])], title },
      table,
      size,
    );
    return { ...spec, map: { regions, points: true } };
  }
  if ((lat === undefined) !== (lon === undefined))
    throw invalid('a map of points needs both a latitude and a longitude column', {
      field: lat === undefined ? 'visualization.latitude' : 'visualization.longitude',
    });
  const x = vis.x !== undefined ? columnTitle(table, vis.x, 'x') : dimensions(table)[0]?.title;
  const ref = yRef(vis);
  const y = ref !== undefined ? columnTitle(table, ref, 'y') : measures(table)[0]?.title;
  if (x === undefined || y === undefined)
    throw invalid(
      'a map colours regions (a column of state or country names or codes) by a number, or places points at latitude and longitude columns',
      { field: x === undefined ? 'visualization.x' : 'visualization.y' },
    );
  const regions = vis.map ?? guessRegions(table, x);
  serverRegions(regions);
  const spec = buildChartSpec({ mark: 'map', x, y: [y], title }, table, size);
  return { ...spec, map: { regions } };
}

/** The map whose regions the column names more of (US states on a tie: codes like "CA"). */
function guessRegions(table: ChartTable, x: string): MapRegions {
  const i = table.columns.findIndex((c) => c.title === x);
  const values = table.rows.map((r) => r[i] ?? '');
  serverRegions('us-states');
  serverRegions('world');
  return regionMatches('world', values) > regionMatches('us-states', values)
    ? 'world'
    : 'us-states';
}

/** Every point within the United States' box (Alaska and Hawaii included). */
function inUS(table: ChartTable, lat: string, lon: string): boolean {
  const [a, o] = [lat, lon].map((t) => table.columns.findIndex((c) => c.title === t));
  return table.rows.every((r) => {
    const [y, x] = [Number(r[a!]), Number(r[o!])];
    return y >= 18 && y <= 72 && x >= -180 && x <= -65;
  });
}

/** The values of a map's regions it could not place: said as a warning, never dropped silently. */
export function unmatchedRegions(spec: ChartSpec): string[] {
  if (spec.mark !== 'map' || !spec.map || spec.map.points) return [];
  serverRegions(spec.map.regions);
  const kind = spec.map.regions;
  return [...new Set(spec.data.map((r) => r[0] ?? ''))].filter((v) => !regionOf(kind, v));
}

/** The warning of a map's values it has no region for (at most ten named). */
export function mapWarning(spec: ChartSpec, values: string[]): QueryWarning {
  const kind = spec.map?.regions === 'world' ? 'country' : 'US state';
  const named = values.slice(0, 10).map((v) => `"${v}"`);
  const more = values.length > 10 ? ` and ${values.length - 10} more` : '';
  return {
    message: `The map has no ${kind} for ${named.join(', ')}${more} (${spec.x.title}); ${values.length === 1 ? 'it is' : 'they are'} not drawn. Use ${kind === 'country' ? 'country names or ISO codes' : 'state names or two-letter codes'}.`,
    line: 0,
    column: 0,
    found: values[0] ?? '',
    suggestions: [],
  };
}
