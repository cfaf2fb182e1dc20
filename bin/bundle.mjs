// Builds the server (src/cli.ts and what it imports, node_modules included) into
// dist/server with esbuild, and rebuilds only when one of its inputs changed. Why: Node
// resolves and loads ~2,300 modules one by one (each resolution reads its package scope), which
// cost ~3 s of CPU at every start under tsx; the bundle starts in about a third of that.
// Plain JavaScript, so that starting needs no TypeScript loader.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT = path.join(ROOT, 'dist', 'server');
export const ENTRY = path.join(OUT, 'cli.mjs');
const INPUTS = path.join(OUT, 'inputs.json');

/** Native addons and packages that find files next to themselves stay in node_modules. */
const EXTERNAL = [
  'esbuild',
  'better-sqlite3',
  '@duckdb/*',
  '@resvg/*',
  'playwright-core',
  'ssh2',
  'cpu-features',
  'pg-native',
  'libpg-query', // loads its WebAssembly file from its own folder
];

/** True when the bundle in `out` exists and no input changed since it was built. */
export function bundleIsFresh(out = OUT) {
  let record;
  try {
    record = JSON.parse(fs.readFileSync(path.join(out, 'inputs.json'), 'utf8'));
  } catch {
    return false;
  }
  if (!fs.existsSync(path.join(out, 'cli.mjs'))) return false;
  for (const f of record.inputs) {
    let st;
    try {
      st = fs.statSync(path.join(ROOT, f));
    } catch {
      return false; // gone: its importer changed too, or the tree moved
    }
    if (st.mtimeMs > record.built) return false;
  }
  return true;
}

/** Writes a file whole or not at all: a process starting beside a build never reads half. */
function writeAtomic(file, contents) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

/** How every bundle is built: ES modules for Node 24, split where code loads on first use. */
export const BUNDLE_OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  splitting: true, // what loads on first use (AI SDKs, PDF) stays in its own chunk
  platform: 'node',
  format: 'esm',
  target: 'node24',
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  external: EXTERNAL,
  // Node warns when code outside node_modules loads its deprecated punycode (whatwg-url
  // does, for vega): in the bundle that code is outside, so it gets the package instead.
  alias: { punycode: 'punycode/' },
  // CommonJS packages inside the bundle call require() for Node's own modules.
  banner: {
    js: "import { createRequire as __ursaRequire } from 'node:module'; const require = __ursaRequire(import.meta.url);",
  },
  // A program that builds the server's bundle (the cluster scripts) imports this file as it
  // is: its paths are relative to bin/.
  plugins: [
    {
      name: 'bundler-stays-outside',
      setup(build) {
        build.onResolve({ filter: /\/bin\/bundle\.mjs$/ }, (args) => ({
          path: path.join(args.resolveDir, args.path),
          external: true,
        }));
      },
    },
  ],
  logLevel: 'error',
};

export async function buildBundle() {
  const { build } = await import('esbuild');
  const built = Date.now();
  const result = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: { cli: 'src/cli.ts' },
    outdir: OUT,
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    write: false,
  });
  fs.mkdirSync(OUT, { recursive: true });
  const written = new Set();
  // Chunks first, the entry after them, the record of inputs last.
  const files = [...result.outputFiles].sort(
    (a, b) => Number(a.path === ENTRY) - Number(b.path === ENTRY),
  );
  for (const f of files) {
    writeAtomic(f.path, f.contents);
    written.add(path.basename(f.path));
  }
  // Packages change only through npm, which rewrites its record of node_modules.
  const inputs = [
    ...Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('node_modules/')),
    'node_modules/.package-lock.json',
    path.relative(ROOT, fileURLToPath(import.meta.url)),
  ];
  writeAtomic(INPUTS, JSON.stringify({ built, inputs }));
  written.add(path.basename(INPUTS));
  // Chunks of earlier builds: gone once nothing could still be starting from them.
  for (const name of fs.readdirSync(OUT)) {
    if (written.has(name)) continue;
    const file = path.join(OUT, name);
    if (Date.now() - fs.statSync(file).mtimeMs > 10 * 60_000) fs.rmSync(file, { force: true });
  }
}

export async function ensureBundle() {
  if (!bundleIsFresh()) await buildBundle();
}

// `node bin/bundle.mjs` (npm install's prepare, CI): build now if anything changed.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await ensureBundle();
