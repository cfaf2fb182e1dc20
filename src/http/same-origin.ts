// Browsers attach cookies to requests other sites make, so a request that a cookie
// authenticates, or one that sets a cookie (signing in), may change something only when it
// comes from a page of this site. This is the one check for all of them: the route table's
// writes (the API, /auth/login, /auth/logout, the password forms) and the OAuth server's
// form posts. Bearer and Basic credentials are never sent by a browser on its own, and
// WebDAV never takes the cookie for a change, so neither needs it.
import type { Request } from 'express';
import type { Engine } from '../engine/engine.js';
import { HttpError } from './errors.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A method that may change state (anything but GET, HEAD, OPTIONS). */
export const changesState = (method: string): boolean => !SAFE_METHODS.has(method.toUpperCase());

/**
 * 403 unless the browser says the request comes from this site. What counts as this site:
 * the scheme of `URSA_SITE_URL` (behind a TLS proxy the connection itself is plain HTTP) with
 * its host, or with the Host the request was sent to (the same server reached by another
 * name, such as 127.0.0.1 for localhost). A request with neither `Origin` nor
 * `Sec-Fetch-Site` is not a browser's, and passes.
 */
export function refuseCrossSite(engine: Engine, req: Request): void {
  const fetchSite = header(req, 'sec-fetch-site');
  const origin = header(req, 'origin');
  // `same-site` is a sibling host (another app under the same domain): not us either.
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none')
    throw refused(`the browser sent it from another site (Sec-Fetch-Site: ${fetchSite})`, {
      header: 'Sec-Fetch-Site',
      secFetchSite: fetchSite,
    });
  if (origin === undefined) return;
  // Our own pages that send `Referrer-Policy: no-referrer` (the password pages) post with
  // `Origin: null`; the browser's Sec-Fetch-Site still says whose page it was.
  if (origin === 'null' && fetchSite === 'same-origin') return;
  const own = ownOrigins(engine, req);
  if (!own.includes(origin))
    throw refused(`Origin ${origin} is not this site (${own[0]})`, {
      header: 'Origin',
      origin,
      site: own[0],
    });
}

/** The origins of this site's pages as this request may have come from them. */
function ownOrigins(engine: Engine, req: Request): string[] {
  const site = new URL(engine.config.siteUrl);
  const own = [site.origin];
  const host = header(req, 'host');
  if (host) {
    try {
      own.push(new URL(`${site.protocol}//${host}`).origin);
    } catch {
      // A Host that is no host name matches nothing.
    }
  }
  return own;
}

function header(req: Request, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === 'string' ? v.trim() : undefined;
}

function refused(why: string, context: Record<string, unknown>): HttpError {
  return new HttpError(
    403,
    `cross-site request refused: ${why}; a browser may sign in or change anything only from this site's own pages (integrations: send no Origin, or use a bearer token)`,
    context,
  );
}
