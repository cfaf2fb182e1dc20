// How input.http sends credentials: an Authorization header or an API key, never in messages.
import { BoxError } from '../../errors.js';
import { HEADER_VALUE } from '../http-headers.js';
import type { Credentials } from '../types.js';
import type { HttpInput } from './input.js';

// ---------------------------------------------------------------------------------------
// Credentials

/** How a request carries the credentials: an Authorization header, or an API key. */
export interface Authorization {
  header: string | null;
  /** The API key in the header or query parameter the credentials name. */
  key: { in: 'header' | 'query'; name: string; value: string } | null;
  /** Every form of the secret, taken out of messages. */
  secrets: string[];
}

export function authorizationOf(
  input: HttpInput,
  cred: Credentials | null,
  box: string,
): Authorization {
  if (!cred) {
    if (input.auth) {
      throw new BoxError(box, 'credentials', `auth "${input.auth}" needs credentials of kind http`);
    }
    return { header: null, key: null, secrets: [] };
  }
  if (cred.kind !== 'http') {
    throw new BoxError(
      box,
      'credentials',
      `credentials "${cred.ident}" are of kind ${cred.kind}; input.http needs kind http`,
    );
  }
  const secret = cred.secret;
  if (!secret) throw new BoxError(box, 'credentials', `credentials "${cred.ident}" have no secret`);
  const headerSafe = (what: string) => {
    if (!HEADER_VALUE.test(secret) || secret.trim() !== secret) {
      throw new BoxError(
        box,
        'credentials',
        `the secret of credentials "${cred.ident}" is not a valid ${what} ` +
          '(line breaks, control characters or surrounding spaces)',
      );
    }
  };
  if (cred.apiKey) {
    if (input.auth) throw new BoxError(box, 'auth', apiKeyAuthConflict(cred.ident, cred.apiKey));
    if (cred.apiKey.in === 'header') headerSafe('header value');
    return { header: null, key: { ...cred.apiKey, value: secret }, secrets: [secret] };
  }
  if ((input.auth ?? 'bearer') === 'bearer') {
    headerSafe('bearer token');
    return { header: `Bearer ${secret}`, key: null, secrets: [secret] };
  }
  let user: string;
  let password: string;
  const colon = secret.indexOf(':');
  if (colon >= 0) {
    user = secret.slice(0, colon);
    password = secret.slice(colon + 1);
  } else if (cred.user) {
    user = cred.user;
    password = secret;
  } else {
    throw new BoxError(
      box,
      'credentials',
      `auth "basic" needs the secret of credentials "${cred.ident}" to be user:password`,
    );
  }
  const token = Buffer.from(`${user}:${password}`, 'utf8').toString('base64');
  const secrets = [secret, `${user}:${password}`, token, password].filter((s) => s.length > 0);
  return { header: `Basic ${token}`, key: null, secrets };
}

/** Credentials that carry an API key decide how it is sent: a box's `auth` would be ignored. */
export function apiKeyAuthConflict(ident: string, apiKey: { in: string; name: string }): string {
  return `credentials "${ident}" send their secret as an API key (${apiKey.in} "${apiKey.name}"); leave auth out`;
}

/** The port a URL connects to. */
export const portOf = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));
