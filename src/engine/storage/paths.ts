// Storage paths: always absolute, normalized, inside the project's folder. Anything that
// could escape it (.., NUL, backslashes, encoded separators or dots) is refused, never
// followed.
import { invalid } from '../errors.js';

const MAX_PATH = 4096;
const MAX_NAME_BYTES = 255;
// Encoded ".", "/", "\" or NUL left after the router decoded the URL once: a double-encoding
// attempt to smuggle a traversal past a check.
const ENCODED_ESCAPE = /%(2e|2f|5c|00)/i;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Canonical form of a storage path: `/`, or `/a/b` with no trailing slash. */
export function normalizeStoragePath(raw: string): string {
  const fail = (why: string) =>
    invalid(`invalid storage path "${raw.slice(0, 300)}": ${why}`, { path: raw.slice(0, 300) });
  if (typeof raw !== 'string') throw fail('not a string');
  if (raw.length > MAX_PATH) throw fail(`longer than ${MAX_PATH} characters`);
  if (raw.includes('\0') || CONTROL.test(raw)) throw fail('control characters are not allowed');
  if (raw.includes('\\')) throw fail('backslashes are not allowed');
  if (ENCODED_ESCAPE.test(raw)) throw fail('encoded ".", "/", "\\" or NUL are not allowed');
  const segments: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '') continue;
    if (seg === '.' || seg === '..') throw fail('"." and ".." segments are not allowed');
    if (Buffer.byteLength(seg) > MAX_NAME_BYTES)
      throw fail(`a name is longer than ${MAX_NAME_BYTES} bytes`);
    segments.push(seg);
  }
  return `/${segments.join('/')}`;
}

export function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

export function nameOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** True when `p` is `dir` itself or inside it. */
export function isWithin(p: string, dir: string): boolean {
  return dir === '/' || p === dir || p.startsWith(`${dir}/`);
}

/** fileId = base64url of `<name>|<parentPath>` (API-DECISIONS "Storage"). */
export function fileIdOf(p: string): string {
  if (p === '/') return Buffer.from('|/').toString('base64url');
  return Buffer.from(`${nameOf(p)}|${parentOf(p)}`).toString('base64url');
}

/** The path a fileId names; accepts padded or unpadded base64url (and plain base64). */
export function pathOfFileId(fileId: string): string {
  const fail = () =>
    invalid(`"${fileId.slice(0, 100)}" is not a fileId (base64url of "<name>|<parentPath>")`, {
      fileId: fileId.slice(0, 100),
    });
  if (!/^[A-Za-z0-9_\-+/]+={0,2}$/.test(fileId)) throw fail();
  const text = Buffer.from(fileId.replace(/\+/g, '-').replace(/\//g, '_'), 'base64url').toString(
    'utf8',
  );
  // Names cannot hold "/", so the first "|/" is the separator even when names hold "|".
  const bar = text.indexOf('|/');
  if (bar < 0) throw fail();
  const name = text.slice(0, bar);
  const parent = text.slice(bar + 1);
  if (!parent.startsWith('/') || name.includes('/')) throw fail();
  if (name === '' && parent === '/') return '/';
  if (name === '') throw fail();
  return normalizeStoragePath(joinPath(normalizeStoragePath(parent), name));
}
