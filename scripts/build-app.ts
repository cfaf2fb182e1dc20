// Bundles the web application (src/app) into dist/app: the first screen's ES module (app.js),
// its stylesheet, and chunks loaded on demand (`import()`: the charts, chunk-<hash>.js), minified,
// for the server to serve at /app. Run by `npm install` (prepare) and before the tests;
// `--check` fails when app.js (what the first screen loads) is over its gzipped budget.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { firstScreen } from './first-screen.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'app');
/** issue 14: first load ≤ 150 KB of JavaScript, gzipped. */
const BUDGET_GZIP = 150 * 1024;

// Chunks of an earlier build would be served (and counted) beside the new ones.
for (const f of fs.existsSync(outdir) ? fs.readdirSync(outdir) : [])
  if (/^chunk-.*\.js$/.test(f)) fs.rmSync(path.join(outdir, f));
const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/app/main.tsx' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  outdir,
  // Dynamic imports become their own chunks, named by content (cached for a year).
  splitting: true,
  chunkNames: 'chunk-[hash]',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
if (result.errors.length) process.exit(1);
const { files: first, bytes, gzipped: gz } = firstScreen(outdir);
if (!process.argv.includes('--quiet')) {
  console.log(
    `first screen (app.js and its static chunks) ${(bytes / 1024).toFixed(1)} KB (${(gz / 1024).toFixed(1)} KB gzipped)`,
  );
  for (const f of fs.readdirSync(outdir).filter((n) => n.startsWith('chunk-') && !first.has(n))) {
    const c = fs.readFileSync(path.join(outdir, f));
    console.log(
      `dist/app/${f} ${(c.length / 1024).toFixed(1)} KB (${(gzipSync(c).length / 1024).toFixed(1)} KB gzipped, loaded on demand)`,
    );
  }
}
if (process.argv.includes('--check') && gz > BUDGET_GZIP) {
  console.error(
    `the first screen's JavaScript is ${gz} bytes gzipped, over the budget of ${BUDGET_GZIP}`,
  );
  process.exit(1);
}
