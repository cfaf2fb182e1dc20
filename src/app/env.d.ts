// esbuild bundles imported stylesheets into app.css.
declare module '*.css';
// topojson-client ships no types (the server's declaration: src/shared/chart/topojson-client.d.ts).
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): unknown;
}
