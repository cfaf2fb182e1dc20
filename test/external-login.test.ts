// Browser sign-in through an external OpenID Connect provider: /auth/login sends the browser
// to the provider (code flow with PKCE), /auth/callback checks state, exchanges the code,
// verifies the ID token and sets the session cookie. Over plain HTTP, redirects followed by hand.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/oidc.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

let idp: FakeIssuer;
let s: TestServer;

beforeAll(async () => {
  idp = await startFakeIssuer();
  s = await startTestServer({
    URSA_AUTH_ISSUER: idp.url,
    URSA_AUTH_AUDIENCE: 'ursa-api',
    URSA_AUTH_CLIENT_ID: idp.login.clientId,
    URSA_AUTH_CLIENT_SECRET: idp.login.clientSecret,
  });
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});
afterEach(() => {
  idp.login.email = ADMIN;
  idp.login.idTokenClaims = undefined;
  idp.login.tamper = false;
  idp.login.clientSecret = 'ursa-web-secret';
});

/** The value of cookie `name` among a response's Set-Cookie headers (with its attributes). */
function setCookie(res: Response, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}
const cookieValue = (header: string | undefined) => header?.split(';')[0]!.split('=', 2)[1];

/** Our own address for a URL the provider redirects to (the site URL says `localhost`). */
function ours(location: string): string {
  const u = new URL(location);
  return `${s.url}${u.pathname}${u.search}`;
}

/** /auth/login → the provider's authorize → back to /auth/callback (not yet requested). */
async function startLogin(next?: string) {
  const login = await fetch(
    `${s.url}/auth/login${next === undefined ? '' : `?next=${encodeURIComponent(next)}`}`,
    { redirect: 'manual' },
  );
  expect([302, 303]).toContain(login.status);
  const stateCookie = setCookie(login, 'ursa_login_state');
  expect(stateCookie).toBeDefined();
  const authorize = new URL(login.headers.get('location')!);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status, await atProvider.clone().text()).toBe(302);
  const callback = new URL(ours(atProvider.headers.get('location')!));
  return { login, stateCookie: stateCookie!, authorize, callback };
}

async function callback(url: URL | string, stateCookie?: string, accept = 'text/html') {
  const headers: Record<string, string> = { accept };
  if (stateCookie) headers.cookie = `ursa_login_state=${cookieValue(stateCookie)}`;
  const res = await fetch(url, { redirect: 'manual', headers });
  return { res, text: await res.text() };
}

async function whoAmI(sessionCookie: string) {
  const r = await fetch(`${s.url}/api/v1/user`, {
    headers: { accept: 'application/json', cookie: `ursa_session=${cookieValue(sessionCookie)}` },
  });
  return { status: r.status, json: (await r.json()) as { id?: string } };
}

describe('browser sign-in through an external identity provider', () => {
  it('redirects /auth/login to the provider with the code flow, PKCE, state and nonce', async () => {
    const { login, stateCookie, authorize } = await startLogin('/app');
    expect(authorize.origin + authorize.pathname).toBe(`${idp.base}/authorize`);
    const q = authorize.searchParams;
    expect(q.get('response_type')).toBe('code');
    expect(q.get('client_id')).toBe('ursa-web');
    expect(q.get('redirect_uri')).toBe(`${s.engine.config.siteUrl}/auth/callback`);
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.length).toBeGreaterThan(20);
    expect(q.get('nonce')!.length).toBeGreaterThan(20);
    expect(login.headers.get('cache-control')).toBe('no-store');
    // The state cookie: HttpOnly, SameSite=Lax, ten minutes; it reveals neither state nor verifier.
    expect(stateCookie).toMatch(/; HttpOnly/);
    expect(stateCookie).toMatch(/; SameSite=Lax/);
    expect(stateCookie).toMatch(/; Max-Age=600/);
    expect(stateCookie).not.toContain(q.get('state')!);
    expect(stateCookie).not.toContain(q.get('nonce')!);
  });

  it('signs in: callback sets the session cookie, clears the state cookie, /api/v1/user answers the e-mail', async () => {
    const { stateCookie, callback: cb } = await startLogin('/app/projects?tab=1');
    const { res } = await callback(cb, stateCookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/app/projects?tab=1');
    const session = setCookie(res, 'ursa_session');
    expect(session).toMatch(/; HttpOnly/);
    expect(session).toMatch(/; SameSite=Lax/);
    expect(setCookie(res, 'ursa_login_state')).toMatch(/Max-Age=0/);
    const me = await whoAmI(session!);
    expect(me.status).toBe(200);
    expect(me.json.id).toBe(ADMIN);
    // The code was used once: replaying the callback is refused, not a second session.
    const again = await callback(cb, stateCookie);
    expect(again.res.status).toBe(400);
    expect(again.text).toMatch(/refused the sign-in code/);
  });

  it('signs out to the site home page, not back to the provider', async () => {
    const { stateCookie, callback: cb } = await startLogin('/app');
    const { res } = await callback(cb, stateCookie);
    const session = cookieValue(setCookie(res, 'ursa_session'))!;
    const out = await fetch(`${s.url}/auth/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `ursa_session=${session}`, origin: s.url },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/');
    expect((await whoAmI(`ursa_session=${session}`)).status).toBe(401);
  });

  it('signs in whoever the provider names (lower-cased)', async () => {
    idp.login.email = 'Carol@Example.com';
    const { stateCookie, callback: cb } = await startLogin();
    const { res } = await callback(cb, stateCookie);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/app');
    const me = await whoAmI(setCookie(res, 'ursa_session')!);
    expect(me.json.id).toBe('carol@example.com');
  });

  it('refuses unsafe next values (safeNext)', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const { stateCookie, callback: cb } = await startLogin(next);
      const { res } = await callback(cb, stateCookie);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/app');
    }
  });

  it('refuses a wrong state, a missing or forged state cookie: 400', async () => {
    const { stateCookie, callback: cb } = await startLogin();
    const wrong = new URL(cb);
    wrong.searchParams.set('state', 'not-the-state');
    const r1 = await callback(wrong, stateCookie);
    expect(r1.res.status).toBe(400);
    expect(r1.text).toMatch(/state does not match/);
    expect(setCookie(r1.res, 'ursa_session')).toBeUndefined();

    const r2 = await callback(cb);
    expect(r2.res.status).toBe(400);
    expect(r2.text).toMatch(/no sign-in is in progress/);

    const forged = `ursa_login_state=${cookieValue(stateCookie)!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`;
    const r3 = await callback(cb, forged);
    expect(r3.res.status).toBe(400);

    // Asked for JSON: the API's error shape.
    const r4 = await callback(wrong, stateCookie, 'application/json');
    expect(r4.res.status).toBe(400);
    const body = JSON.parse(r4.text) as { statusCode: number; message: string; errorId: string };
    expect(body.statusCode).toBe(400);
    expect(body.message).toMatch(/state does not match/);
    expect(body.errorId).toBeTruthy();

    // The untouched flow still works afterwards.
    const ok = await callback(cb, stateCookie);
    expect(ok.res.status).toBe(303);
  });

  it('refuses a tampered ID token, a wrong nonce, a wrong audience or issuer: 401', async () => {
    const cases: [() => void, RegExp][] = [
      [() => (idp.login.tamper = true), /signature/],
      [() => (idp.login.idTokenClaims = { nonce: 'another-nonce' }), /nonce/],
      [() => (idp.login.idTokenClaims = { aud: 'someone-else' }), /aud.*claim is not accepted/],
      [
        () => (idp.login.idTokenClaims = { iss: 'https://evil.example' }),
        /iss.*claim is not accepted/,
      ],
      [() => (idp.login.idTokenClaims = { email: 'not-an-email' }), /no e-mail/],
      [() => (idp.login.idTokenClaims = { email_verified: false }), /not verified/],
    ];
    for (const [spoil, why] of cases) {
      idp.login.idTokenClaims = undefined;
      idp.login.tamper = false;
      spoil();
      const { stateCookie, callback: cb } = await startLogin();
      const { res, text } = await callback(cb, stateCookie);
      expect(res.status, text).toBe(401);
      expect(text).toMatch(why);
      expect(setCookie(res, 'ursa_session')).toBeUndefined();
    }
  });

  it('answers 400 when the provider refuses the code (wrong client secret), and 401 for a provider error', async () => {
    idp.login.clientSecret = 'rotated';
    const { stateCookie, callback: cb } = await startLogin();
    const { res, text } = await callback(cb, stateCookie);
    expect(res.status).toBe(400);
    expect(text).toMatch(/client authentication failed/);
    expect(idp.refusals).toContain('client authentication failed');

    const denied = new URL(cb);
    denied.searchParams.delete('code');
    denied.searchParams.set('error', 'access_denied');
    const r = await callback(denied, stateCookie);
    expect(r.res.status).toBe(401);
    expect(r.text).toMatch(/access_denied/);
  });

  it('answers 502 naming the provider when it cannot be reached, not 500', async () => {
    const gone = await startFakeIssuer();
    const srv = await startTestServer({
      URSA_AUTH_ISSUER: gone.url,
      URSA_AUTH_AUDIENCE: 'ursa-api',
      URSA_AUTH_CLIENT_ID: 'ursa-web',
    });
    try {
      await gone.close();
      const r = await srv.api('GET', '/auth/login', { as: null });
      expect(r.status).toBe(502);
      expect(r.json.message).toContain(gone.url);
    } finally {
      await srv.close();
    }
  });
});

describe('configuration', () => {
  it('keeps the password form without a client id, and /auth/callback is 404', async () => {
    const plain = await startTestServer({
      URSA_AUTH_ISSUER: idp.url,
      URSA_AUTH_AUDIENCE: 'ursa-api',
    });
    try {
      const form = await plain.api('GET', '/auth/login', { as: null, accept: 'text/html' });
      expect(form.status).toBe(200);
      expect(form.text).toContain('name="password"');
      const cb = await plain.api('GET', '/auth/callback?code=x&state=y', { as: null });
      expect(cb.status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('validates URSA_AUTH_CLIENT_ID and URSA_AUTH_CLIENT_SECRET', () => {
    expect(() => loadConfig({ URSA_AUTH_CLIENT_ID: 'x' })).toThrow(/URSA_AUTH_ISSUER/);
    expect(() =>
      loadConfig({
        URSA_AUTH_ISSUER: 'https://idp.example',
        URSA_AUTH_AUDIENCE: 'a',
        URSA_AUTH_CLIENT_SECRET: 's',
      }),
    ).toThrow(/URSA_AUTH_CLIENT_ID/);
    const c = loadConfig({
      URSA_AUTH_ISSUER: 'https://idp.example/',
      URSA_AUTH_AUDIENCE: 'a',
      URSA_AUTH_CLIENT_ID: 'web',
      URSA_AUTH_CLIENT_SECRET: 's',
    });
    expect(c.auth).toMatchObject({ builtin: false, clientId: 'web', clientSecret: 's' });
  });
});
