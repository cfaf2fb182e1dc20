// The chunks an esbuild ES module imports statically (`import … from "./chunk-….js"`), not
// those it loads on demand (`import("./chunk-….js")`): the app's first screen is app.js and
// these (its size budget; the shell's modulepreload links).
const STATIC = /(?:^|[;}])\s*import\s*[^("']*?from\s*"\.\/([\w-]+\.js)"/g;

export const staticImports = (code: string): string[] =>
  [...code.matchAll(STATIC)].map((m) => m[1]!);
