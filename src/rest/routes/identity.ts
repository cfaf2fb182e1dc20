// The browser sign-in at {site_url}/auth that sets the session cookie, and the answers for
// discovery and JWKS when the identity provider is external. With the built-in provider those
// documents are the OAuth server's (src/rest/oauth), which also reuses this page's look.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Engine } from '../../engine/engine.js';
import {
  ExternalLoginError,
  LOGIN_STATE_COOKIE,
  LOGIN_STATE_TTL_SECONDS,
  openLoginState,
  sealLoginState,
} from '../../engine/identity/external-login.js';
import { parseInput } from '../../engine/validate.js';
import { readCookie, SESSION_COOKIE } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import type { RouteDef } from '../../http/router.js';
import { guessOrRefuse, SIGN_IN_SCOPE } from '../../http/throttle.js';
import { html, type Html } from '../../shared/html.js';
import { renderPage, sendPage, type Page } from '../../web/page.js';

/** The OAuth server's own sign-in cookie (src/rest/oauth), ended with the browser session. */
export const OAUTH_SESSION_COOKIE = 'ursa_oauth_session';

const loginSchema = z.object({
  email: z.string().min(1).max(254),
  password: z.string().min(1).max(1000),
  next: z.string().optional(),
});

/** With an external provider these documents are the provider's, not ours. */
function externalIssuer(engine: { config: { auth: { issuer: string } } }): never {
  throw new HttpError(
    404,
    `the identity provider is external: see ${engine.config.auth.issuer}/.well-known/openid-configuration`,
    {
      issuer: engine.config.auth.issuer,
    },
  );
}

/** Where a browser goes after signing in when nothing else is asked: the app. */
export const APP_HOME = '/app';

/** Only same-site paths: an open redirect after sign-in would be a phishing tool. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.includes('\\')
    ? next
    : APP_HOME;
}

/**
 * An address inside the app (`/app` or below) for links that sign in on their own, such as a
 * password link: anything else, or a path that leaves /app once resolved, is `/app`.
 */
export function appNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.includes('\\')) return APP_HOME;
  try {
    const base = 'http://ursa.invalid';
    const u = new URL(next, base);
    const inApp = u.pathname === APP_HOME || u.pathname.startsWith(`${APP_HOME}/`);
    return u.origin === base && inApp ? `${u.pathname}${u.search}${u.hash}` : APP_HOME;
  } catch {
    return APP_HOME;
  }
}

function wantsJson(req: Request): boolean {
  return (
    (req.headers['content-type'] ?? '').includes('json') ||
    (req.headers.accept ?? '').startsWith('application/json')
  );
}

const AUTH_STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f3f5f8;color:#1d2330}
main{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 2px 12px #0002;width:min(24rem,92vw)}label{display:block;margin:.8rem 0 .2rem}
input{width:100%;padding:.5rem;font:inherit}button{margin-top:1.2rem;padding:.6rem 1.2rem;font:inherit;background:#1f5fbf;color:#fff;border:0;border-radius:4px}
button.secondary{background:#e4e7ec;color:#1d2330;margin-left:.5rem}.error{color:#b3261e}`;

/**
 * A small page in the sign-in look (also the OAuth sign-in, consent and error pages).
 * `formsLeaveSite`: its forms end at an OAuth client's redirect URI.
 */
export function authPage(
  title: string,
  inner: Html,
  opts: { formsLeaveSite?: boolean } = {},
): Page {
  return renderPage({
    title: `${title} · Ursa`,
    style: AUTH_STYLE,
    formsLeaveSite: opts.formsLeaveSite,
    body: html`<main>${inner}</main>`,
  });
}

function loginPage(res: Response, status: number, next: string, error?: string, email = ''): void {
  sendPage(
    res,
    status,
    authPage(
      'Sign in',
      html`<h1>Sign in to Ursa</h1>${error && html`<p class="error" role="alert">${error}</p>`}
<form method="post" action="/auth/login"><input type="hidden" name="next" value="${next}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"${!email && html` autofocus`}>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required${!!email && html` autofocus`}>
<button type="submit">Sign in</button></form>
<p><a href="/auth/password/forgot">Forgot your password?</a></p>`,
    ),
  );
}

function secureAttr(engine: Engine): string {
  return engine.config.siteUrl.startsWith('https:') ? '; Secure' : '';
}

/** The browser session's cookie: the one every sign-in sets (password, provider, password link). */
export function sessionCookie(engine: Engine, id: string): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${engine.config.auth.sessionTtlSeconds}${secureAttr(engine)}`;
}

const CLEAR_LOGIN_STATE = `${LOGIN_STATE_COOKIE}=; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=0`;

/** A sign-in at the external provider that failed: JSON in the error shape, or a page. */
function externalLoginFailed(req: Request, res: Response, err: unknown): void {
  if (!(err instanceof ExternalLoginError)) throw err;
  res.append('Set-Cookie', CLEAR_LOGIN_STATE);
  if (wantsJson(req)) throw new HttpError(err.status, err.message, {});
  sendPage(
    res,
    err.status,
    authPage(
      'Sign-in failed',
      html`<h1>Sign-in failed</h1><p class="error" role="alert">${err.message}</p>
<p><a href="/auth/login">Try again</a></p>`,
    ),
  );
}

export const identityRoutes: RouteDef[] = [
  {
    group: 'Identity',
    path: '/login',
    ops: {
      GET: {
        access: 'public',
        description:
          'Sign-in form (`next`: where to go after, else /app; `email`: prefilled); with an external identity provider and URSA_AUTH_CLIENT_ID, a redirect to its sign-in.',
        handler: async ({ engine, req, res }) => {
          const next = safeNext(typeof req.query.next === 'string' ? req.query.next : undefined);
          const external = engine.externalLogin();
          // An invitation's sign-in link names the address it was sent to.
          const email = typeof req.query.email === 'string' ? req.query.email.slice(0, 254) : '';
          if (!external) return loginPage(res, 200, next, undefined, email);
          try {
            const { url, state } = await external.start(next);
            res.setHeader(
              'Set-Cookie',
              `${LOGIN_STATE_COOKIE}=${sealLoginState(engine.oauthCookieKeys(), state)}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${LOGIN_STATE_TTL_SECONDS}${secureAttr(engine)}`,
            );
            res.setHeader('Cache-Control', 'no-store');
            res.redirect(303, url);
          } catch (err) {
            externalLoginFailed(req, res, err);
          }
        },
      },
      POST: {
        access: 'public',
        description: 'Check e-mail and password; set the session cookie and redirect to `next`.',
        handler: async ({ engine, req, res, body }) => {
          const input = parseInput(loginSchema, body ?? {}, 'sign-in');
          const next = safeNext(input.next);
          // Too many failures for this e-mail from this address, or from it at all: 429.
          const guess = await guessOrRefuse(engine, req, SIGN_IN_SCOPE, input.email.trim());
          const email = await engine.accounts.checkPassword(input.email, input.password);
          if (!email) {
            if (wantsJson(req)) throw new HttpError(401, 'wrong e-mail or password', {});
            return loginPage(res, 401, next, 'Wrong e-mail or password.', input.email);
          }
          await guess.succeeded();
          const session = await engine.startSession(email);
          res.setHeader('Set-Cookie', sessionCookie(engine, session.id));
          if (wantsJson(req))
            res.status(200).json({ user: email, expires: session.expires.toISOString() });
          else res.redirect(303, next);
        },
      },
    },
  },
  {
    group: 'Identity',
    path: '/callback',
    ops: {
      GET: {
        access: 'public',
        description:
          'Where the external identity provider returns after sign-in: checks `state`, exchanges `code`, verifies the ID token, sets the session cookie and redirects to `next`.',
        handler: async ({ engine, req, res }) => {
          const external = engine.externalLogin();
          if (!external)
            throw new HttpError(
              404,
              'browser sign-in through an external identity provider is not configured',
              {},
            );
          const q = (k: string) => (typeof req.query[k] === 'string' ? req.query[k] : undefined);
          try {
            const st = openLoginState(
              engine.oauthCookieKeys(),
              readCookie(req, LOGIN_STATE_COOKIE),
            );
            if (!st)
              throw new ExternalLoginError(
                400,
                'no sign-in is in progress in this browser (or it took over 10 minutes): start again',
              );
            if (q('state') !== st.state)
              throw new ExternalLoginError(400, 'the state does not match this sign-in');
            const error = q('error');
            if (error)
              throw new ExternalLoginError(
                401,
                `the identity provider refused the sign-in: ${error}${q('error_description') ? `: ${q('error_description')}` : ''}`,
              );
            const code = q('code');
            if (!code) throw new ExternalLoginError(400, 'the provider returned no code');
            const email = await external.finish(code, st);
            const session = await engine.startSession(email);
            res.setHeader('Set-Cookie', [sessionCookie(engine, session.id), CLEAR_LOGIN_STATE]);
            res.setHeader('Cache-Control', 'no-store');
            res.redirect(303, safeNext(st.next));
          } catch (err) {
            externalLoginFailed(req, res, err);
          }
        },
      },
    },
  },
  {
    group: 'Identity',
    path: '/logout',
    ops: {
      POST: {
        access: 'public',
        description: 'End the browser session.',
        handler: async ({ engine, req, res }) => {
          const sid = readCookie(req, SESSION_COOKIE);
          if (sid) await engine.endSession(sid);
          res.setHeader('Set-Cookie', [
            `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
            // Signing out of Ursa signs out of the OAuth server's sign-in too.
            `${OAUTH_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
            `${OAUTH_SESSION_COOKIE}.sig=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
          ]);
          if (wantsJson(req)) res.status(204).end();
          // With an external provider, /auth/login would go straight back to it (and it may
          // sign the person in again at once): the site's home page instead.
          else res.redirect(303, engine.config.auth.clientId ? '/' : '/auth/login');
        },
      },
    },
  },
];

/** Mounted only with an external identity provider: its documents are not ours to serve. */
export const externalIssuerRoutes: RouteDef[] = [
  {
    group: 'Identity',
    path: '/.well-known/openid-configuration',
    ops: {
      GET: {
        access: 'public',
        description: 'Answers 404 naming the external identity provider.',
        handler: ({ engine }) => externalIssuer(engine),
      },
    },
  },
  {
    group: 'Identity',
    path: '/jwks',
    ops: {
      GET: {
        access: 'public',
        description: 'Answers 404 naming the external identity provider.',
        handler: ({ engine }) => externalIssuer(engine),
      },
    },
  },
];
