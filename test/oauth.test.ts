// The built-in OAuth 2.1 authorization server over real HTTP, end to end: RFC 9728 and
// RFC 8414 metadata, dynamic client registration, authorization code + PKCE (S256 only)
// through the sign-in and consent pages, JWT access tokens per resource (RFC 8707) that the
// existing verifier accepts, refresh token rotation, refusals, persistence across restarts,
// the external-IdP mode, and the MCP SDK's own OAuth client calling a tool.
import { sql } from 'drizzle-orm';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpAudience } from '../src/engine/config.js';
import type { RunningServer } from '../src/server.js';
import { Browser, browse, json, oauthClient, pkce, REDIRECT, type Flow } from './helpers/oauth.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/oidc.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  startOnPort,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

describe('built-in OAuth authorization server', () => {
  let s: TestServer;
  let site: string;
  let issuer: string;
  let mcp: string;
  const oc = oauthClient(() => site);

  beforeAll(async () => {
    s = await startTestServer();
    site = s.engine.config.siteUrl;
    issuer = s.engine.config.auth.issuer;
    mcp = mcpAudience(s.engine.config);
  });
  afterAll(() => s.close());

  it('publishes protected-resource metadata (RFC 9728) at the root and the /mcp path form', async () => {
    expect(mcp).toBe(`${site}/mcp`);
    for (const p of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const res = await fetch(`${site}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const doc = await json(res);
      expect(doc).toMatchObject({
        resource: mcp,
        authorization_servers: [issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
      });
    }
    // The challenge of /mcp names this document and the scope to ask for.
    const challenge = await fetch(`${site}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{}',
    });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${site}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
  });

  it('publishes the REST API its own metadata, named with its scope by every API 401', async () => {
    const res = await fetch(`${site}/.well-known/oauth-protected-resource/api/v1`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      resource: `${site}/api/v1`,
      authorization_servers: [issuer],
      bearer_methods_supported: ['header'],
      scopes_supported: ['api'],
    });
    const meta = `resource_metadata="${site}/.well-known/oauth-protected-resource/api/v1"`;
    const none = await s.api('GET', '/projects', { as: null });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(`Bearer realm="ursa", ${meta}, scope="api"`);
    const bad = await s.api('GET', '/projects', { bearer: 'not.a.token' });
    expect(bad.headers.get('www-authenticate')).toMatch(
      new RegExp(
        `^Bearer realm="ursa", ${meta.replace(/[.?/]/g, '\\$&')}, scope="api", error="invalid_token", error_description="[^"]+"$`,
      ),
    );
  });

  it('publishes RFC 8414 metadata in the path form, and OIDC discovery for the same issuer', async () => {
    const res = await fetch(`${site}/.well-known/oauth-authorization-server/auth`);
    expect(res.status).toBe(200);
    const m = await json(res);
    expect(m.issuer).toBe(issuer);
    expect(issuer).toBe(`${site}/auth`);
    for (const k of [
      'authorization_endpoint',
      'token_endpoint',
      'registration_endpoint',
      'jwks_uri',
      'revocation_endpoint',
    ])
      expect(m[k], k).toMatch(new RegExp(`^${issuer}/`));
    expect(m.response_types_supported).toContain('code');
    expect(m.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token']),
    );
    expect(m.grant_types_supported).not.toContain('implicit');
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    expect(m.token_endpoint_auth_methods_supported).toContain('none');
    expect(m.scopes_supported).toEqual(expect.arrayContaining(['mcp', 'api']));
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    // /auth/login and /auth/logout are not the provider's.
    expect(m.authorization_endpoint).not.toMatch(/\/login$/);

    const oidc = await json(await fetch(`${issuer}/.well-known/openid-configuration`));
    expect(oidc.issuer).toBe(issuer);
    expect(oidc.registration_endpoint).toBe(m.registration_endpoint);
    expect(oidc.code_challenge_methods_supported).toEqual(['S256']);
    const jwks = await json(await fetch(m.jwks_uri));
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toEqual([s.engine.signingKey!.kid]);
  });

  it('registers clients dynamically (RFC 7591) and refuses bad metadata', async () => {
    const reg = await oc.register();
    expect(reg.status).toBe(201);
    expect(reg.body.client_id).toMatch(/^[\w-]{10,}$/);
    expect(reg.body.redirect_uris).toEqual([REDIRECT]);
    expect(reg.body.token_endpoint_auth_method).toBe('none');
    expect(reg.body.registration_access_token).toBeTypeOf('string');
    // Stored: readable with its registration access token.
    const read = await fetch(reg.body.registration_client_uri, {
      headers: { authorization: `Bearer ${reg.body.registration_access_token}` },
    });
    expect(read.status).toBe(200);
    expect((await json(read)).client_name).toBe('Test MCP client');

    const noRedirect = await oc.register({ redirect_uris: [] });
    expect(noRedirect.status).toBe(400);
    expect(noRedirect.body.error).toMatch(/^invalid_(redirect_uri|client_metadata)$/);
    const badScope = await oc.register({ scope: 'mcp admin:everything' });
    expect(badScope.status).toBe(400);
    expect(badScope.body.error).toBe('invalid_client_metadata');
  });

  it('code + PKCE S256 for the MCP resource: sign-in, consent, JWT for the MCP audience only', async () => {
    const { flow, clientId, code, verifier, tokens } = await oc.obtainTokens();
    // The pages: the sign-in look, then consent naming the client, the scope and the resource.
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    const [login, consent] = flow.pages as [Flow['pages'][0], Flow['pages'][0]];
    expect(login.html).toContain('Sign in to Ursa');
    expect(login.html).toContain('name="password"');
    expect(consent.html).toContain('Test MCP client');
    expect(consent.html).toContain(ADMIN);
    expect(consent.html).toMatch(/<code>mcp<\/code>/);
    expect(consent.html).toContain(`<code>${mcp}</code>`);
    expect(consent.html).toContain('http://127.0.0.1:7');
    // The redirect carries the state and the issuer (RFC 9207).
    expect(flow.redirect.searchParams.get('state')).toBe('st-123');
    expect(flow.redirect.searchParams.get('iss')).toBe(issuer);

    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBeGreaterThan(0);
    expect(tokens.refresh_token).toBeTypeOf('string');
    const at = tokens.access_token as string;
    expect(decodeProtectedHeader(at)).toMatchObject({
      alg: 'RS256',
      typ: 'at+jwt',
      kid: s.engine.signingKey!.kid,
    });
    const claims = decodeJwt(at);
    expect(claims).toMatchObject({ iss: issuer, aud: mcp, sub: ADMIN, email: ADMIN });
    expect(claims.client_id).toBe(clientId);
    expect(claims.scope).toBe('mcp');

    // The existing verifier accepts it for the MCP audience, refuses it for the REST API.
    await expect(s.engine.verifier.verify(at, mcp)).resolves.toMatchObject({ email: ADMIN });
    await expect(s.engine.verifier.verify(at)).rejects.toThrow(/aud/);
    const rest = await s.api('GET', '/projects', { bearer: at });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // A code is good once.
    const again = await oc.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('refresh tokens work and rotate; a used one is refused', async () => {
    const { clientId, tokens } = await oc.obtainTokens();
    const first = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.refresh_token).toBeTypeOf('string');
    expect(first.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(first.body.access_token).not.toBe(tokens.access_token);
    expect(decodeJwt(first.body.access_token)).toMatchObject({ aud: mcp, email: ADMIN });
    await expect(s.engine.verifier.verify(first.body.access_token, mcp)).resolves.toBeTruthy();

    const reused = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    // Replaying a used refresh token revokes the grant: its successor is dead too.
    const successor = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token,
      client_id: clientId,
    });
    expect(successor.status).toBe(400);
    expect(successor.body.error).toBe('invalid_grant');
  });

  it('issues REST API tokens for resource {site}/api/v1, which the REST API accepts', async () => {
    const resource = s.engine.config.auth.audience;
    expect(resource).toBe(`${site}/api/v1`);
    const { tokens } = await oc.obtainTokens({ resource, scope: 'api' });
    const claims = decodeJwt(tokens.access_token);
    expect(claims).toMatchObject({ aud: resource, iss: issuer, email: ADMIN });
    const r = await s.api('GET', '/projects', { bearer: tokens.access_token });
    expect(r.status, r.text).toBe(200);
    expect(Object.keys(r.json.projects)).toContain(s.demo);
    await expect(s.engine.verifier.verify(tokens.access_token, mcp)).rejects.toThrow(/aud/);
  });

  it('without resource or scope, the token is for the MCP server with its scope', async () => {
    const { flow, tokens } = await oc.obtainTokens({ resource: undefined, scope: undefined });
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    expect(flow.pages[1]!.html).toContain(`<code>${mcp}</code>`);
    expect(flow.pages[1]!.html).toMatch(/<code>mcp<\/code>/);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: mcp, email: ADMIN, scope: 'mcp' });
    // The REST resource without a scope gets the REST scope.
    const rest = await oc.obtainTokens({ resource: `${site}/api/v1`, scope: undefined });
    expect(decodeJwt(rest.tokens.access_token)).toMatchObject({
      aud: `${site}/api/v1`,
      scope: 'api',
    });
  });

  it('refuses any other resource (invalid_target)', async () => {
    const { body } = await oc.register();
    for (const resource of ['https://evil.example/mcp', `${site}/mcp/other`, `${site}/`]) {
      const { url } = await oc.authorizationUrl(body.client_id, { resource });
      const flow = await browse(new Browser(), url);
      expect(flow.redirect.searchParams.get('error'), resource).toBe('invalid_target');
    }
  });

  it('refuses plain PKCE and a request without PKCE', async () => {
    const { body } = await oc.register();
    const plain = await oc.authorizationUrl(body.client_id, {
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'plain',
    });
    let flow = await browse(new Browser(), plain.url);
    expect(flow.redirect.searchParams.get('error')).toBe('invalid_request');
    expect(flow.redirect.searchParams.get('error_description')).toMatch(/code_challenge_method/);

    const none = await oc.authorizationUrl(body.client_id, {
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    flow = await browse(new Browser(), none.url);
    expect(flow.redirect.searchParams.get('error')).toBe('invalid_request');
    expect(flow.redirect.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses a wrong code_verifier at the token endpoint', async () => {
    const reg = await oc.register();
    const { url } = await oc.authorizationUrl(reg.body.client_id);
    const flow = await browse(new Browser(), url, {
      login: { email: ADMIN, password: ADMIN_PASSWORD },
    });
    const t = await oc.token({
      grant_type: 'authorization_code',
      code: flow.redirect.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
      client_id: reg.body.client_id,
    });
    expect(t.status).toBe(400);
    expect(t.body.error).toBe('invalid_grant');
  });

  it('refuses a client that did not register', async () => {
    const { url } = await oc.authorizationUrl('never-registered-client');
    const res = await new Browser().request(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(html).toContain('invalid_client');
    expect(html).toContain('Authorization failed');
    const t = await oc.token({
      grant_type: 'authorization_code',
      code: 'whatever',
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
      client_id: 'never-registered-client',
    });
    expect(t.status).toBe(401);
    expect(t.body.error).toBe('invalid_client');
  });

  it('a redirect URI the client did not register is refused without redirecting', async () => {
    const { body } = await oc.register();
    const { url } = await oc.authorizationUrl(body.client_id, {
      redirect_uri: 'https://evil.example/cb',
    });
    const res = await new Browser().request(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('consent denied answers access_denied', async () => {
    const { body } = await oc.register();
    const { url } = await oc.authorizationUrl(body.client_id);
    const flow = await browse(new Browser(), url, {
      login: { email: ADMIN, password: ADMIN_PASSWORD },
      decision: 'deny',
    });
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    expect(flow.redirect.searchParams.get('error')).toBe('access_denied');
    expect(flow.redirect.searchParams.get('code')).toBeNull();
    expect(flow.redirect.searchParams.get('state')).toBe('st-123');
  });

  it('a wrong password shows the sign-in form again (401) and no code is issued', async () => {
    const { body } = await oc.register();
    const { url } = await oc.authorizationUrl(body.client_id);
    const b = new Browser();
    await expect(
      browse(b, url, { login: { email: ADMIN, password: 'wrong-password-1' } }),
    ).rejects.toThrow(/sign-in page shown \(401\)[\s\S]*Wrong e-mail or password/);
  });

  it('an existing ursa_session cookie signs in without a password', async () => {
    const b = new Browser();
    const login = await b.request(`${site}/auth/login`, 'POST', {
      email: ADMIN,
      password: ADMIN_PASSWORD,
    });
    expect(login.status).toBe(303);
    expect(b.cookies.get('ursa_session')).toBeTruthy();
    const { body } = await oc.register();
    const { url } = await oc.authorizationUrl(body.client_id);
    const flow = await browse(b, url); // no credentials given: a sign-in page would throw
    expect(flow.pages.map((p) => p.kind)).toEqual(['consent']);
    expect(flow.redirect.searchParams.get('code')).toBeTruthy();
    // /auth/login and /auth/logout are still the browser sign-in's.
    const form = await b.request(`${site}/auth/login`);
    expect(await form.text()).toContain('<form method="post" action="/auth/login"');
  });

  it('remembers the sign-in for the next client, until /auth/logout ends it', async () => {
    const b = new Browser();
    const login = { email: ADMIN, password: ADMIN_PASSWORD };
    const first = await oc.register();
    let flow = await browse(b, (await oc.authorizationUrl(first.body.client_id)).url, { login });
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    // Another client, same browser: consent only. The same web client again: nothing to ask.
    const web = { redirect_uri: 'https://client.example/cb' };
    const second = await oc.register({ redirect_uris: [web.redirect_uri] });
    flow = await browse(b, (await oc.authorizationUrl(second.body.client_id, web)).url);
    expect(flow.pages.map((p) => p.kind)).toEqual(['consent']);
    flow = await browse(b, (await oc.authorizationUrl(second.body.client_id, web)).url);
    expect(flow.pages).toEqual([]);
    expect(flow.redirect.href).toMatch(/^https:\/\/client\.example\/cb\?code=/);
    // A native client (loopback redirect: any local app could listen there) is asked every
    // time (RFC 8252 §8.6).
    flow = await browse(b, (await oc.authorizationUrl(first.body.client_id)).url);
    expect(flow.pages.map((p) => p.kind)).toEqual(['consent']);

    const out = await b.request(`${site}/auth/logout`, 'POST');
    expect(out.status).toBe(303);
    // Signed out: the password again, and consent again (grants belong to the sign-in).
    flow = await browse(b, (await oc.authorizationUrl(second.body.client_id, web)).url, { login });
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
  });

  it('an unknown or foreign interaction page answers 400, not 500', async () => {
    const r = await new Browser().request(`${site}/auth/interaction/not-a-real-uid`);
    expect(r.status).toBe(400);
    const post = await new Browser().request(`${site}/auth/interaction/nope/consent`, 'POST', {
      decision: 'allow',
    });
    expect(post.status).toBe(400);
  });
});

describe('OAuth state survives a restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-oauth-'));
  let server: RunningServer | undefined;
  const start = (port: number) => startOnPort(dataDir, port);
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a refresh token issued before a restart on the same data directory still works', async () => {
    server = await start(0);
    const port = Number(new URL(server.engine.config.siteUrl).port);
    const oc = oauthClient(() => server!.engine.config.siteUrl);
    const { clientId, tokens } = await oc.obtainTokens();
    await server.close();
    server = undefined;
    // Let the client side see its kept-alive sockets closed: the new server has the same
    // address, and a stale pooled socket would fail the first request.
    await new Promise((r) => setTimeout(r, 200));

    server = await start(port);
    const oc2 = oauthClient(() => server!.engine.config.siteUrl);
    const t = await oc2.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(t.body.refresh_token).not.toBe(tokens.refresh_token);
    const mcp = mcpAudience(server.engine.config);
    await expect(server.engine.verifier.verify(t.body.access_token, mcp)).resolves.toMatchObject({
      email: ADMIN,
    });
    // The rows are in the metadata database.
    const kinds = (
      await server.engine.store.rows<{ kind: string }>(
        sql`SELECT DISTINCT kind FROM oidc_models ORDER BY kind`,
      )
    ).map((r) => r.kind);
    expect(kinds).toEqual(expect.arrayContaining(['Client', 'Grant', 'RefreshToken']));
  });
});

describe('with an external identity provider', () => {
  let idp: FakeIssuer;
  let s: TestServer;
  beforeAll(async () => {
    idp = await startFakeIssuer();
    s = await startTestServer({ URSA_AUTH_ISSUER: idp.url, URSA_AUTH_AUDIENCE: 'ursa-api' });
  });
  afterAll(async () => {
    await s?.close();
    await idp?.close();
  });

  it('mounts no authorization server; the resource metadata names the external issuer', async () => {
    const site = s.engine.config.siteUrl;
    const doc = await json(await fetch(`${site}/.well-known/oauth-protected-resource/mcp`));
    expect(doc).toMatchObject({
      resource: `${site}/mcp`,
      authorization_servers: [idp.url],
      bearer_methods_supported: ['header'],
    });
    for (const p of [
      '/.well-known/oauth-authorization-server/auth',
      '/auth/authorize',
      '/auth/token',
      '/auth/register',
      '/auth/.well-known/oauth-authorization-server',
    ]) {
      const r = await s.api(p.startsWith('/auth/t') ? 'POST' : 'GET', p, { as: null });
      expect(r.status, p).toBe(404);
    }
  });
});

describe('the MCP SDK as an OAuth client', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  /** The SDK's provider contract, kept in memory; the "browser" is driven with fetch. */
  class MemoryOAuthProvider implements OAuthClientProvider {
    client?: OAuthClientInformationMixed;
    saved?: OAuthTokens;
    verifier = '';
    code?: string;
    consentPage = '';
    readonly redirectUrl = REDIRECT;
    readonly clientMetadata: OAuthClientMetadata = {
      client_name: 'SDK test client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
    clientInformation() {
      return this.client;
    }
    saveClientInformation(info: OAuthClientInformationMixed) {
      this.client = info;
    }
    tokens() {
      return this.saved;
    }
    saveTokens(tokens: OAuthTokens) {
      this.saved = tokens;
    }
    saveCodeVerifier(v: string) {
      this.verifier = v;
    }
    codeVerifier() {
      return this.verifier;
    }
    async redirectToAuthorization(url: URL) {
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('resource')).toBe(`${s.engine.config.siteUrl}/mcp`);
      const flow = await browse(new Browser(), url.href, {
        login: { email: ADMIN, password: ADMIN_PASSWORD },
      });
      this.consentPage = flow.pages.find((p) => p.kind === 'consent')?.html ?? '';
      this.code = flow.redirect.searchParams.get('code') ?? undefined;
    }
  }

  it('registers, authorizes with PKCE, exchanges the code, and calls a tool with the token', async () => {
    const serverUrl = `${s.engine.config.siteUrl}/mcp`;
    const provider = new MemoryOAuthProvider();
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    expect(provider.client?.client_id).toBeTruthy();
    expect(provider.consentPage).toContain('SDK test client');
    expect(provider.code).toBeTruthy();
    expect(await auth(provider, { serverUrl, authorizationCode: provider.code })).toBe(
      'AUTHORIZED',
    );
    const at = provider.saved!.access_token;
    expect(decodeJwt(at)).toMatchObject({ aud: serverUrl, email: ADMIN });
    expect(provider.saved!.refresh_token).toBeTruthy();
    // A second auth() refreshes with the stored refresh token, without any page.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(provider.saved!.access_token).not.toBe(at);

    const client = new Client({ name: 'ursa-oauth-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(serverUrl), {
      authProvider: provider,
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'list_projects', arguments: {} });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.structuredContent ?? result.content)).toContain(s.demo);
    } finally {
      await client.close();
    }
  });
});

describe('dynamic client registration is rate-limited per address', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ URSA_OAUTH_REGISTRATIONS_PER_HOUR: '2' });
  });
  afterAll(() => s.close());

  it('answers 429 with Retry-After past the hourly allowance, storing no client', async () => {
    const oc = oauthClient(() => s.url);
    const clients = async () =>
      (
        (
          await s.engine.store.rows<{ n: number }>(
            sql`SELECT count(*) AS n FROM oidc_models WHERE kind = 'Client'`,
          )
        )[0] as { n: number }
      ).n;
    expect((await oc.register()).status).toBe(201);
    expect((await oc.register()).status).toBe(201);
    const before = await clients();
    const third = await oc.register();
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: 'too_many_requests' });
    expect(third.body.error_description).toMatch(/at most 2 client registrations an hour/);
    expect(await clients()).toBe(before);
  });
});

describe('desktop MCP clients register and sign in (RFC 8252)', () => {
  let s: TestServer;
  let site: string;
  const oc = oauthClient(() => site);
  const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';

  beforeAll(async () => {
    s = await startTestServer();
    site = s.engine.config.siteUrl;
  });
  afterAll(() => s.close());

  /** Registration, sign-in and consent, code exchange, all with `redirect`. */
  async function flowTo(redirect: string, authorizeWith = redirect) {
    const reg = await oc.register({ redirect_uris: [redirect] });
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const { url, verifier } = await oc.authorizationUrl(reg.body.client_id, {
      redirect_uri: authorizeWith,
    });
    const flow = await browse(new Browser(), url, {
      login: { email: ADMIN, password: ADMIN_PASSWORD },
    });
    expect(flow.redirect.href.startsWith(`${authorizeWith}?`), flow.redirect.href).toBe(true);
    const code = flow.redirect.searchParams.get('code');
    expect(code, flow.redirect.href).toBeTruthy();
    const t = await oc.token({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: authorizeWith,
      code_verifier: verifier,
      client_id: reg.body.client_id,
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    return { reg, flow, tokens: t.body };
  }

  it("registers Cursor's own payload and completes code + PKCE to its cursor:// redirect", async () => {
    // What Cursor sends, verbatim.
    const res = await fetch((await oc.metadata()).registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Cursor',
        redirect_uris: [CURSOR],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    const reg = await json(res);
    expect(res.status, JSON.stringify(reg)).toBe(201);
    expect(reg).toMatchObject({ redirect_uris: [CURSOR], application_type: 'native' });

    const { flow, tokens } = await flowTo(CURSOR);
    expect(flow.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    expect(flow.redirect.searchParams.get('state')).toBe('st-123');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: `${site}/mcp`, email: ADMIN });
    expect(tokens.refresh_token).toBeTypeOf('string');
    // The token works on the MCP server.
    const list = await fetch(`${site}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain('list_projects');
  });

  it('accepts other private-use schemes and loopback redirects, on any loopback port', async () => {
    await flowTo('vscode://vscode.vscode-mcp/oauth/callback');
    await flowTo('http://127.0.0.1:33418/cb');
    // RFC 8252 §7.3: the port of a loopback redirect may differ at authorization.
    await flowTo('http://127.0.0.1:33418/cb', 'http://127.0.0.1:40123/cb');
    await flowTo('http://[::1]:33418/cb');
    for (const uri of ['http://localhost:8080/callback', 'https://app.example/cb']) {
      const reg = await oc.register({ redirect_uris: [uri] });
      expect(reg.status, `${uri}: ${JSON.stringify(reg.body)}`).toBe(201);
    }
    expect((await oc.register({ redirect_uris: ['https://app.example/cb'] })).body).toMatchObject({
      application_type: 'web',
    });
  });

  it('refuses plain http to any other host with invalid_redirect_uri', async () => {
    for (const uri of [
      'http://evil.example/cb',
      'http://10.0.0.5:8080/cb',
      'http://localhost.evil.example/cb',
    ]) {
      const reg = await oc.register({ redirect_uris: [uri] });
      expect(reg.status, uri).toBe(400);
      expect(reg.body.error).toBe('invalid_redirect_uri');
      expect(reg.body.error_description).toMatch(/plain http is accepted only to a loopback/);
    }
    // Mixed in with good ones it is refused all the same.
    const mixed = await oc.register({ redirect_uris: [CURSOR, 'http://evil.example/cb'] });
    expect(mixed.status).toBe(400);
    for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'file:///etc/passwd']) {
      const reg = await oc.register({ redirect_uris: [uri] });
      expect(reg.status, uri).toBe(400);
    }
  });
});
