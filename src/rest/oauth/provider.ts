// The built-in OAuth 2.1 authorization server at {site_url}/auth, for MCP clients and API
// scripts: oidc-provider configured with Ursa's signing key, its metadata database, and
// Ursa's sign-in. Authorization code + PKCE (S256 only), dynamic client registration,
// refresh tokens (rotated), and RFC 8707 resource indicators: access tokens are JWTs for
// exactly one of two resources, the MCP URL or the REST API, that the existing verifier
// accepts unchanged (iss = the issuer, aud = the resource, sub and email = the user).
import { Provider, errors, interactionPolicy, type Configuration } from 'oidc-provider';
import type { Engine } from '../../engine/engine.js';
import { GRANT_CLAIM } from '../../engine/identity/revocations.js';
import { authPage, OAUTH_SESSION_COOKIE } from '../routes/identity.js';
import { html, raw } from '../../shared/html.js';
import { pageHeaders, type Page } from '../../web/page.js';
import { oidcAdapterFactory } from './adapter.js';
import { nativeRedirects } from './redirects.js';
import {
  API_SCOPE,
  INTERACTION_PATH,
  MCP_SCOPE,
  OAUTH_ROUTES,
  oauthResources,
} from '../../http/oauth-resources.js';

const DAY = 24 * 3600;

// No script runs unless the provider names it by hash ('strict-dynamic' alone allows none).
const PROVIDER_CSP =
  "default-src 'none'; script-src 'strict-dynamic'; base-uri 'none'; frame-ancestors 'none'";
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
      if (!(await engine.accounts.exists(sub))) return undefined;
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
      // A client may revoke only its own tokens (oidc-provider's default rule, stated here so
      // it does not log its "you SHOULD change it" notice).
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, client, token) => {
          if (token.clientId === client.clientId) return true;
          if (client.clientAuthMethod === 'none') return false;
          throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
        },
      },
      // The sign-out pages of /auth/session/end in Ursa's look and with its page headers.
      rpInitiatedLogout: {
        enabled: true,
        // `form` is the provider's own hidden form (its action and an anti-forgery token).
        logoutSource: (ctx, form) =>
          answerPage(
            ctx,
            authPage(
              'Sign out',
              html`<h1>Sign out of Ursa?</h1>${raw(form)}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Sign out</button><button type="submit" form="op.logoutForm" class="secondary">Stay signed in</button>`,
              { formsLeaveSite: true },
            ),
          ),
        postLogoutSuccessSource: (ctx) =>
          answerPage(
            ctx,
            authPage(
              'Signed out',
              html`<h1>Signed out</h1><p>You are signed out of Ursa${ctx.oidc.client?.clientName && html` and ${ctx.oidc.client.clientName}`}.</p>`,
            ),
          ),
      },
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
    // What the existing verifier reads: the user's e-mail (sub is the e-mail already), and
    // the grant, so that revoking it stops its access tokens (src/engine/identity/revocations.ts).
    extraTokenClaims: (_ctx, token) =>
      'accountId' in token ? { email: token.accountId, [GRANT_CLAIM]: token.grantId } : undefined,
    // Redirect URIs follow RFC 8252 (src/rest/oauth/redirects.ts); the hook runs before
    // oidc-provider's own checks and may set application_type.
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator: (ctx, key, value, metadata) => {
        if (value !== undefined && (typeof value !== 'string' || value.length > 200))
          throw new errors.InvalidClientMetadata(
            `${key} must be a string of at most 200 characters`,
          );
        // Only at registration: stored clients keep the type they were registered with.
        if (key !== 'software_id' || !ctx) return;
        const refused = nativeRedirects(metadata.redirect_uris);
        if (typeof refused === 'string') throw new errors.InvalidClientMetadata(refused);
        if (refused) metadata.application_type = 'native';
      },
    },
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
    renderError: (ctx, out) =>
      answerPage(
        ctx,
        authPage(
          'Authorization error',
          html`<h1>Authorization failed</h1><p class="error" role="alert">${out.error}: ${out.error_description ?? ''}</p><p>Start again from the application that sent you here.</p>`,
        ),
      ),
  };
  const provider = new Provider(auth.issuer, configuration);
  // Endpoint URLs and cookie security follow the configured site URL (see pinOrigin).
  provider.proxy = true;
  // Pages the provider writes itself (form_post's self-submitting form to the client) get a
  // policy too; the provider adds its inline script's hash to script-src, and our own pages
  // (renderError, sign-out) replace it with theirs.
  provider.use(async (ctx, next) => {
    ctx.set({ 'Content-Security-Policy': PROVIDER_CSP, 'X-Content-Type-Options': 'nosniff' });
    await next();
  });
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
  // Access tokens are JWTs, which oidc-provider does not store and so answers
  // unsupported_token_type at the revocation endpoint: once it has authenticated the client,
  // an access token of ours is revoked here (RFC 7009: 200 also for unknown tokens).
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: string } | undefined;
    const client = ctx.oidc?.client;
    if (ctx.oidc?.route !== 'revocation' || body?.error !== 'unsupported_token_type' || !client)
      return;
    const claims = await engine.verifier.ownClaims(String(ctx.oidc.params?.token ?? ''));
    ctx.status = 200;
    ctx.body = '';
    if (!claims?.jti || !claims.exp) return;
    if (claims.client_id !== undefined && claims.client_id !== client.clientId) {
      if (client.clientAuthMethod === 'none') return;
      ctx.status = 400;
      ctx.body = {
        error: 'invalid_request',
        error_description: 'client is not authorized to revoke the presented token',
      };
      return;
    }
    await engine.revocations.revokeToken(claims.jti, claims.exp);
  });
  return provider;

  function resourceList(): string {
    return resources.map((r) => r.indicator).join(' and ');
  }
}

type Ctx = Parameters<NonNullable<Configuration['renderError']>>[0];

/** Answers one of our pages through the provider's (koa) context. */
function answerPage(ctx: Ctx, page: Page): void {
  ctx.set(pageHeaders(page));
  ctx.body = page.html;
}

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
