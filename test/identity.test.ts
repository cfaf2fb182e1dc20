// Identity over real HTTP: the built-in OIDC provider and bearer tokens (RFC 6750 errors),
// an external provider chosen by configuration, browser sessions, and CLI-issued tokens.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOrCreateSigningKey } from '../src/engine/identity/keys.js';
import { issueAccessToken } from '../src/engine/identity/tokens.js';
import { URSA } from './helpers/cli.js';
import { rawRequest, setCookieValue, type RawResponse } from './helpers/http.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/oidc.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  startTestServer,
  type ApiResponse,
  type TestServer,
} from './helpers/server.js';

const run = promisify(execFile);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function expectErrorShape(r: { status: number; json: unknown }, status: number): void {
  expect(r.json).toBeTypeOf('object');
  const body = r.json as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
  expect(body.statusCode).toBe(status);
  expect(body.message).toBeTypeOf('string');
  expect(body.context).toBeTypeOf('object');
  expect(body.errorId).toMatch(UUID);
}

function expectInvalidToken(r: ApiResponse, descriptionPart?: RegExp): void {
  expect(r.status).toBe(401);
  const www = r.headers.get('www-authenticate') ?? '';
  expect(www).toMatch(/^Bearer /);
  expect(www).toContain('error="invalid_token"');
  const desc = /error_description="([^"]*)"/.exec(www);
  expect(desc?.[1]).toBeTruthy();
  if (descriptionPart) expect(desc?.[1]).toMatch(descriptionPart);
  expectErrorShape(r, 401);
}

const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('built-in identity provider and bearer tokens', () => {
  let s: TestServer;
  let site: string;
  let issuer: string;
  let audience: string;
  beforeAll(async () => {
    s = await startTestServer();
    site = s.engine.config.siteUrl;
    issuer = s.engine.config.auth.issuer;
    audience = s.engine.config.auth.audience;
  });
  afterAll(() => s.close());

  /** Signs with Ursa's own key, with any claims (for expired / wrong-issuer tokens). */
  const signWithUrsaKey = (claims: JWTPayload, set: (j: SignJWT) => SignJWT) => {
    const key = s.engine.signingKey!;
    return set(
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' }),
    ).sign(key.privateKey);
  };

  it('publishes OIDC discovery with issuer {site}/auth and a JWKS without private parts', async () => {
    const d = await s.api('GET', '/auth/.well-known/openid-configuration', { as: null });
    expect(d.status).toBe(200);
    expect(d.headers.get('content-type')).toMatch(/^application\/json/);
    expect(d.json.issuer).toBe(`${site}/auth`);
    expect(d.json.issuer).toBe(issuer);
    expect(d.json.jwks_uri).toMatch(/^http:\/\/localhost:\d+\/auth\/jwks$/);

    const jwksRes = await fetch(d.json.jwks_uri as string);
    expect(jwksRes.status).toBe(200);
    const jwks = (await jwksRes.json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toHaveLength(1);
    const [k] = jwks.keys;
    expect(k).toMatchObject({
      kty: 'RSA',
      alg: 'RS256',
      use: 'sig',
      kid: s.engine.signingKey!.kid,
    });
    expect(k!.n).toBeTypeOf('string');
    expect(k!.e).toBeTypeOf('string');
    for (const priv of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'])
      expect(k).not.toHaveProperty(priv);
  });

  it('accepts a token from engine.issueToken', async () => {
    const token = await s.engine.issueToken(ADMIN);
    const r = await s.api('GET', '/projects', { bearer: token });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.projects)).toContain(s.demo);
  });

  it('refuses an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signWithUrsaKey({ email: ADMIN }, (j) =>
      j
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(ADMIN)
        .setIssuedAt(now - 7200)
        .setExpirationTime(now - 3600),
    );
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /expired/);
  });

  it('refuses a token without exp', async () => {
    const token = await signWithUrsaKey({ email: ADMIN }, (j) =>
      j.setIssuer(issuer).setAudience(audience).setSubject(ADMIN).setIssuedAt(),
    );
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }));
  });

  it('refuses a token for another audience', async () => {
    const token = await s.engine.issueToken(ADMIN, { audience: 'https://other.example/api' });
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /aud/);
  });

  it('refuses a token from another issuer', async () => {
    const token = await signWithUrsaKey({ email: ADMIN }, (j) =>
      j
        .setIssuer('https://evil.example/auth')
        .setAudience(audience)
        .setSubject(ADMIN)
        .setIssuedAt()
        .setExpirationTime('5m'),
    );
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /iss/);
  });

  it('refuses a token whose signature was tampered with', async () => {
    const token = await s.engine.issueToken(ADMIN, { ttlSeconds: 600 });
    const [h, p, sig] = token.split('.') as [string, string, string];
    // Flip a character in the middle: the last one may only carry padding bits.
    const i = Math.floor(sig.length / 2);
    const flipped = sig.slice(0, i) + (sig[i] === 'A' ? 'B' : 'A') + sig.slice(i + 1);
    expectInvalidToken(
      await s.api('GET', '/projects', { bearer: `${h}.${p}.${flipped}` }),
      /signature/,
    );
    // And a payload changed under a valid signature (another user) is refused too.
    const forged = b64url({
      ...JSON.parse(Buffer.from(p, 'base64url').toString()),
      email: 'mallory@example.com',
    });
    expectInvalidToken(await s.api('GET', '/projects', { bearer: `${h}.${forged}.${sig}` }));
  });

  it('refuses tokens signed by another key, with or without the same kid', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    for (const kid of [s.engine.signingKey!.kid, 'someone-else']) {
      const token = await new SignJWT({ email: ADMIN })
        .setProtectedHeader({ alg: 'RS256', kid })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(ADMIN)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey);
      expectInvalidToken(await s.api('GET', '/projects', { bearer: token }));
    }
  });

  it('refuses alg "none" and a symmetric key posing as the public key (HS256)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: issuer,
      aud: audience,
      sub: ADMIN,
      email: ADMIN,
      iat: now,
      exp: now + 300,
    };
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
    expectInvalidToken(await s.api('GET', '/projects', { bearer: none }));
    // Key-confusion: HMAC keyed with the public key's JSON.
    const secret = new TextEncoder().encode(JSON.stringify(s.engine.signingKey!.publicJwk));
    const hs = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: s.engine.signingKey!.kid })
      .sign(secret);
    expectInvalidToken(await s.api('GET', '/projects', { bearer: hs }));
  });

  it.each(['not-a-jwt', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.bm9wZQ.c2ln', 'x.y'])(
    'refuses the malformed token %s',
    async (bad) => {
      expectInvalidToken(await s.api('GET', '/projects', { bearer: bad }));
    },
  );

  it('refuses a token without an e-mail (no email claim, sub not an address)', async () => {
    const token = await signWithUrsaKey({}, (j) =>
      j
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject('user-1234')
        .setIssuedAt()
        .setExpirationTime('5m'),
    );
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /e-mail/);
  });

  it.each([
    ['Basic', `Basic ${Buffer.from(`${ADMIN}:${ADMIN_PASSWORD}`).toString('base64')}`],
    ['Bearer with nothing', 'Bearer'],
    ['Bearer with a space', 'Bearer    '],
    ['Bearer with two tokens', 'Bearer abc def'],
    ['Token scheme', 'Token abc'],
  ])('answers %s with invalid_request', async (_name, authorization) => {
    const r = await s.api('GET', '/projects', { as: null, headers: { authorization } });
    expect(r.status).toBe(401);
    const www = r.headers.get('www-authenticate') ?? '';
    expect(www).toMatch(/^Bearer realm="[^"]+"/);
    expect(www).toContain('error="invalid_request"');
    expect(www).toMatch(/error_description="[^"]+"/);
    expectErrorShape(r, 401);
  });

  it('answers no credentials with a bare Bearer challenge (no error code)', async () => {
    const r = await s.api('GET', '/projects', { as: null });
    expect(r.status).toBe(401);
    const www = r.headers.get('www-authenticate') ?? '';
    expect(www).toMatch(/^Bearer realm="[^"]+", resource_metadata="[^"]+", scope="api"$/);
    expectErrorShape(r, 401);
  });

  it('does not accept a token in the query string', async () => {
    const token = await s.engine.issueToken(ADMIN);
    for (const param of ['access_token', 'token']) {
      const r = await s.api('GET', `/projects?${param}=${encodeURIComponent(token)}`, {
        as: null,
      });
      expect(r.status).toBe(401);
      expectErrorShape(r, 401);
    }
  });

  it('a token for a user who was not invited sees no projects and no project', async () => {
    const token = await s.engine.issueToken('stranger@example.com');
    const list = await s.api('GET', '/projects', { bearer: token });
    expect(list.status).toBe(200);
    expect(list.json.projects).toEqual({});
    const one = await s.api('GET', `/projects/${s.demo}`, { bearer: token });
    expect(one.status).toBe(401);
    expectErrorShape(one, 401);
    // RFC 9110: a 401 always carries a challenge.
    expect(one.headers.get('www-authenticate')).toMatch(
      /^Bearer realm="[^"]+", resource_metadata="[^"]+", scope="api"$/,
    );
  });
});

describe('external identity provider by configuration', () => {
  let idp: FakeIssuer;
  let s: TestServer;
  let custom: TestServer;
  const alice = 'alice@example.com';
  const carol = 'carol@example.com';

  const inviteInProcess = async (srv: TestServer, email: string) =>
    srv.engine.members.invite(await srv.engine.actor({ email: ADMIN }, srv.demo), { id: email });

  beforeAll(async () => {
    idp = await startFakeIssuer();
    s = await startTestServer({ URSA_AUTH_ISSUER: idp.url, URSA_AUTH_AUDIENCE: 'ursa-api' });
    custom = await startTestServer({
      URSA_AUTH_ISSUER: idp.url,
      URSA_AUTH_AUDIENCE: 'ursa-api',
      URSA_AUTH_EMAIL_CLAIM: 'upn',
    });
  });
  afterAll(async () => {
    await s?.close();
    await custom?.close();
    await idp?.close();
  });

  it('still bootstraps the organization, the admin and the demo project', async () => {
    expect(s.engine.config.auth.builtin).toBe(false);
    expect(s.engine.config.auth.issuer).toBe(idp.url);
    expect(s.engine.signingKey).toBeUndefined();
    expect(s.bootstrap.created).toBe(true);
    expect(s.bootstrap.adminEmail).toBe(ADMIN);
    expect(s.demo).toMatch(/^demo-[a-z0-9]{6}$/);
    expect(await s.engine.orgs.isAdmin('default', ADMIN)).toBe(true);
    expect((await s.engine.actor({ email: ADMIN }, s.demo)).admin).toBe(true);
    // Ursa cannot issue tokens itself in this mode.
    await expect(s.engine.issueToken(ADMIN)).rejects.toThrow(/external identity provider/);
  });

  it('does not pretend to be the identity provider: discovery and JWKS answer 404 naming the issuer', async () => {
    for (const path of ['/auth/.well-known/openid-configuration', '/auth/jwks']) {
      const r = await s.api('GET', path, { as: null });
      expect(r.status).toBe(404);
      expect(r.json.message).toContain(idp.url);
    }
  });

  it('accepts a token signed by the external issuer for an invited user', async () => {
    await inviteInProcess(s, alice);
    const token = await idp.sign({ email: alice, sub: 'idp-user-1' });
    const r = await s.api('GET', '/projects', { bearer: token });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json.projects)).toEqual([s.demo]);
    expect(idp.hits).toContain('/.well-known/openid-configuration');
    expect(idp.hits).toContain('/jwks');
    // The admin signs in through the external provider too.
    const admin = await s.api('GET', `/projects/${s.demo}`, {
      bearer: await idp.sign({ email: ADMIN }),
    });
    expect(admin.status).toBe(200);
  });

  it('refuses a token for another audience', async () => {
    const token = await idp.sign({ email: alice }, { audience: 'someone-else' });
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /aud/);
  });

  it('refuses a token naming the external issuer but signed by an Ursa-style key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-key-'));
    try {
      const key = await loadOrCreateSigningKey(dir);
      const settings = {
        builtin: true,
        issuer: idp.url,
        audience: 'ursa-api',
        emailClaim: 'email',
        tokenTtlSeconds: 600,
      };
      const token = await issueAccessToken(key, settings, alice);
      expectInvalidToken(await s.api('GET', '/projects', { bearer: token }));
      // Same with the kid of the issuer's real key: the signature does not verify.
      const forged = await new SignJWT({ email: alice })
        .setProtectedHeader({ alg: 'RS256', kid: idp.kid })
        .setIssuer(idp.url)
        .setAudience('ursa-api')
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(key.privateKey);
      expectInvalidToken(await s.api('GET', '/projects', { bearer: forged }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a token of the external issuer that names another issuer', async () => {
    const token = await idp.sign({ email: alice }, { issuer: 'https://evil.example' });
    expectInvalidToken(await s.api('GET', '/projects', { bearer: token }), /iss/);
  });

  it('works with a provider whose issuer identifier ends in a slash (as Auth0 does)', async () => {
    const slashed = await startFakeIssuer({ trailingSlash: true });
    const srv = await startTestServer({
      URSA_AUTH_ISSUER: slashed.url,
      URSA_AUTH_AUDIENCE: 'ursa-api',
    });
    try {
      expect(slashed.url).toMatch(/\/$/);
      const token = await slashed.sign({ email: ADMIN });
      const r = await srv.api('GET', '/projects', { bearer: token });
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(r.json.projects)).toEqual([srv.demo]);
      // The issuer is still checked: the spelling without the slash is another issuer.
      const other = await slashed.sign({ email: ADMIN }, { issuer: slashed.base });
      expectInvalidToken(await srv.api('GET', '/projects', { bearer: other }), /iss/);
    } finally {
      await srv.close();
      await slashed.close();
    }
  });

  it('reads the e-mail from URSA_AUTH_EMAIL_CLAIM', async () => {
    await inviteInProcess(custom, carol);
    // `upn` names carol; the standard `email` claim names someone not invited.
    const token = await idp.sign({ upn: carol, email: 'not-invited@example.com' });
    const r = await custom.api('GET', `/projects/${custom.demo}`, { bearer: token });
    expect(r.status).toBe(200);
    const list = await custom.api('GET', '/projects', { bearer: token });
    expect(Object.keys(list.json.projects)).toEqual([custom.demo]);
    // The same token on the server that reads `email` is someone else, without access.
    const other = await s.api('GET', `/projects/${s.demo}`, { bearer: token });
    expect(other.status).toBe(401);
    // Neither the configured claim nor an e-mail `sub`: refused.
    const none = await idp.sign({ email: carol, sub: 'opaque-id' });
    expectInvalidToken(await custom.api('GET', '/projects', { bearer: none }), /claim .upn./);
  });
});

describe('browser session', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const login = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: form(fields),
    });
  const sessionOf = (r: RawResponse) => setCookieValue(r.headers, 'ursa_session');
  const withCookie = (
    method: string,
    p: string,
    cookie: string,
    extra: { headers?: Record<string, string>; body?: unknown } = {},
  ) =>
    rawRequest(`${s.url}/api/v1${p}`, {
      method,
      headers: {
        accept: 'application/json',
        cookie: `ursa_session=${cookie}`,
        ...(extra.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...extra.headers,
      },
      body: extra.body !== undefined ? JSON.stringify(extra.body) : undefined,
    });

  it('GET /auth/login is an HTML sign-in form', async () => {
    const r = await rawRequest(`${s.url}/auth/login?next=/api/v1/projects`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).toContain('<form method="post" action="/auth/login"');
    expect(r.text).toContain('name="email"');
    expect(r.text).toContain('name="password"');
    expect(r.text).toContain('name="next" value="/api/v1/projects"');
    // An off-site next is not even put into the form.
    const evil = await rawRequest(`${s.url}/auth/login?next=https://evil.com`);
    expect(evil.text).toContain('name="next" value="/app"');
    expect(evil.text).not.toContain('evil.com');
  });

  it('signs in with the right password: 303 to next, HttpOnly SameSite=Lax cookie that works', async () => {
    const r = await login({ email: ADMIN, password: ADMIN_PASSWORD, next: '/api/v1/projects' });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/api/v1/projects');
    const c = sessionOf(r);
    expect(c?.value).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(c!.attributes).toMatch(/;\s*HttpOnly/i);
    expect(c!.attributes).toMatch(/;\s*SameSite=Lax/i);
    expect(c!.attributes).toMatch(/;\s*Path=\//i);
    expect(c!.attributes).not.toMatch(/Secure/i); // an http:// site; https sites get Secure
    const list = await withCookie('GET', '/projects', c!.value);
    expect(list.status).toBe(200);
    expect(Object.keys(JSON.parse(list.text).projects)).toEqual([s.demo]);
    // The e-mail is matched case-insensitively.
    const upper = await login({ email: ADMIN.toUpperCase(), password: ADMIN_PASSWORD });
    expect(upper.status).toBe(303);
    // Without a next, the app.
    expect(upper.headers.location).toBe('/app');
  });

  it.each([
    ['//evil.com', '/app'],
    ['https://evil.com', '/app'],
    ['/\\evil.com', '/app'],
    // Browsers drop tabs and newlines in URLs: the tab must not survive as `//evil.com`.
    ['/\t/evil.com', '/%09/evil.com'],
    ['javascript:alert(1)', '/app'],
    ['', '/app'],
    [`/api/v1/projects/x?format=json`, '/api/v1/projects/x?format=json'],
  ])('redirects next=%s to %s', async (next, expected) => {
    const r = await login({ email: ADMIN, password: ADMIN_PASSWORD, next });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(expected);
  });

  it('answers a wrong password with 401, the form again and no cookie', async () => {
    const r = await login({ email: ADMIN, password: 'wrong-password', next: '/api/v1/projects' });
    expect(r.status).toBe(401);
    expect(r.headers['content-type']).toMatch(/^text\/html/);
    expect(r.text).toContain('<form method="post" action="/auth/login"');
    expect(r.text).toContain('Wrong e-mail or password');
    expect(r.text).toContain(`value="${ADMIN}"`);
    expect(r.headers['set-cookie']).toBeUndefined();
    // An unknown user is answered exactly the same way.
    const unknown = await login({ email: 'nobody@example.com', password: 'whatever-1' });
    expect(unknown.status).toBe(401);
    expect(unknown.headers['set-cookie']).toBeUndefined();
  });

  it('locks an e-mail out at this address after too many wrong passwords (429 with Retry-After)', async () => {
    const email = 'locked@example.com';
    await s.engine.members.invite(await s.engine.actor({ email: ADMIN }, s.demo), { id: email });
    await s.engine.accounts.setPassword(email, 'locked-password-1');
    const statuses: number[] = [];
    let last: RawResponse | undefined;
    for (let i = 0; i < 11; i++) {
      last = await login({ email, password: `wrong-${i}-password` });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['set-cookie']).toBeUndefined();
    // Even the right password waits now.
    const right = await login({ email, password: 'locked-password-1' });
    expect(right.status).toBe(429);
    expect(right.headers['set-cookie']).toBeUndefined();
    // Other accounts are not affected.
    expect((await login({ email: ADMIN, password: ADMIN_PASSWORD })).status).toBe(303);
  });

  it('POST /auth/logout ends the session', async () => {
    const c = sessionOf(await login({ email: ADMIN, password: ADMIN_PASSWORD }))!;
    expect((await withCookie('GET', '/projects', c.value)).status).toBe(200);
    const out = await rawRequest(`${s.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: `ursa_session=${c.value}` },
    });
    expect(out.status).toBe(303);
    expect(out.headers.location).toBe('/auth/login');
    const cleared = sessionOf(out);
    expect(cleared?.value).toBe('');
    expect(cleared!.attributes).toMatch(/Max-Age=0/i);
    const after = await withCookie('GET', '/projects', c.value);
    expect(after.status).toBe(401);
    expectErrorShape({ status: after.status, json: JSON.parse(after.text) }, 401);
  });

  it('an unknown, forged or garbled session cookie does not authenticate (401, not 500)', async () => {
    for (const value of ['forged-session-value', '%E0%A4%A', '%', '']) {
      const r = await withCookie('GET', '/projects', value);
      expect(r.status, value).toBe(401);
      expectErrorShape({ status: r.status, json: JSON.parse(r.text) }, 401);
    }
    const out = await rawRequest(`${s.url}/auth/logout`, {
      method: 'POST',
      headers: { cookie: 'ursa_session=%E0%A4%A' },
    });
    expect(out.status).toBe(303);
  });

  it('refuses a cookie-authenticated change from another origin, allows it from the site', async () => {
    const c = sessionOf(await login({ email: ADMIN, password: ADMIN_PASSWORD }))!;
    const body = { title: 'Hello', message: 'World' };
    const evil = await withCookie('PUT', `/projects/${s.demo}/announce`, c.value, {
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(evil.status).toBe(403);
    expectErrorShape({ status: evil.status, json: JSON.parse(evil.text) }, 403);
    const before = await withCookie('GET', `/projects/${s.demo}/announce`, c.value);
    expect(JSON.parse(before.text).announcement?.title).not.toBe('Hello');
    // Opaque (`null`, from sandboxed frames) and unparseable origins are cross-site too.
    for (const origin of ['null', 'https://', 'not a url']) {
      const r = await withCookie('PUT', `/projects/${s.demo}/announce`, c.value, {
        body,
        headers: { origin },
      });
      expect(r.status, origin).toBe(403);
      expectErrorShape({ status: r.status, json: JSON.parse(r.text) }, 403);
    }

    const own = await withCookie('PUT', `/projects/${s.demo}/announce`, c.value, {
      body,
      headers: { origin: new URL(s.engine.config.siteUrl).origin },
    });
    expect(own.status).toBe(200);
    expect(JSON.parse(own.text).announcement).toMatchObject({ title: 'Hello', message: 'World' });
    // A bearer token is not subject to the origin check (no ambient credential).
    const bearer = await s.api('PUT', `/projects/${s.demo}/announce`, {
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(bearer.status).toBe(200);
  });

  it('answers a JSON login with JSON', async () => {
    const r = await rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: ADMIN, password: ADMIN_PASSWORD }),
    });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(r.text);
    expect(body.user).toBe(ADMIN);
    expect(Date.parse(body.expires)).toBeGreaterThan(Date.now());
    const c = sessionOf(r);
    expect(c?.value).toBeTruthy();
    expect((await withCookie('GET', '/projects', c!.value)).status).toBe(200);

    const wrong = await rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: ADMIN, password: 'nope-nope' }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers['content-type']).toMatch(/^application\/json/);
    expectErrorShape({ status: wrong.status, json: JSON.parse(wrong.text) }, 401);
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const missing = await rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: ADMIN }),
    });
    expect(missing.status).toBe(400);
    expectErrorShape({ status: missing.status, json: JSON.parse(missing.text) }, 400);
  });
});

describe('CLI tokens', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it(
    '`ursa token <email>` prints a token the running server accepts',
    { timeout: 60_000 },
    async () => {
      // The CLI signs with the key in the data directory and names the issuer and audience of
      // its own configuration, so it is run with the server's data directory and site URL.
      const { stdout } = await run(URSA.command, [...URSA.args, 'token', ADMIN], {
        cwd: path.resolve(import.meta.dirname, '..'),
        timeout: 55_000,
        env: {
          ...process.env,
          URSA_DATA_DIR: s.dataDir,
          URSA_SITE_URL: s.engine.config.siteUrl,
          URSA_LOG_LEVEL: 'silent',
        },
      });
      const lines = stdout.trim().split('\n');
      const token = lines[lines.length - 1]!.trim();
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const r = await s.api('GET', '/projects', { bearer: token });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json.projects)).toEqual([s.demo]);
    },
  );
});
