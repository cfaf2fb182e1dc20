// WebDAV URLs <-> storage paths. The request path is decoded here one segment at a time, so
// an encoded "/" (`..%2f`) or NUL can never become a separator or reach the file system; the
// storage layer's normalizeStoragePath then refuses "..", "." and control characters.
import type { Request } from 'express';
import { API_PREFIX, apiHref, webdavPath } from '../contract/urls.js';
import { invalid } from '../engine/errors.js';
import { normalizeStoragePath } from '../engine/storage/paths.js';
import { findUnstorableInPath } from '../shared/storable-text.js';
import { HttpError } from '../http/errors.js';
import { unstorableError } from '../http/storable.js';

/** URL path of a project's WebDAV root (no trailing slash). */
export function davRoot(project: string): string {
  return apiHref(webdavPath(project));
}

/** The href of a storage path; collections end with "/". */
export function hrefOf(project: string, path: string, folder: boolean): string {
  const encoded = path
    .split('/')
    .filter(Boolean)
    .map((s) => encodeURIComponent(s))
    .join('/');
  const tail = encoded === '' ? '/' : `/${encoded}${folder ? '/' : ''}`;
  return `${davRoot(project)}${tail}`;
}

function decodeSegments(raw: string): string[] {
  const out: string[] = [];
  for (const seg of raw.split('/')) {
    if (seg === '') continue;
    let s: string;
    try {
      s = decodeURIComponent(seg);
    } catch {
      throw invalid(`invalid WebDAV path: "${seg.slice(0, 100)}" is not valid percent-encoding`);
    }
    if (s.includes('/') || s.includes('\\') || s.includes('\0'))
      throw invalid('invalid WebDAV path: encoded "/", "\\" or NUL are not allowed', {
        segment: seg.slice(0, 100),
      });
    out.push(s);
  }
  return out;
}

/** The storage path addressed by the part of the URL below the WebDAV root (still encoded). */
export function storagePathOf(rawTail: string): string {
  const q = rawTail.indexOf('?');
  const tail = q < 0 ? rawTail : rawTail.slice(0, q);
  // A fragment never belongs in a request target; acting on the part before it could delete
  // a parent collection by mistake.
  if (tail.includes('#')) throw invalid('invalid WebDAV path: "#" must be percent-encoded');
  return normalizeStoragePath(`/${decodeSegments(tail).join('/')}`);
}

/** Hosts that name this server for a request: the Host header and the configured site. */
function isOurHost(req: Request, host: string, siteUrl: string): boolean {
  const h = host.toLowerCase();
  const forwarded = req.headers['x-forwarded-host'];
  const candidates = [req.headers.host, typeof forwarded === 'string' ? forwarded : undefined];
  try {
    candidates.push(new URL(siteUrl).host);
  } catch {
    // an unparsable site URL names no host
  }
  return candidates.some((c) => c?.toLowerCase() === h);
}

/**
 * The storage path a URL (absolute, or an absolute path) names inside this project's WebDAV
 * root; null when it names something else (another server, project or API resource).
 */
export function storagePathOfUrl(
  url: string,
  req: Request,
  project: string,
  siteUrl: string,
): string | null {
  let rawPath = url;
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(url);
  if (m) {
    if (!/^https?$/i.test(m[1]!) || !isOurHost(req, m[2]!, siteUrl)) return null;
    rawPath = m[3] || '/';
  }
  if (!rawPath.startsWith('/'))
    throw invalid(`"${url.slice(0, 200)}" is not a URL or an absolute path`);
  rawPath = rawPath.replace(/[?#].*$/s, '');
  const segments = decodeSegments(rawPath);
  const root = [...API_PREFIX.split('/').filter(Boolean), 'projects', project, 'webdav'];
  if (root.some((s, i) => segments[i] !== s)) return null;
  return normalizeStoragePath(`/${segments.slice(root.length).join('/')}`);
}

/** The Destination header of COPY/MOVE as a storage path in this project. */
export function destinationOf(req: Request, project: string, siteUrl: string): string {
  const dest = req.headers.destination;
  if (typeof dest !== 'string' || dest === '')
    throw new HttpError(400, 'COPY and MOVE need a Destination header');
  const unstorable = findUnstorableInPath(dest.replace(/[?#].*$/s, ''), 'Destination');
  if (unstorable) throw unstorableError(unstorable);
  const p = storagePathOfUrl(dest, req, project, siteUrl);
  if (p === null)
    throw new HttpError(
      502,
      `the Destination "${dest.slice(0, 200)}" is outside this project's WebDAV root ${davRoot(project)}/`,
      { destination: dest.slice(0, 200) },
    );
  return p;
}
