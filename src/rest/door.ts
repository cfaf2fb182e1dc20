// The REST door: health probes, the identity pages and OAuth server under /auth, the
// unsubscribe page of subscription e-mails, and /api/v1.
// src/server.ts mounts its parts among the other doors' (the order is the server's).
import type { Router } from 'express';
import type { Engine } from '../engine/engine.js';
import { mountRoutes } from '../http/router.js';
import { apiRoutes } from './api.js';
import { oauthRouter } from './oauth/index.js';
import { externalIssuerRoutes, identityRoutes } from './routes/identity.js';
import { healthRoutes } from './routes/health.js';
import { passwordRoutes } from './routes/password.js';
import { unsubscribeRoutes } from './routes/unsubscribe.js';

export { ALIVE, LIVE_PATH, READY_PATH } from './routes/health.js';

export interface RestDoor {
  /** Health probes at the root: public, cheap, never behind anything that could refuse them. */
  probes: Router;
  /** Each at its path, in order: sign-in pages and password links, OAuth metadata and server. */
  identity: Array<[path: string, router: Router]>;
  /** Mounted at API_PREFIX. */
  api: Router;
}

/** Loads the OAuth server first when it serves one (see src/rest/oauth/index.ts). */
export async function restDoor(engine: Engine): Promise<RestDoor> {
  const oauth = await oauthRouter(engine);
  const identity: RestDoor['identity'] = [
    ['/auth', mountRoutes(engine, identityRoutes)],
    ['/auth', mountRoutes(engine, passwordRoutes)],
    // A subscription e-mail's unsubscribe link (signed out: its token is the proof).
    ['/', mountRoutes(engine, unsubscribeRoutes)],
    // OAuth: metadata documents, and the built-in authorization server under /auth; with an
    // external identity provider, our /auth has no discovery or keys to offer.
    ['/', oauth],
  ];
  if (!engine.config.auth.builtin)
    identity.push(['/auth', mountRoutes(engine, externalIssuerRoutes)]);
  return {
    probes: mountRoutes(engine, healthRoutes),
    identity,
    api: mountRoutes(engine, apiRoutes()),
  };
}
