// Runs a TypeScript program the way the server runs: bundled (bin/bundle.mjs's options), not
// under tsx. Benchmarks use it so that they time the code that ships: tsx compiles with
// esbuild's keepNames, which wraps every closure in a naming call (AQL's parser makes one
// per rule alternative), and resolves modules one by one. `node bin/run.mjs bench/aql.ts …`
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLE_OPTIONS } from './bundle.mjs';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node bin/run.mjs <file.ts> [arguments]');
  process.exit(2);
}
const name = path.basename(entry).replace(/\.[cm]?tsx?$/, '');
const outdir = path.join(BUNDLE_OPTIONS.absWorkingDir, 'dist', 'run', name);
const { build } = await import('esbuild');
const { metafile } = await build({
  ...BUNDLE_OPTIONS,
  entryPoints: { [name]: entry },
  outdir,
  sourcemap: 'linked',
  metafile: true,
});
// Chunks of earlier builds, once no program started from them can still be loading them.
const written = new Set(Object.keys(metafile.outputs).map((f) => path.basename(f)));
for (const f of fs.readdirSync(outdir)) {
  const file = path.join(outdir, f);
  if (!written.has(f) && Date.now() - fs.statSync(file).mtimeMs > 3_600_000) fs.rmSync(file);
}
process.setSourceMapsEnabled(true);
// The program sees its own arguments as if started directly.
process.argv = [process.argv[0], path.join(outdir, `${name}.mjs`), ...rest];
await import(pathToFileURL(path.join(outdir, `${name}.mjs`)).href);
