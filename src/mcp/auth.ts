// Who is calling /mcp: a bearer token from the Authorization header only (no cookies, no
// query), verified for the MCP audience (RFC 8707: the MCP URL unless URSA_MCP_AUDIENCE says
// otherwise), so tokens issued for the REST API are refused here and the other way round.
// Refusals are 401s whose challenge points at the protected-resource metadata (RFC 9728).
import type { Request } from 'express';
import type { Principal } from '../engine/access/actor.js';
import { mcpAudience } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import { TokenError } from '../engine/identity/tokens.js';
import { HttpError } from '../http/errors.js';
import { MCP_SCOPE } from '../http/oauth-resources.js';

export const resourceMetadataUrl = (siteUrl: string) =>
  `${siteUrl}/.well-known/oauth-protected-resource/mcp`;

/**
 * `WWW-Authenticate` for /mcp: the resource metadata and, with the built-in provider, the scope
 * to ask for; error and description only when a token was sent.
 */
export function mcpChallenge(
  engine: Engine,
  extra?: { error: string; description: string },
): string {
  const scope = engine.config.auth.builtin ? `, scope="${MCP_SCOPE}"` : '';
  const base = `Bearer resource_metadata="${resourceMetadataUrl(engine.config.siteUrl)}"${scope}`;
  if (!extra) return base;
  return `${base}, error="${extra.error}", error_description="${extra.description.replace(/["\\]/g, "'")}"`;
}

const refuse = (engine: Engine, message: string, extra?: { error: string; description: string }) =>
  new HttpError(401, message, extra ? { error: extra.error } : {}, {
    'WWW-Authenticate': mcpChallenge(engine, extra),
  });

/** The caller of an /mcp request, or a 401 HttpError carrying the challenge. */
export async function mcpPrincipal(engine: Engine, req: Request): Promise<Principal> {
  const header = req.headers.authorization;
  if (header === undefined)
    throw refuse(
      engine,
      'authentication required: send "Authorization: Bearer <access token>" issued for this MCP server',
    );
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  if (!m) {
    const description = 'expected a Bearer token';
    throw refuse(engine, `the Authorization header must be "Bearer <access token>"`, {
      error: 'invalid_request',
      description,
    });
  }
  try {
    const v = await engine.verifier.verify(m[1]!, mcpAudience(engine.config));
    return { email: v.email };
  } catch (err) {
    if (err instanceof TokenError)
      throw refuse(engine, err.message, { error: err.rfc6750, description: err.message });
    throw err;
  }
}
