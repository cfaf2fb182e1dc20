// Map boundaries: us-atlas's states (states-10m) and world-atlas's countries (countries-110m),
// TopoJSON converted to GeoJSON by topojson-client and registered with ECharts under the
// spec's `map.regions`. The server registers them at its first map, the app when a map is
// drawn (their own chunk, out of the first screen). A region is named by the result as a name
// (any case), a two-letter state code, an ISO country code (alpha-2, alpha-3 or numeric).
import * as topojson from 'topojson-client';
import { echarts } from './echarts.js';
import { COUNTRY_ALIASES, COUNTRY_CODES, STATE_CODES } from './geo-codes.js';
import type { MapRegions } from './spec.js';

interface Feature {
  id?: string;
  properties: { name: string };
  geometry: { coordinates: unknown } | null;
}
interface Topology {
  objects: Record<string, unknown>;
}

/** Each map's region for a key (lower case): name, code or number → the region's name. */
const matchers = new Map<MapRegions, Map<string, string>>();

const OBJECT: Record<MapRegions, string> = { 'us-states': 'states', world: 'countries' };

/** Registers a map's boundaries (its atlas's TopoJSON) with ECharts, once. */
export function registerRegions(kind: MapRegions, topology: unknown): void {
  if (matchers.has(kind)) return;
  const t = topology as Topology;
  // The package is CommonJS on the server and an ES module in the app's bundle.
  const lib = topojson as unknown as {
    feature?: typeof topojson.feature;
    default?: typeof topojson;
  };
  const feature = lib.feature ?? lib.default!.feature;
  const geo = feature(t, t.objects[OBJECT[kind]]) as { features: Feature[] };
  if (kind === 'us-states') usLayout(geo);
  else worldLayout(geo);
  const keys = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const f of geo.features) {
    keys.set(f.properties.name.toLowerCase(), f.properties.name);
    if (f.id) {
      byId.set(f.id, f.properties.name);
      keys.set(f.id.toLowerCase(), f.properties.name);
      keys.set(String(Number(f.id)), f.properties.name);
    }
  }
  const codes = kind === 'us-states' ? STATE_CODES : COUNTRY_CODES;
  for (const entry of codes.split(',')) {
    const [id, ...aliases] = entry.split(' ');
    const name = byId.get(id!) ?? (id!.startsWith('=') ? id!.slice(1) : undefined);
    if (name) for (const a of aliases) keys.set(a.toLowerCase(), name);
  }
  if (kind === 'world')
    for (const [alias, name] of Object.entries(COUNTRY_ALIASES))
      keys.set(alias.toLowerCase(), name);
  echarts.registerMap(kind, geo as never);
  matchers.set(kind, keys);
}

export const regionsRegistered = (kind: MapRegions): boolean => matchers.has(kind);

/** The map's region a value names (its name as the atlas writes it), or undefined. */
export function regionOf(kind: MapRegions, value: string): string | undefined {
  const m = matchers.get(kind);
  if (!m) throw new Error(`the ${kind} map is not registered`);
  const v = value.trim().toLowerCase().replace(/\s+/g, ' ');
  return m.get(v) ?? m.get(v.replace(/^the /, ''));
}

/** How many of the values name a region of the map (to pick the map a result is about). */
export const regionMatches = (kind: MapRegions, values: string[]): number =>
  values.filter((v) => regionOf(kind, v) !== undefined).length;

/** Territories far from the states (American Samoa, Guam, the Northern Mariana Islands). */
const FAR = new Set(['60', '66', '69']);

/**
 * The states as a US map shows them: Alaska (across the antimeridian) and Hawaii moved into
 * insets below the West, so the 48 states fill the frame.
 */
function usLayout(geo: { features: Feature[] }): void {
  geo.features = geo.features.filter((f) => !FAR.has(f.id ?? ''));
  const move = (c: unknown): unknown =>
    typeof (c as number[])[0] === 'number'
      ? usInset(c as [number, number])
      : (c as unknown[]).map(move);
  for (const f of geo.features)
    if (f.geometry && (f.id === '02' || f.id === '15'))
      f.geometry.coordinates = move(f.geometry.coordinates);
}

/** A longitude and latitude on the US map (a place in Alaska or Hawaii moved to its inset). */
export function usInset([lon, lat]: [number, number]): [number, number] {
  if (lat >= 51 && (lon <= -129 || lon >= 170)) {
    const x = lon > 0 ? lon - 360 : lon;
    return [-118 + (x + 152) * 0.35, 26.5 + (lat - 63) * 0.35];
  }
  if (lat >= 18 && lat <= 23 && lon >= -161 && lon <= -154) return [lon + 52, lat + 4];
  return [lon, lat];
}

/**
 * The countries as the world map shows them: without Antarctica (a band of ice along the
 * bottom), and a country across the antimeridian (Russia, Fiji) drawn whole east of it
 * rather than with rings running across the map.
 */
function worldLayout(geo: { features: Feature[] }): void {
  geo.features = geo.features.filter((f) => f.id !== '010');
  const ring = (r: [number, number][]) =>
    r.some((p, i) => i > 0 && Math.abs(p[0] - r[i - 1]![0]) > 180)
      ? r.map(([x, y]): [number, number] => [x < 0 ? x + 360 : x, y])
      : r;
  const rings = (c: unknown): unknown =>
    typeof (c as number[][])[0]?.[0] === 'number'
      ? ring(c as [number, number][])
      : (c as unknown[]).map(rings);
  for (const f of geo.features)
    if (f.geometry) f.geometry.coordinates = rings(f.geometry.coordinates);
}
