// OAuth for the HTTP app: discovery metadata at the site root, and with the built-in identity
// provider the authorization server itself under /auth (its endpoints, and the sign-in and
// consent pages). /auth/login and /auth/logout stay the browser sign-in's: only the paths
// the provider serves are handed to it. oidc-provider is loaded here, only when it serves.
import express, { type Router } from 'express';
import type { Engine } from '../../engine/engine.js';
import { metadataRouter, pinOrigin } from './metadata.js';
import { changesState, refuseCrossSite } from '../../http/same-origin.js';
import { registrationLimit } from './registration-limit.js';
import { INTERACTION_PATH, OAUTH_ROUTES } from '../../http/oauth-resources.js';

/** The provider's enabled endpoints (below /auth), plus its discovery documents. */
const SERVED = [
  OAUTH_ROUTES.authorization,
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.jwks,
  OAUTH_ROUTES.registration,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.userinfo,
  OAUTH_ROUTES.end_session,
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
];

const servedByProvider = (p: string) => SERVED.some((r) => p === r || p.startsWith(`${r}/`));

/**
 * The provider's one form that its session cookie authenticates: the sign-out confirmation.
 * (Authorization requests may be posted by a client's pages on other sites; consent decides.)
 */
const SIGN_OUT_CONFIRM = `${OAUTH_ROUTES.end_session}/confirm`;

export async function oauthRouter(engine: Engine): Promise<Router> {
  const router = express.Router();
  if (!engine.config.auth.builtin) {
    router.use(metadataRouter(engine, undefined));
    return router;
  }
  const [{ createProvider }, { interactionRouter }] = await Promise.all([
    import('./provider.js'),
    import('./interactions.js'),
  ]);
  const provider = createProvider(engine);
  router.use(metadataRouter(engine, provider));
  router.use(`/auth${INTERACTION_PATH}`, interactionRouter(engine, provider));
  const callback = provider.callback();
  router.post(
    `/auth${OAUTH_ROUTES.registration}`,
    registrationLimit(engine, engine.config.oauthRegistrationsPerHour),
  );
  router.use('/auth', (req, res, next) => {
    if (!servedByProvider(req.path)) return next();
    if (req.path === SIGN_OUT_CONFIRM && changesState(req.method)) refuseCrossSite(engine, req);
    pinOrigin(engine, req);
    void callback(req, res);
  });
  return router;
}
