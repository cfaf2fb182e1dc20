// The project storage files an input.storage box with `glob: true` reads: its path is a
// picomatch pattern (the same globs as flowWebdavFilechange triggers). The folder before the
// first glob character is listed, its subfolders only as deep as the pattern reaches (all of
// them with `**`). Without `glob: true` a path names one file, whatever characters it holds.
import picomatch from 'picomatch';
import { EngineError } from '../errors.js';
import type { Storage } from '../storage/storage.js';
import { BoxError } from './errors.js';

/** A listing stops (with an error) beyond this many entries. */
const MAX_ENTRIES = 100_000;
const MAX_DEPTH = 64;

/** The storage paths matching `pattern`, sorted; none → a BoxError on `path`. */
export async function storageGlob(
  storage: Storage,
  projectId: string,
  pattern: string,
  box: string,
): Promise<string[]> {
  const scan = picomatch.scan(pattern);
  if (scan.negated) throw new BoxError(box, 'path', `"${pattern}" is not a usable file pattern`);
  if (!scan.isGlob) return [pattern]; // one file, read (or missed) as a literal path is
  const isMatch = picomatch(pattern, { dot: true });
  const base = scan.base === '' ? '/' : scan.base;
  const maxDepth = scan.glob.includes('**')
    ? MAX_DEPTH
    : Math.min(MAX_DEPTH, scan.glob.split('/').length - 1);
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const listing = await storage.list(projectId, dir).catch((err: unknown) => {
      if (err instanceof EngineError && err.kind === 'not_found') return null; // gone meanwhile
      throw err;
    });
    if (!listing || listing.item.type !== 'folder') return;
    seen += listing.children.length;
    if (seen > MAX_ENTRIES)
      throw new BoxError(
        box,
        'path',
        `"${pattern}" reaches more than ${MAX_ENTRIES} entries: narrow it`,
      );
    for (const c of listing.children) {
      if (c.type === 'file' && isMatch(c.path)) found.push(c.path);
      else if (c.type === 'folder' && depth < maxDepth) await walk(c.path, depth + 1);
    }
  };
  await walk(base, 0);
  if (!found.length)
    throw new BoxError(box, 'path', `no file in project storage matches "${pattern}"`);
  return found.sort();
}
