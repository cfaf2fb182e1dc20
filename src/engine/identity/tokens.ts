// Bearer access tokens: issued by the built-in provider, verified with jose against the
// issuer's JWKS found through OIDC discovery — the same code path for an external provider.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  SignJWT,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { EngineError } from '../errors.js';
import { uuid } from '../ids.js';
import { SIGNING_ALG, type SigningKey } from './keys.js';

export interface TokenSettings {
  builtin: boolean;
  issuer: string;
  audience: string;
  emailClaim: string;
  tokenTtlSeconds: number;
}

/** An audience this server issues tokens for: what it is called and how a caller gets one. */
export interface KnownAudience {
  url: string;
  name: string;
  howToGet: string;
}

/** Why a bearer token was refused, in RFC 6750 terms. */
export class TokenError extends EngineError {
  constructor(
    readonly rfc6750: 'invalid_token' | 'invalid_request',
    message: string,
  ) {
    super('unauthenticated', message, { error: rfc6750 });
  }
}

export async function issueAccessToken(
  key: SigningKey,
  s: TokenSettings,
  email: string,
  opts: { ttlSeconds?: number; audience?: string } = {},
): Promise<string> {
  return new SignJWT({ email })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'at+jwt' })
    .setIssuer(s.issuer)
    .setAudience(opts.audience ?? s.audience)
    .setSubject(email)
    .setIssuedAt()
    .setJti(uuid())
    .setExpirationTime(`${opts.ttlSeconds ?? s.tokenTtlSeconds}s`)
    .sign(key.privateKey);
}

interface IssuerKeys {
  keys: JWTVerifyGetKey;
  /** The issuer identifier exactly as the provider spells it (and its tokens carry). */
  issuer: string;
}

/** The parts of an OpenID Connect discovery document Ursa reads. */
export interface DiscoveryDocument {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
}

/** Fetch and check an external issuer's discovery document (10 s time limit). */
export async function discoverIssuer(issuer: string): Promise<DiscoveryDocument> {
  const url = `${issuer}/.well-known/openid-configuration`;
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`OIDC discovery at ${url} answered ${res.status}`);
  const doc = (await res.json()) as Partial<DiscoveryDocument>;
  // The configured issuer has its trailing slash trimmed; providers such as Auth0 keep one
  // in their identifier (`https://tenant.auth0.com/`), and their tokens carry it.
  if (typeof doc.issuer !== 'string' || doc.issuer.replace(/\/+$/, '') !== issuer)
    throw new Error(`OIDC discovery at ${url} names issuer ${doc.issuer}, expected ${issuer}`);
  if (!doc.jwks_uri) throw new Error(`OIDC discovery at ${url} has no jwks_uri`);
  return doc as DiscoveryDocument;
}

/** Find the JWKS of an external issuer through its discovery document. */
async function discoverJwks(issuer: string): Promise<IssuerKeys> {
  const doc = await discoverIssuer(issuer);
  return { keys: createRemoteJWKSet(new URL(doc.jwks_uri)), issuer: doc.issuer };
}

export interface VerifiedToken {
  email: string;
  claims: JWTPayload;
}

export class TokenVerifier {
  private keys?: Promise<IssuerKeys>;
  // Verified tokens are remembered until they expire: signature checks dominate request cost.
  private cache = new LRUCache<string, { email: string; claims: JWTPayload; exp: number }>({
    max: 10_000,
  });

  /** `isRevoked`: consulted on every call, also for tokens verified before (revocations.ts). */
  constructor(
    private readonly s: TokenSettings,
    private readonly localKey?: SigningKey,
    private readonly isRevoked: (claims: JWTPayload) => Promise<boolean> = async () => false,
    /** Audiences a refused token may have been meant for: the refusal then says which. */
    private readonly known: KnownAudience[] = [],
  ) {}

  private getKeys(): Promise<IssuerKeys> {
    if (!this.keys) {
      this.keys =
        this.s.builtin && this.localKey
          ? Promise.resolve({
              keys: createLocalJWKSet({ keys: [this.localKey.publicJwk] }),
              issuer: this.s.issuer,
            })
          : discoverJwks(this.s.issuer);
      // A failed discovery must be retried on the next request, not cached forever.
      this.keys.catch(() => (this.keys = undefined));
    }
    return this.keys;
  }

  /**
   * A signed token of ours sent to the other door (a REST token to /mcp, an MCP token to the
   * REST API): which one it is for and how to get the right one; undefined for anything else.
   */
  private wrongAudience(err: unknown, wanted: string): string | undefined {
    if (!(err instanceof joseErrors.JWTClaimValidationFailed) || err.claim !== 'aud') return;
    const aud = err.payload.aud;
    const sent = this.known.find((k) => (Array.isArray(aud) ? aud : [aud]).includes(k.url));
    const want = this.known.find((k) => k.url === wanted);
    if (!sent || !want || sent === want) return;
    return `this access token was issued for ${sent.name} (its "aud" claim), not for ${want.name}: ${want.howToGet}`;
  }

  async verify(token: string, audience = this.s.audience): Promise<VerifiedToken> {
    const cacheKey = createHash('sha256')
      .update(audience)
      .update('\0')
      .update(token)
      .digest('base64url');
    const hit = this.cache.get(cacheKey);
    const nowS = Date.now() / 1000;
    if (hit && hit.exp > nowS) return this.unlessRevoked(hit);
    let issuer: IssuerKeys;
    try {
      issuer = await this.getKeys();
    } catch (err) {
      throw new TokenError('invalid_token', `cannot verify tokens: ${(err as Error).message}`);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, issuer.keys, {
        issuer: issuer.issuer,
        audience,
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        requiredClaims: ['exp'],
      }));
    } catch (err) {
      throw new TokenError(
        'invalid_token',
        this.wrongAudience(err, audience) ?? describeJoseError(err),
      );
    }
    const raw = payload[this.s.emailClaim] ?? payload.sub;
    if (typeof raw !== 'string' || !raw.includes('@')) {
      throw new TokenError(
        'invalid_token',
        `the token has no e-mail in claim "${this.s.emailClaim}" or "sub"`,
      );
    }
    const entry = { email: raw.toLowerCase(), claims: payload, exp: payload.exp ?? nowS };
    this.cache.set(cacheKey, entry);
    return this.unlessRevoked(entry);
  }

  /**
   * The claims of an unexpired access token signed by the built-in provider, whatever its
   * audience; null for anything else (what the revocation endpoint may revoke).
   */
  async ownClaims(token: string): Promise<JWTPayload | null> {
    if (!this.s.builtin || !this.localKey) return null;
    try {
      const { keys, issuer } = await this.getKeys();
      const { payload } = await jwtVerify(token, keys, {
        issuer,
        algorithms: [SIGNING_ALG],
        requiredClaims: ['exp', 'jti'],
      });
      return payload;
    } catch {
      return null;
    }
  }

  private async unlessRevoked(v: VerifiedToken): Promise<VerifiedToken> {
    if (await this.isRevoked(v.claims))
      throw new TokenError('invalid_token', 'the access token was revoked');
    return v;
  }
}

function describeJoseError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the access token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `the access token's "${err.claim}" claim is not accepted: ${err.reason}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the access token signature is invalid';
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return 'the access token was not signed by a key of the issuer';
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return 'the access token uses an algorithm that is not accepted';
  if (err instanceof joseErrors.JWSInvalid || err instanceof joseErrors.JWTInvalid)
    return 'the access token is malformed';
  return `the access token is invalid: ${(err as Error).message}`;
}
