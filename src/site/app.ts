// The web application at /app: one HTML shell for every address under /app (the app routes
// in the browser), and its bundle (dist/app, built by `npm install` from src/app). The app
// talks to /api/v1 only; its page allows scripts and styles from this origin, images from
// here and data: (charts), and requests to this origin, nothing else.
import fs from 'node:fs';
import path from 'node:path';
import { unavailable } from '../engine/errors.js';
import type { Ctx } from '../http/router.js';
import { LOGO_PATH } from './assets.js';
import { prepare, sendPrepared, type Prepared } from './send.js';
import { installed } from '../shared/install-root.js';
import { staticImports } from '../shared/static-imports.js';

const DIST = installed('dist', 'app');
const TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The bundle's files, read once; a missing build is a clear 503, not a blank page. */
let files: Map<string, Prepared> | null = null;
function bundle(): Map<string, Prepared> {
  if (files) return files;
  const out = new Map<string, Prepared>();
  // Chunks the app imports on demand (charts): named by content, so cached like the rest.
  const chunks = fs.existsSync(DIST)
    ? fs.readdirSync(DIST).filter((n) => /^chunk-[\w-]+\.js$/.test(n))
    : [];
  for (const c of chunks)
    out.set(
      c,
      prepare(TYPES['app.js']!, fs.readFileSync(path.join(DIST, c), 'utf8'), {
        maxAge: 31_536_000,
      }),
    );
  for (const [name, type] of Object.entries(TYPES)) {
    const file = path.join(DIST, name);
    if (!fs.existsSync(file))
      throw unavailable(
        `the web application is not built (${file} is missing): run npm install, or npx tsx scripts/build-app.ts`,
      );
    // Each file's address carries its content hash, so browsers may keep it for a year.
    out.set(name, prepare(type, fs.readFileSync(file, 'utf8'), { maxAge: 31_536_000 }));
  }
  // The chunks app.js imports statically, asked for beside it rather than after it is read.
  const preload = new Set<string>();
  const visit = (name: string) => {
    for (const c of staticImports(out.get(name)?.body ?? ''))
      if (!preload.has(c) && out.has(c)) {
        preload.add(c);
        visit(c);
      }
  };
  visit('app.js');
  const shell = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ursa</title>
<link rel="icon" href="${LOGO_PATH}" type="image/svg+xml">
<link rel="stylesheet" href="/app/assets/app.css?v=${tag(out.get('app.css')!)}">
<script type="module" src="/app/assets/app.js?v=${tag(out.get('app.js')!)}"></script>
${[...preload].map((c) => `<link rel="modulepreload" href="/app/assets/${c}">\n`).join('')}
</head>
<body>
<div id="app"></div>
<noscript><p>The Ursa web application needs JavaScript. The API is at <a href="/api/v1">/api/v1</a>.</p></noscript>
</body>
</html>
`;
  out.set(
    'shell',
    prepare('text/html; charset=utf-8', shell, {
      maxAge: 0,
      headers: { 'Content-Security-Policy': CSP, 'Referrer-Policy': 'same-origin' },
    }),
  );
  files = out;
  return out;
}

const tag = (p: Prepared) => p.etag.replace(/"/g, '').slice(0, 12);

export function appShell({ req, res }: Ctx): void {
  sendPrepared(req, res, bundle().get('shell')!);
}

export function appAsset({ req, res, params }: Ctx): boolean {
  const p = bundle().get(params.file!);
  if (!p || params.file === 'shell') return false;
  sendPrepared(req, res, p);
  return true;
}
