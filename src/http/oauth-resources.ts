// What the OAuth pieces share without loading the authorization server (oidc-provider is
// imported only where OAuth is served: commands and external-IdP servers never load it).
import { mcpAudience } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';

/** Where the provider's endpoints live under /auth. Every route is named, none is a default. */
export const OAUTH_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  jwks: '/jwks',
  registration: '/register',
  revocation: '/revoke',
  userinfo: '/me',
  end_session: '/session/end',
  introspection: '/token/introspection',
  backchannel_authentication: '/backchannel',
  code_verification: '/device',
  device_authorization: '/device/auth',
  pushed_authorization_request: '/request',
  challenge: '/challenge',
  credential: '/credential',
} as const;

/** The sign-in and consent pages, under /auth too (src/rest/oauth/interactions.ts). */
export const INTERACTION_PATH = '/interaction';

/** Scopes of the two resources; informative (the audience is what resources enforce). */
export const MCP_SCOPE = 'mcp';
export const API_SCOPE = 'api';

/** RFC 9728 metadata of the MCP server (the root form and its /mcp path form). */
export const MCP_RESOURCE_METADATA_PATHS = [
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
];
/** RFC 9728 metadata of the REST API, in the path form for /api/v1. */
export const API_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/api/v1';

export interface OAuthResource {
  /** The RFC 8707 resource indicator, which becomes the access token's `aud`. */
  indicator: string;
  scope: string;
  /** How the consent screen names it. */
  label: string;
}

/** The only resources tokens can be issued for: the MCP server and the REST API. */
export function oauthResources(engine: Engine): OAuthResource[] {
  return [
    { indicator: mcpAudience(engine.config), scope: MCP_SCOPE, label: 'the Ursa MCP server' },
    { indicator: engine.config.auth.audience, scope: API_SCOPE, label: 'the Ursa REST API' },
  ];
}
