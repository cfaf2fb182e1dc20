// Secrets of credentials objects, encrypted at rest with AES-256-GCM. The key lives in the
// data directory (keys/secrets.key, 0600), apart from the metadata database, so a copy of the
// database alone reveals no password. The ciphertext is bound to its project and object id:
// copied into another object, it does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readOrCreateSecretFile } from '../identity/secret-file.js';
import path from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12; // the GCM standard nonce size
const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Reads the key, generating it on first use. */
  static open(dataDir: string): SecretBox {
    return new SecretBox(loadOrCreateKey(path.join(dataDir, 'keys', 'secrets.key')));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  encrypt(plain: string, boundTo: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url'));
    return [VERSION, ...parts].join('.');
  }

  decrypt(sealed: string, boundTo: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined)
      throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ct, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }
}

function loadOrCreateKey(file: string): Buffer {
  const text = readOrCreateSecretFile(file, () => randomBytes(KEY_BYTES).toString('base64'));
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES)
    throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key; restore it from a backup`);
  return key;
}
