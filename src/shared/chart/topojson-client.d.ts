// The one function of topojson-client Ursa uses (the package ships no types).
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): unknown;
}
