// The HTTP side of the engine's attempt limits (src/engine/identity/throttle.ts): who the
// client is (its address, through URSA_TRUST_PROXY proxies) and the 429 answer.
import type { Request } from 'express';
import type { Engine } from '../engine/engine.js';
import type { Guess } from '../engine/identity/throttle.js';
import { HttpError } from './errors.js';

/** The attempt-limit scope of password sign-ins (/auth/login and the OAuth sign-in page). */
export const SIGN_IN_SCOPE = 'sign-in';

/** The client's address: the socket's, or the one trusted proxies forwarded. */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

export function tooManyAttempts(retryAfter: number, what: string): HttpError {
  return new HttpError(
    429,
    `${what}; retry in ${retryAfter} s`,
    { retryAfter },
    { 'Retry-After': String(retryAfter) },
  );
}

/**
 * Counts a check of `account`'s secret within `scope` from this client, or answers 429 when
 * that account from this address, or this address, failed too often lately.
 */
export async function guessOrRefuse(
  engine: Engine,
  req: Request,
  scope: string,
  account: string,
): Promise<Guess> {
  const guess = await engine.throttle.guess(scope, account, clientAddress(req));
  if (guess.retryAfter !== null)
    throw tooManyAttempts(guess.retryAfter, 'too many failed attempts from this address');
  return guess;
}
