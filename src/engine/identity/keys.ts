// The built-in identity provider's signing key: generated once, kept in the data directory,
// so tokens survive restarts and `npm run ursa -- token` can sign without the server running.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';

export const SIGNING_ALG = 'RS256'; // RSA: universally supported by clients, and cheap to verify.

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  /** The whole key as a JWK, for the OAuth server (oidc-provider) that signs with it too. */
  privateJwk: JWK;
}

export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const file = path.join(dataDir, 'keys', 'signing-key.jwk.json');
  if (!fs.existsSync(file)) {
    const { privateKey } = await generateKeyPair(SIGNING_ALG, {
      extractable: true,
      modulusLength: 2048,
    });
    const jwk = await exportJWK(privateKey);
    jwk.kid = `ursa-${Date.now().toString(36)}`;
    jwk.alg = SIGNING_ALG;
    jwk.use = 'sig';
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(jwk), { mode: 0o600 });
    // A concurrent first start may have won the race: keep whichever key landed first.
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const jwk = JSON.parse(fs.readFileSync(file, 'utf8')) as JWK;
  const privateKey = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
  const { kty, n, e, kid, alg, use } = jwk;
  return {
    kid: kid ?? 'ursa',
    privateKey,
    publicJwk: { kty, n, e, kid, alg, use },
    privateJwk: jwk,
  };
}

/**
 * Keys that sign the OAuth server's cookies (keys/oauth-cookie-keys.json): generated once,
 * newest first; an older key still verifies cookies set before a rotation.
 */
export function loadOrCreateCookieKeys(dataDir: string): string[] {
  const file = path.join(dataDir, 'keys', 'oauth-cookie-keys.json');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify([randomBytes(32).toString('base64url')]), {
      mode: 0o600,
    });
    // Two first starts at once: the first file to land wins for both.
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  const keys = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(keys) || !keys.length || !keys.every((k) => typeof k === 'string' && k))
    throw new Error(`${file} must be a JSON array of secret strings`);
  return keys as string[];
}
