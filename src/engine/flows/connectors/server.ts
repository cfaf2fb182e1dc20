// The server a credentials object names (PostgreSQL, SFTP): host and user present, the
// address the network guard allowed, and messages scrubbed of the secret.
import { BoxError } from '../errors.js';
import { resolveServer } from './net-guard.js';
import type { Credentials, ReadContext } from './types.js';

export interface CredentialServer {
  /** The address to connect to (no second DNS lookup). */
  target: { address: string; family: 4 | 6 };
  port: number;
  user: string;
  /** `host:port`, for messages. */
  where: string;
  /** Text without the secret (nor any line of a key). */
  clean(text: string): string;
}

export async function credentialServer(
  what: string,
  cred: Credentials,
  defaultPort: number,
  ctx: ReadContext,
): Promise<CredentialServer> {
  ctx.signal.throwIfAborted();
  if (!cred.host) throw new BoxError(ctx.box, 'credentials', 'the credentials have no host');
  if (!cred.user) throw new BoxError(ctx.box, 'credentials', 'the credentials have no user');
  const port = cred.port ?? defaultPort;
  const target = await resolveServer(what, cred.host, port, ctx);
  ctx.signal.throwIfAborted();
  return {
    target,
    port,
    user: cred.user,
    where: `${cred.host}:${port}`,
    clean: (text) => scrubSecret(text, cred.secret),
  };
}

/** `***` for the secret, and for each long line of it (a private key quoted in part). */
export function scrubSecret(text: string, secret: string | null): string {
  if (!secret) return text;
  let out = text;
  for (const part of [secret, ...secret.split(/\r?\n/)])
    if (part.trim().length >= 8 || (part === secret && part.length >= 3))
      out = out.split(part).join('***');
  return out;
}
