// Which URLs `app/export/url` takes: pages of this Ursa site only, named by an absolute URL
// on the site's own origin (scheme, host spelled the same, port) or by a path. Everything else
// (other hosts and ports, `localhost` for `127.0.0.1`, file:, data:, javascript:, user names,
// backslashes, over-long URLs) is refused with a 400 naming `url`. Chromium never loads the
// URL: the page is computed by us, as the caller, and printed offline.
import { API_PREFIX } from '../config.js';
import { invalid } from '../errors.js';

export const MAX_URL_CHARS = 2048;

const refuse = (message: string, extra: Record<string, unknown> = {}) =>
  invalid(message, { field: 'url', ...extra });

/**
 * The URL of this site that `raw` names: an absolute URL on `siteUrl`'s origin, or a path
 * starting with one `/` (resolved against `siteUrl`).
 */
export function exportableSiteUrl(raw: unknown, siteUrl: string): URL {
  const site = new URL(siteUrl);
  const where = `an address on ${site.origin} or a path starting with /`;
  if (typeof raw !== 'string') throw refuse(`url must be a string: ${where}`);
  if (raw.length === 0) throw refuse(`url is empty: give ${where}`);
  if (raw.length > MAX_URL_CHARS)
    throw refuse(`url is ${raw.length} characters long; at most ${MAX_URL_CHARS}`, {
      max: MAX_URL_CHARS,
    });
  // URL parsers disagree on these (a backslash is a slash to WHATWG, tabs and newlines are
  // dropped): refusing them leaves one reading of the text.
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u0020\u007f]/.test(raw))
    throw refuse('url must not contain backslashes, spaces or control characters');
  let url: URL;
  if (raw.startsWith('/')) {
    if (raw.startsWith('//'))
      throw refuse(`url starting with // names another host; give ${where}`);
    url = new URL(raw, site);
  } else {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(raw)) throw refuse(`url must be ${where}`);
    try {
      url = new URL(raw);
    } catch {
      throw refuse(`url is not a valid URL; give ${where}`);
    }
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(raw))
    throw refuse('url must not carry a user name or password');
  if (url.origin !== site.origin)
    throw refuse(
      `url must be a page of this site (${site.origin}); ${url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : `a ${url.protocol} URL`} is not`,
      { site: site.origin },
    );
  for (const segment of url.pathname.split('/')) {
    try {
      decodeURIComponent(segment);
    } catch {
      throw refuse('url has a malformed percent-encoding in its path');
    }
  }
  return url;
}

/** The project an API URL of this site names (`/api/v1/projects/{project}/…`), else null. */
export function projectOfUrl(url: URL): string | null {
  const m = new RegExp(`^${API_PREFIX}/projects/([^/]+)(?:/|$)`).exec(url.pathname);
  return m ? decodeURIComponent(m[1]!) : null;
}
