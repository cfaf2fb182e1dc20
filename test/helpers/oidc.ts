// A tiny external OpenID Connect issuer on loopback: discovery document, JWKS, and a way to
// sign access tokens with its own RS256 key, as a real identity provider would; and a browser
// sign-in (authorization code with PKCE) that signs in `login.email` without asking.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';

export interface FakeIssuer {
  /** The issuer identifier: the base URL, with a trailing slash when asked for. */
  url: string;
  /** The base URL, no trailing slash. */
  base: string;
  kid: string;
  /** Requests served, by path, to see that discovery really happened. */
  hits: string[];
  sign(
    claims: JWTPayload,
    opts?: { audience?: string; issuer?: string; expiresIn?: string },
  ): Promise<string>;
  /** The browser sign-in: the client it knows, who signs in, and how to spoil the ID token. */
  login: {
    clientId: string;
    clientSecret: string;
    email: string;
    /** Claims to override in the ID token (`aud`, `nonce`, `iss`…). */
    idTokenClaims?: JWTPayload;
    /** Change a character of the ID token's signature. */
    tamper?: boolean;
  };
  /** Token requests refused, with why (to see what the fake checked). */
  refusals: string[];
  close(): Promise<void>;
}

interface PendingCode {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce?: string;
  email: string;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (data += c));
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

export async function startFakeIssuer(opts: { trailingSlash?: boolean } = {}): Promise<FakeIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'fake-issuer-key-1';
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const hits: string[] = [];
  let url = '';
  let base = '';
  const login: FakeIssuer['login'] = {
    clientId: 'ursa-web',
    clientSecret: 'ursa-web-secret',
    email: 'admin@example.com',
  };
  const refusals: string[] = [];
  const codes = new Map<string, PendingCode>();

  const authorize = (q: URLSearchParams, res: http.ServerResponse) => {
    const redirectUri = q.get('redirect_uri') ?? '';
    const problem =
      q.get('client_id') !== login.clientId
        ? 'unknown client_id'
        : q.get('response_type') !== 'code'
          ? 'response_type must be code'
          : !/^https?:\/\/[^/]+\/auth\/callback$/.test(redirectUri)
            ? 'redirect_uri not registered'
            : !(q.get('scope') ?? '').split(' ').includes('openid')
              ? 'scope must include openid'
              : q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')
                ? 'PKCE S256 required'
                : null;
    if (problem) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      return res.end(problem);
    }
    const code = randomBytes(16).toString('base64url');
    codes.set(code, {
      clientId: login.clientId,
      redirectUri,
      challenge: q.get('code_challenge')!,
      nonce: q.get('nonce') ?? undefined,
      email: login.email,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    if (q.get('state') !== null) back.searchParams.set('state', q.get('state')!);
    res.writeHead(302, { location: back.href }).end();
  };

  const token = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const form = new URLSearchParams(await readBody(req));
    const refuse = (why: string, status = 400) => {
      refusals.push(why);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: why }));
    };
    let clientId = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, sec] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(sec ?? '');
    }
    if (clientId !== login.clientId || secret !== login.clientSecret)
      return refuse('client authentication failed', 401);
    if (form.get('grant_type') !== 'authorization_code') return refuse('unsupported grant_type');
    const pending = codes.get(form.get('code') ?? '');
    if (!pending) return refuse('unknown or used code');
    codes.delete(form.get('code')!);
    if (pending.redirectUri !== form.get('redirect_uri')) return refuse('redirect_uri mismatch');
    const challenge = createHash('sha256')
      .update(form.get('code_verifier') ?? '')
      .digest('base64url');
    if (challenge !== pending.challenge) return refuse('code_verifier does not match');
    let idToken = await new SignJWT({
      email: pending.email,
      email_verified: true,
      ...(pending.nonce ? { nonce: pending.nonce } : {}),
      ...login.idTokenClaims,
    })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer((login.idTokenClaims?.iss as string | undefined) ?? url)
      .setAudience((login.idTokenClaims?.aud as string | undefined) ?? pending.clientId)
      .setSubject('idp-user-1')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey as CryptoKey);
    if (login.tamper) {
      const [h, p, sig] = idToken.split('.') as [string, string, string];
      idToken = `${h}.${p}.${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(
      JSON.stringify({
        access_token: randomBytes(16).toString('base64url'),
        token_type: 'Bearer',
        expires_in: 300,
        id_token: idToken,
      }),
    );
  };

  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const u = new URL(req.url ?? '/', base || 'http://localhost');
    if (u.pathname === '/.well-known/openid-configuration') {
      return json({
        issuer: url,
        jwks_uri: `${base}/jwks`,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (u.pathname === '/jwks') return json({ keys: [publicJwk] });
    if (u.pathname === '/authorize' && req.method === 'GET') return authorize(u.searchParams, res);
    if (u.pathname === '/token' && req.method === 'POST') {
      token(req, res).catch(() => res.writeHead(500).end());
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  url = opts.trailingSlash ? `${base}/` : base;
  return {
    url,
    base,
    kid,
    hits,
    login,
    refusals,
    sign: (claims, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' })
        .setIssuer(opts.issuer ?? url)
        .setAudience(opts.audience ?? 'ursa-api')
        .setIssuedAt()
        .setExpirationTime(opts.expiresIn ?? '10m')
        .sign(privateKey as CryptoKey),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
