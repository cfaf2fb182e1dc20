// A map's boundaries in the app: the atlas's TopoJSON (its own chunk, loaded when a map is
// first drawn, never on the first screen), registered with the live charts' ECharts.
import { registerRegions, regionsRegistered } from '../../shared/chart/geo';
import type { MapRegions } from '../../shared/chart/spec';

export async function loadRegions(kind: MapRegions): Promise<void> {
  if (regionsRegistered(kind)) return;
  const topology =
    kind === 'us-states'
      ? (await import('us-atlas/states-10m.json')).default
      : (await import('world-atlas/countries-110m.json')).default;
  registerRegions(kind, topology);
}
