// Where Ursa is installed: the folder of its package.json, found by walking up from this
// module. The server runs from its sources (src/…) or from the bundle bin/ursa.mjs builds
// (dist/server/…), so a path counted in `../` from a module would differ between the two.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const INSTALL_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A path inside the installation: `installed('drizzle')`. */
export const installed = (...parts: string[]): string => path.join(INSTALL_ROOT, ...parts);
