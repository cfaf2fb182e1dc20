// Who is calling: a bearer token from the Authorization header (never from the query), or
// the browser session cookie. Errors follow RFC 6750.
import type { Request } from 'express';
import type { Principal } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import { TokenError } from '../engine/identity/tokens.js';
import { HttpError } from './errors.js';
import { API_RESOURCE_METADATA_PATH, API_SCOPE } from './oauth-resources.js';

export const SESSION_COOKIE = 'ursa_session';
const REALM = 'ursa';

export type AuthedRequest = Request & {
  principal?: Principal | null;
  authVia?: 'bearer' | 'session';
};

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const raw = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw; // malformed %-escapes: an unknown session, not a server error
      }
    }
  }
  return undefined;
}

/**
 * `WWW-Authenticate` of the API: where its protected-resource metadata is (RFC 9728) and, with
 * the built-in provider, the scope to ask for; error and description only when a token was sent.
 */
export function challenge(engine: Engine, extra?: { error: string; description: string }): string {
  const { siteUrl, auth } = engine.config;
  const scope = auth.builtin ? `, scope="${API_SCOPE}"` : '';
  const base = `Bearer realm="${REALM}", resource_metadata="${siteUrl}${API_RESOURCE_METADATA_PATH}"${scope}`;
  if (!extra) return base;
  return `${base}, error="${extra.error}", error_description="${extra.description.replace(/["\\]/g, "'")}"`;
}

/** Identifies the caller, or null when the request carries no credentials at all. */
export async function identify(engine: Engine, req: AuthedRequest): Promise<Principal | null> {
  if (req.principal !== undefined) return req.principal;
  const header = req.headers.authorization;
  if (header !== undefined) {
    const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
    if (!m) {
      throw new HttpError(
        401,
        'the Authorization header must be "Bearer <access token>"',
        { error: 'invalid_request' },
        {
          'WWW-Authenticate': challenge(engine, {
            error: 'invalid_request',
            description: 'expected a Bearer token',
          }),
        },
      );
    }
    try {
      const v = await engine.verifier.verify(m[1]!);
      req.authVia = 'bearer';
      return (req.principal = { email: v.email });
    } catch (err) {
      if (err instanceof TokenError) {
        throw new HttpError(
          401,
          err.message,
          { error: err.rfc6750 },
          {
            'WWW-Authenticate': challenge(engine, { error: err.rfc6750, description: err.message }),
          },
        );
      }
      throw err;
    }
  }
  const sid = readCookie(req, SESSION_COOKIE);
  const email = sid ? await engine.sessionUser(sid) : null;
  if (email) {
    req.authVia = 'session';
    return (req.principal = { email });
  }
  return (req.principal = null);
}

export async function requirePrincipal(engine: Engine, req: AuthedRequest): Promise<Principal> {
  const p = await identify(engine, req);
  if (!p) {
    throw new HttpError(
      401,
      'authentication required: send "Authorization: Bearer <access token>" or sign in at /auth/login',
      {},
      {
        'WWW-Authenticate': challenge(engine),
      },
    );
  }
  return p;
}
