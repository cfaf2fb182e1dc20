// The project's embedding settings (`PUT /projects/{p}`): `dashboardEmbedding` allows public
// shares; `embedOrigins` lists the origins (`scheme://host[:port]`) whose pages may frame them,
// written into `Content-Security-Policy: frame-ancestors`. An origin is checked strictly (no
// path, query, user name, wildcard or spaces), so nothing else can enter the header.
import { z } from 'zod';

export const MAX_EMBED_ORIGINS = 50;

const ORIGIN_HINT = 'an origin is scheme://host[:port], e.g. https://intranet.example.com';

/** One origin as written, checked and normalized (lowercase host, default port dropped). */
export const embedOrigin = z
  .string({ error: `each origin is a string; ${ORIGIN_HINT}` })
  .max(300, 'an origin is at most 300 characters')
  .transform((raw, ctx) => {
    const bad = (why: string) => {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not an origin: ${why}; ${ORIGIN_HINT}`,
      });
      return z.NEVER;
    };
    // Only what an origin can hold: no spaces, quotes, `;` or `,` ever reach the header.
    if (!/^[a-z][a-z0-9+.-]*:\/\/[a-z0-9.\-[\]:]+$/i.test(raw))
      return bad('only a scheme, a host and a port, without a path');
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return bad('it does not parse');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return bad('use http or https');
    if (!url.hostname) return bad('it has no host');
    return url.origin;
  });

/**
 * `embedOrigins` of the project update body: a list (`[]` or `null` clears). Nullable rather
 * than a union, so what is wrong with a list is told, not zod's "Invalid input".
 */
export const embedOriginsField = z
  .array(embedOrigin, { error: `must be a list of origins, or null to clear; ${ORIGIN_HINT}` })
  .max(MAX_EMBED_ORIGINS, `at most ${MAX_EMBED_ORIGINS} origins`)
  .transform((list) => [...new Set(list)])
  .nullable();

/** The origins as stored: null when none is set. */
export const storedEmbedOrigins = (list: string[] | null): string[] | null =>
  list && list.length ? list : null;
