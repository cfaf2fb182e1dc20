// The built-in identity provider's signing key: generated once, kept in the data directory,
// so tokens survive restarts and `npm run ursa -- token` can sign without the server running.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readOrCreateSecretFile } from './secret-file.js';
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
    // Key generation is asynchronous: make the key, then let the first file to land win.
    readOrCreateSecretFile(file, () => JSON.stringify(jwk));
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
  const keys = JSON.parse(
    readOrCreateSecretFile(file, () => JSON.stringify([randomBytes(32).toString('base64url')])),
  ) as unknown;
  if (!Array.isArray(keys) || !keys.length || !keys.every((k) => typeof k === 'string' && k))
    throw new Error(`${file} must be a JSON array of secret strings`);
  return keys as string[];
}
