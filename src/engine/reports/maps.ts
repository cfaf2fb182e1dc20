// The server's map boundaries: the atlases' TopoJSON read from their packages at the first map
// drawn, converted and registered with ECharts (src/shared/chart/geo.ts).
import { createRequire } from 'node:module';
import { registerRegions, regionsRegistered } from '../../shared/chart/geo.js';
import type { MapRegions } from '../../shared/chart/spec.js';

const require = createRequire(import.meta.url);

const FILES: Record<MapRegions, string> = {
  'us-states': 'us-atlas/states-10m.json',
  world: 'world-atlas/countries-110m.json',
};

/** Registers a map's boundaries with the server's ECharts (once). */
export function serverRegions(kind: MapRegions): void {
  if (!regionsRegistered(kind)) registerRegions(kind, require(FILES[kind]));
}
