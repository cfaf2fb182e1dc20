// A tiny external OpenID Connect issuer on loopback: discovery document, JWKS, and a way to
// sign access tokens with its own RS256 key, as a real identity provider would.
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
  close(): Promise<void>;
}

export async function startFakeIssuer(opts: { trailingSlash?: boolean } = {}): Promise<FakeIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = 'fake-issuer-key-1';
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const hits: string[] = [];
  let url = '';
  let base = '';
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      return json({
        issuer: url,
        jwks_uri: `${base}/jwks`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
    if (req.url === '/jwks') return json({ keys: [publicJwk] });
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
