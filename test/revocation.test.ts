// Revocation over real HTTP: revoking an access token (a JWT), a refresh token (its grant) or
// a grant by reusing a rotated refresh token stops the access tokens concerned on every route
// (REST, WebDAV with a bearer token, MCP), at once; other clients cannot revoke them.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthClient } from './helpers/oauth.js';
import { ADMIN, startTestServer, type TestServer } from './helpers/server.js';

describe('revocation stops access tokens on every route', () => {
  let s: TestServer;
  let site: string;
  const oc = oauthClient(() => site);

  beforeAll(async () => {
    s = await startTestServer();
    site = s.engine.config.siteUrl;
  });
  afterAll(() => s.close());

  async function revoke(form: Record<string, string>) {
    const res = await fetch((await oc.metadata()).revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    const text = await res.text();
    return { status: res.status, text };
  }

  /** The status of each route called with `token` (REST and WebDAV want a REST token). */
  async function routes(token: string, audience: 'api' | 'mcp') {
    if (audience === 'mcp') {
      const r = await fetch(`${site}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      await r.arrayBuffer();
      return { mcp: r.status, challenge: r.headers.get('www-authenticate') };
    }
    const rest = await s.api('GET', '/projects', { bearer: token });
    const dav = await fetch(`${site}/api/v1/projects/${s.demo}/webdav/`, {
      method: 'PROPFIND',
      headers: { authorization: `Bearer ${token}`, depth: '0' },
    });
    await dav.arrayBuffer();
    return {
      rest: rest.status,
      webdav: dav.status,
      challenge: rest.headers.get('www-authenticate'),
    };
  }

  const api = () => ({ resource: `${site}/api/v1`, scope: 'api' });

  it('revoking an access token stops it on REST and WebDAV; its refresh token lives on', async () => {
    const { clientId, tokens } = await oc.obtainTokens(api());
    expect(await routes(tokens.access_token, 'api')).toMatchObject({ rest: 200, webdav: 207 });
    const r = await revoke({
      token: tokens.access_token,
      token_type_hint: 'access_token',
      client_id: clientId,
    });
    expect(r.status, r.text).toBe(200);
    const after = await routes(tokens.access_token, 'api');
    expect(after).toMatchObject({ rest: 401, webdav: 401 });
    expect(after.challenge).toContain('error="invalid_token"');
    expect(after.challenge).toContain('revoked');
    // Only that token: the grant and its refresh token still work.
    const t = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    expect(await routes(t.body.access_token, 'api')).toMatchObject({ rest: 200, webdav: 207 });
  });

  it('revoking an MCP access token stops it on /mcp', async () => {
    const { clientId, tokens } = await oc.obtainTokens();
    expect((await routes(tokens.access_token, 'mcp')).mcp).toBe(200);
    expect((await revoke({ token: tokens.access_token, client_id: clientId })).status).toBe(200);
    const after = await routes(tokens.access_token, 'mcp');
    expect(after.mcp).toBe(401);
    expect(after.challenge).toContain('error="invalid_token"');
  });

  it('revoking a refresh token revokes its grant: the access tokens issued under it stop', async () => {
    const { clientId, tokens } = await oc.obtainTokens();
    const refreshed = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    const at = [tokens.access_token as string, refreshed.body.access_token as string];
    for (const t of at) expect((await routes(t, 'mcp')).mcp).toBe(200);
    const r = await revoke({
      token: refreshed.body.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: clientId,
    });
    expect(r.status, r.text).toBe(200);
    for (const t of at) expect((await routes(t, 'mcp')).mcp).toBe(401);
    const again = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: clientId,
    });
    expect(again.body.error).toBe('invalid_grant');
  });

  it('a reused refresh token revokes the grant, and its access tokens stop', async () => {
    const { clientId, tokens } = await oc.obtainTokens(api());
    const first = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(first.status).toBe(200);
    expect(await routes(first.body.access_token, 'api')).toMatchObject({ rest: 200 });
    // Someone replays the rotated token: the whole grant ends.
    const replay = await oc.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(replay.body.error).toBe('invalid_grant');
    expect(await routes(first.body.access_token, 'api')).toMatchObject({ rest: 401, webdav: 401 });
  });

  it("another client cannot revoke a client's token; the holder of a command-line token can", async () => {
    const { tokens } = await oc.obtainTokens(api());
    const other = await oc.register();
    expect(
      (await revoke({ token: tokens.access_token, client_id: other.body.client_id })).status,
    ).toBe(200);
    expect(await routes(tokens.access_token, 'api')).toMatchObject({ rest: 200 });

    // `npm run ursa -- token` tokens belong to no client: any client may revoke one it holds.
    const cli = await s.engine.issueToken(ADMIN);
    expect(decodeJwt(cli).client_id).toBeUndefined();
    expect((await routes(cli, 'api')).rest).toBe(200);
    expect((await revoke({ token: cli, client_id: other.body.client_id })).status).toBe(200);
    expect((await routes(cli, 'api')).rest).toBe(401);
  });

  it('unknown tokens are answered 200 (RFC 7009); a client that did not authenticate is refused', async () => {
    const reg = await oc.register();
    expect((await revoke({ token: 'not-a-token', client_id: reg.body.client_id })).status).toBe(
      200,
    );
    const anonymous = await revoke({ token: await s.engine.issueToken(ADMIN) });
    expect(anonymous.status).toBe(400);
    expect(JSON.parse(anonymous.text).error).toBe('invalid_request');
  });
});
