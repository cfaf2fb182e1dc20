// The built-in OAuth 2.1 authorization server at {site_url}/auth, for MCP clients and API
// scripts: oidc-provider configured with Ursa's signing key, its metadata database, and
// Ursa's sign-in. Authorization code + PKCE (S256 only), dynamic client registration,
// refresh tokens (rotated), and RFC 8707 resource indicators: access tokens are JWTs for
// exactly one of two resources, the MCP URL or the REST API, that the existing verifier
// accepts unchanged (iss = the issuer, aud = the resource, sub and email = the user).
import { Provider, errors, interactionPolicy, type Configuration } from 'oidc-provider';
import { mcpAudience } from '../../engine/config.js';
import type { Engine } from '../../engine/engine.js';
import { escapeHtml } from '../render/html.js';
import { authPageHtml, OAUTH_SESSION_COOKIE } from '../routes/identity.js';
import { oidcAdapterFactory } from './adapter.js';

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

const DAY = 24 * 3600;
const REFRESH_TOKEN_TTL = 30 * DAY;

export function createProvider(engine: Engine): Provider {
  const { auth } = engine.config;
  if (!engine.signingKey) throw new Error('the OAuth server needs the built-in signing key');
  const resources = oauthResources(engine);
  const resourceOf = (indicator: string) => resources.find((r) => r.indicator === indicator);

  // Consent is asked for every resource not yet granted to the client, even when the
  // request names no scope (the stock checks only look at scopes).
  const policy = interactionPolicy.base();
  policy.get('consent')!.checks.add(
    new interactionPolicy.Check(
      'resource_not_granted',
      'the requested resource was not granted to the client',
      (ctx) => missingResources(ctx).length > 0,
      (ctx) => ({ missingResources: missingResources(ctx) }),
    ),
  );

  const configuration: Configuration = {
    adapter: oidcAdapterFactory(engine.oidcModels),
    jwks: { keys: [engine.signingKey.privateJwk as Record<string, string>] },
    cookies: {
      keys: engine.oauthCookieKeys(),
      names: {
        session: OAUTH_SESSION_COOKIE,
        interaction: 'ursa_oauth_interaction',
        resume: 'ursa_oauth_resume',
      },
    },
    routes: OAUTH_ROUTES,
    // OAuth 2.1: the authorization code flow only (no implicit or hybrid responses).
    responseTypes: ['code'],
    scopes: ['openid', 'offline_access', 'email', MCP_SCOPE, API_SCOPE],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    async findAccount(_ctx, sub) {
      if (!engine.accounts.exists(sub)) return undefined;
      return {
        accountId: sub,
        claims: () => ({ sub, email: sub, email_verified: true }),
      };
    },
    // Public clients (MCP clients are) must use PKCE; oidc-provider 9 knows only S256.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        // No `resource` in the request: the MCP server, the reason this server exists.
        defaultResource: (_ctx, _client, oneOf) => oneOf ?? resources[0]!.indicator,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          const r = resourceOf(indicator);
          if (!r) throw new errors.InvalidTarget(`tokens are only issued for ${resourceList()}`);
          return {
            scope: r.scope,
            audience: r.indicator,
            accessTokenTTL: auth.tokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // Browser-based public clients may call the token and revocation endpoints from the
    // origin of one of their redirect URIs.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' && (client.redirectUris ?? []).some((uri) => originOf(uri) === origin),
    // What the existing verifier reads: the user's e-mail (sub is the e-mail already).
    extraTokenClaims: (_ctx, token) =>
      'accountId' in token ? { email: token.accountId } : undefined,
    // Every client allowed the refresh_token grant gets one (no offline_access needed), and
    // it is rotated on every use; tokens outlive the browser session that granted them.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    expiresWithSession: () => false,
    ttl: {
      AccessToken: auth.tokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: auth.tokenTtlSeconds,
      Interaction: 3600,
      Session: auth.sessionTtlSeconds,
      Grant: REFRESH_TOKEN_TTL,
      // A rotated token keeps the lifetime left to the one it replaces.
      RefreshToken: (ctx) =>
        ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? REFRESH_TOKEN_TTL,
    },
    interactions: {
      policy,
      url: (_ctx, interaction) => `/auth${INTERACTION_PATH}/${interaction.uid}`,
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = authPageHtml(
        'Authorization error',
        `<h1>Authorization failed</h1><p class="error" role="alert">${escapeHtml(out.error)}: ${escapeHtml(
          out.error_description ?? '',
        )}</p><p>Start again from the application that sent you here.</p>`,
      );
    },
  };
  const provider = new Provider(auth.issuer, configuration);
  // Endpoint URLs and cookie security follow the configured site URL (see pinOrigin).
  provider.proxy = true;
  // OAuth 2.1: a request without `scope` gets a default, the requested resource's scope
  // (oidc-provider would otherwise end it with access_denied after consent).
  provider.use(async (ctx, next) => {
    if (ctx.path === OAUTH_ROUTES.authorization && ctx.query.scope === undefined) {
      const { resource } = ctx.query;
      const r = resource === undefined ? resources[0] : resourceOf(String(resource));
      if (r) ctx.query = { ...ctx.query, scope: r.scope };
    }
    await next();
  });
  return provider;

  function resourceList(): string {
    return resources.map((r) => r.indicator).join(' and ');
  }
}

type Ctx = Parameters<NonNullable<Configuration['renderError']>>[0];

/** Resources of this authorization request that the client's grant does not cover yet. */
function missingResources(ctx: Ctx): string[] {
  const granted = ctx.oidc.grant?.resources ?? {};
  return Object.keys(ctx.oidc.resourceServers ?? {}).filter((r) => !granted[r]);
}

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}
