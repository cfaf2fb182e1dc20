// Discovery documents at the site root: RFC 9728 protected-resource metadata for the MCP
// server (at /.well-known/oauth-protected-resource and its /mcp path form, which the /mcp 401
// challenge names) and for the REST API (its /api/v1 path form, named by the API's 401s),
// and, with the built-in provider, RFC 8414 authorization-server metadata in the path form
// for an issuer with a path (/.well-known/oauth-authorization-server/auth).
import express, { type Request, type Response, type Router } from 'express';
import type { Provider } from 'oidc-provider';
import { mcpAudience } from '../../engine/config.js';
import type { Engine } from '../../engine/engine.js';
import {
  API_RESOURCE_METADATA_PATH,
  API_SCOPE,
  MCP_RESOURCE_METADATA_PATHS,
  MCP_SCOPE,
} from '../../http/oauth-resources.js';

const PROTECTED_RESOURCE_PATHS = [...MCP_RESOURCE_METADATA_PATHS, API_RESOURCE_METADATA_PATH];

/** Public documents any web client may read. */
function cors(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', '*');
  res.setHeader('Access-Control-Max-Age', '3600');
}

/** The metadata document at `path` (the API's, or else the MCP server's). */
export function protectedResourceMetadata(engine: Engine, path: string): Record<string, unknown> {
  const { siteUrl, auth } = engine.config;
  const api = path === API_RESOURCE_METADATA_PATH;
  return {
    resource: api ? auth.audience : mcpAudience(engine.config),
    authorization_servers: [auth.issuer],
    bearer_methods_supported: ['header'],
    // An external provider's scopes are its own: none are suggested then.
    ...(auth.builtin ? { scopes_supported: [api ? API_SCOPE : MCP_SCOPE] } : {}),
    resource_name: api ? 'Ursa REST API' : 'Ursa MCP server',
    resource_documentation: `${siteUrl}/docs/${api ? 'api' : 'mcp'}.md`,
  };
}

/**
 * `provider` is the built-in authorization server, absent with an external identity provider
 * (whose own metadata is then the one to read).
 */
export function metadataRouter(engine: Engine, provider: Provider | undefined): Router {
  const router = express.Router();
  router.options(PROTECTED_RESOURCE_PATHS, (_req, res) => {
    cors(res);
    res.status(204).end();
  });
  router.get(PROTECTED_RESOURCE_PATHS, (req, res) => {
    cors(res);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(protectedResourceMetadata(engine, req.path));
  });
  if (provider) {
    const callback = provider.callback();
    // oidc-provider serves this document under its mount (/auth/.well-known/…); the path form
    // is the same document, served with /auth as the mount its URLs are built from.
    const asMetadata = (req: Request, res: Response) => {
      req.url = req.url.replace(
        /^\/\.well-known\/oauth-authorization-server\/auth/,
        '/.well-known/oauth-authorization-server',
      );
      req.baseUrl = '/auth';
      pinOrigin(engine, req);
      return callback(req, res);
    };
    router.get('/.well-known/oauth-authorization-server/auth', asMetadata);
    router.options('/.well-known/oauth-authorization-server/auth', asMetadata);
  }
  return router;
}

/**
 * The provider builds endpoint URLs and decides on Secure cookies from the request (behind
 * a proxy, from X-Forwarded-*): both are pinned to the configured site URL, whatever the
 * client sent, so metadata always agrees with the issuer.
 */
export function pinOrigin(engine: Engine, req: Request): void {
  const site = new URL(engine.config.siteUrl);
  req.headers['x-forwarded-proto'] = site.protocol.slice(0, -1);
  req.headers['x-forwarded-host'] = site.host;
}
