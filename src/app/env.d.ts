// esbuild bundles imported stylesheets into app.css.
declare module '*.css';
// topojson-client ships no types (the server's declaration: src/shared/chart/topojson-client.d.ts).
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): unknown;
}
// The atlases' boundaries (TopoJSON), loaded with a map (src/app/chart/maps.ts).
declare module 'us-atlas/states-10m.json' {
  const topology: unknown;
  export default topology;
}
declare module 'world-atlas/countries-110m.json' {
  const topology: unknown;
  export default topology;
}
