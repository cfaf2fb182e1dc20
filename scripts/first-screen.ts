// The first screen's JavaScript in dist/app: app.js and the chunks it imports statically
// (`import … from "./chunk-….js"`), not those it loads on demand (`import("./chunk-….js")`).
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { staticImports } from '../src/shared/static-imports.js';

/** The files, by name, and their total size, plain and gzipped (each file on its own). */
export function firstScreen(dir: string): { files: Set<string>; bytes: number; gzipped: number } {
  const files = new Set<string>();
  let bytes = 0;
  let gzipped = 0;
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const code = fs.readFileSync(path.join(dir, file));
    bytes += code.length;
    gzipped += gzipSync(code).length;
    for (const f of staticImports(code.toString('utf8'))) visit(f);
  };
  visit('app.js');
  return { files, bytes, gzipped };
}
