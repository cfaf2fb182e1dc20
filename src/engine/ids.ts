import { randomBytes, randomUUID } from 'node:crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A lowercase alphanumeric id; 12 chars ≈ 62 bits, enough for suffixes and generated ids. */
export function randomId(length = 12): string {
  const bytes = randomBytes(length);
  let out = '';
  // 256 % 36 bias is negligible for identifiers that only need to be unique.
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export const uuid = (): string => randomUUID();

export const nowIso = (): string => new Date().toISOString();
