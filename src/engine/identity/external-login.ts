// Browser sign-in through an external OpenID Connect provider: the authorization code flow
// with PKCE. Nothing is kept in server memory between the two legs: state, nonce, verifier
// and `next` travel in an encrypted, short-lived cookie (several processes may serve them).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { discoverIssuer, type DiscoveryDocument } from './tokens.js';

/** The cookie carrying the sign-in in progress. */
export const LOGIN_STATE_COOKIE = 'ursa_login_state';
export const LOGIN_STATE_TTL_SECONDS = 600;
const PROVIDER_TIMEOUT_MS = 10_000;

export interface ExternalLoginSettings {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  emailClaim: string;
  /** `{site_url}/auth/callback`. */
  redirectUri: string;
}

export interface LoginState {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** Why a sign-in failed: `status` 400 (the request), 401 (the identity) or 502 (the provider). */
export class ExternalLoginError extends Error {
  constructor(
    readonly status: 400 | 401 | 502,
    message: string,
  ) {
    super(message);
  }
}

const b64u = (b: Buffer) => b.toString('base64url');

function cipherKey(secret: string): Buffer {
  return createHash('sha256').update('ursa-login-state\0').update(secret).digest();
}

/** AES-256-GCM under the newest cookie key. */
export function sealLoginState(keys: string[], s: LoginState): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', cipherKey(keys[0]!), iv);
  const body = Buffer.concat([c.update(JSON.stringify(s), 'utf8'), c.final()]);
  return `${b64u(iv)}.${b64u(body)}.${b64u(c.getAuthTag())}`;
}

/** The sign-in state in the cookie, or null when it is missing, forged or expired. */
export function openLoginState(keys: string[], sealed: string | undefined): LoginState | null {
  const parts = sealed?.split('.');
  if (parts?.length !== 3) return null;
  const [iv, body, tag] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== 12 || tag.length !== 16) return null;
  for (const key of keys) {
    try {
      const d = createDecipheriv('aes-256-gcm', cipherKey(key), iv);
      d.setAuthTag(tag);
      const s = JSON.parse(
        Buffer.concat([d.update(body), d.final()]).toString('utf8'),
      ) as LoginState;
      if (typeof s.exp !== 'number' || s.exp < Date.now() / 1000) return null;
      return s;
    } catch {
      // another key, or not ours
    }
  }
  return null;
}

export class ExternalLogin {
  private discovery?: Promise<{ doc: DiscoveryDocument; keys: JWTVerifyGetKey }>;

  constructor(private readonly s: ExternalLoginSettings) {}

  private discover() {
    if (!this.discovery) {
      this.discovery = discoverIssuer(this.s.issuer).then((doc) => {
        if (!doc.authorization_endpoint || !doc.token_endpoint)
          throw new Error('its discovery document has no authorization_endpoint or token_endpoint');
        return { doc, keys: createRemoteJWKSet(new URL(doc.jwks_uri)) };
      });
      // A failed discovery is retried on the next sign-in, not cached forever.
      this.discovery.catch(() => (this.discovery = undefined));
    }
    return this.discovery.catch((err: Error) => {
      throw new ExternalLoginError(
        502,
        `the identity provider ${this.s.issuer} cannot be reached: ${err.message}`,
      );
    });
  }

  /** Where to send the browser, and the state to keep in the cookie meanwhile. */
  async start(next: string): Promise<{ url: string; state: LoginState }> {
    const { doc } = await this.discover();
    const state: LoginState = {
      state: b64u(randomBytes(24)),
      nonce: b64u(randomBytes(24)),
      verifier: b64u(randomBytes(32)),
      next,
      exp: Math.floor(Date.now() / 1000) + LOGIN_STATE_TTL_SECONDS,
    };
    const url = new URL(doc.authorization_endpoint!);
    const params = {
      response_type: 'code',
      client_id: this.s.clientId,
      redirect_uri: this.s.redirectUri,
      scope: 'openid email profile',
      state: state.state,
      nonce: state.nonce,
      code_challenge: b64u(createHash('sha256').update(state.verifier).digest()),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { url: url.href, state };
  }

  /** Exchange the code, verify the ID token, and answer the e-mail it names. */
  async finish(code: string, st: LoginState): Promise<string> {
    const { doc, keys } = await this.discover();
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.s.redirectUri,
      code_verifier: st.verifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const methods = doc.token_endpoint_auth_methods_supported;
    if (this.s.clientSecret && methods && !methods.includes('client_secret_basic')) {
      form.set('client_id', this.s.clientId);
      form.set('client_secret', this.s.clientSecret);
    } else if (this.s.clientSecret) {
      const enc = (v: string) => encodeURIComponent(v);
      headers.authorization = `Basic ${Buffer.from(`${enc(this.s.clientId)}:${enc(this.s.clientSecret)}`).toString('base64')}`;
    } else form.set('client_id', this.s.clientId);
    let res: Response;
    let body: { id_token?: unknown; error?: unknown; error_description?: unknown };
    try {
      res = await fetch(doc.token_endpoint!, {
        method: 'POST',
        headers,
        body: form,
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      });
      body = (await res.json()) as typeof body;
    } catch (err) {
      throw new ExternalLoginError(
        502,
        `the identity provider's token endpoint cannot be reached: ${(err as Error).message}`,
      );
    }
    if (!res.ok) {
      const why = [body.error, body.error_description].filter((v) => typeof v === 'string');
      throw new ExternalLoginError(
        res.status >= 500 ? 502 : 400,
        `the identity provider refused the sign-in code (${res.status}${why.length ? `: ${why.join(': ')}` : ''})`,
      );
    }
    if (typeof body.id_token !== 'string')
      throw new ExternalLoginError(502, 'the identity provider answered no ID token');
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(body.id_token, keys, {
        issuer: doc.issuer,
        audience: this.s.clientId,
        algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256', 'ES384', 'EdDSA'],
        requiredClaims: ['exp', 'iat'],
        clockTolerance: 30,
      }));
    } catch (err) {
      throw new ExternalLoginError(401, describeIdTokenError(err));
    }
    if (claims.nonce !== st.nonce)
      throw new ExternalLoginError(401, "the ID token does not carry this sign-in's nonce");
    if (claims.email_verified === false && this.s.emailClaim === 'email')
      throw new ExternalLoginError(401, 'the identity provider has not verified this e-mail');
    const raw = claims[this.s.emailClaim] ?? claims.sub;
    if (typeof raw !== 'string' || !raw.includes('@'))
      throw new ExternalLoginError(
        401,
        `the ID token has no e-mail in claim "${this.s.emailClaim}" or "sub"`,
      );
    return raw.toLowerCase();
  }
}

function describeIdTokenError(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the ID token has expired';
  if (err instanceof joseErrors.JWTClaimValidationFailed)
    return `the ID token's "${err.claim}" claim is not accepted: ${err.reason}`;
  if (err instanceof joseErrors.JWSSignatureVerificationFailed)
    return 'the ID token signature is invalid';
  if (err instanceof joseErrors.JWKSNoMatchingKey)
    return 'the ID token was not signed by a key of the identity provider';
  if (err instanceof joseErrors.JOSEAlgNotAllowed)
    return 'the ID token uses an algorithm that is not accepted';
  if (err instanceof joseErrors.JWKSTimeout || err instanceof joseErrors.JWKSInvalid)
    return `the identity provider's keys cannot be read: ${(err as Error).message}`;
  return `the ID token is invalid: ${(err as Error).message}`;
}
