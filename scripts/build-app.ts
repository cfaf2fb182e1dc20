// Bundles the web application (src/app) into dist/app: one ES module and one stylesheet,
// minified, for the server to serve at /app. Run by `npm install` (prepare) and before the
// tests; `--check` fails when the JavaScript is over its gzipped budget.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist', 'app');
/** issue 14: first load ≤ 150 KB of JavaScript, gzipped. */
const BUDGET_GZIP = 150 * 1024;

const result = await build({
  absWorkingDir: root,
  entryPoints: { app: 'src/app/main.tsx' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2020',
  outdir,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
if (result.errors.length) process.exit(1);
const js = fs.readFileSync(path.join(outdir, 'app.js'));
const gz = gzipSync(js).length;
if (!process.argv.includes('--quiet'))
  console.log(
    `dist/app/app.js ${(js.length / 1024).toFixed(1)} KB (${(gz / 1024).toFixed(1)} KB gzipped)`,
  );
if (process.argv.includes('--check') && gz > BUDGET_GZIP) {
  console.error(`app.js is ${gz} bytes gzipped, over the budget of ${BUDGET_GZIP}`);
  process.exit(1);
}
