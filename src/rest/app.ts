// The HTTP application: request ids and logs, the identity provider, /api/v1, the public
// site, and one error handler that answers every failure in the spec's error shape.
import express, { type NextFunction, type Request, type Response } from 'express';
import { API_PREFIX, MCP_PATH } from '../engine/config.js';
import type { Engine } from '../engine/engine.js';
import { uuid } from '../engine/ids.js';
import { logContext } from '../engine/logger.js';
import { mcpRouter } from '../mcp/http.js';
import { siteRoutes } from '../site/routes.js';
import { apiRoutes } from './api.js';
import { challenge } from './auth.js';
import { HttpError, toErrorBody } from './errors.js';
import { negotiate, type Format } from './negotiate.js';
import { write } from './respond.js';
import { mountRoutes } from './router.js';
import { oauthRouter } from './oauth/index.js';
import { externalIssuerRoutes, identityRoutes } from './routes/identity.js';
import { healthRoutes, LIVE_PATH, READY_PATH } from './routes/health.js';
import { passwordRoutes } from './routes/password.js';
import { refuseUnstorableUrl } from './storable.js';
import { webdavRouter } from './webdav/handler.js';

const REQ_ID = /^[\w.:-]{1,64}$/;
/** Polled every second or so by load balancers: their requests are logged at debug only. */
const PROBES = new Set([LIVE_PATH, READY_PATH]);

/** The app; loads the OAuth server first when it serves one (see src/rest/oauth/index.ts). */
export async function createApp(engine: Engine): Promise<express.Express> {
  const oauth = await oauthRouter(engine);
  const app = express();
  app.disable('x-powered-by');
  // Client addresses (attempt limits) come from X-Forwarded-For only through trusted proxies.
  app.set('trust proxy', engine.config.trustProxy);
  app.set('etag', false);
  app.set('query parser', 'extended');

  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const reqId = typeof given === 'string' && REQ_ID.test(given) ? given : uuid();
    res.setHeader('X-Request-Id', reqId);
    const start = process.hrtime.bigint();
    const level = PROBES.has(req.path) ? 'debug' : 'info';
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logContext.run({ reqId }, () =>
        engine.log[level](
          {
            method: req.method,
            url: req.originalUrl,
            status: res.statusCode,
            ms: Math.round(ms * 10) / 10,
          },
          'request',
        ),
      );
    });
    logContext.run({ reqId }, next);
  });

  // A path segment or query parameter holding NUL is refused at once, for every door below.
  app.use(refuseUnstorableUrl);
  // Health probes first: public, cheap, and never behind anything that could refuse them.
  app.use('/', mountRoutes(engine, healthRoutes));
  app.use('/auth', mountRoutes(engine, identityRoutes));
  app.use('/auth', mountRoutes(engine, passwordRoutes));
  // OAuth: metadata documents, and the built-in authorization server under /auth; with an
  // external identity provider, our /auth has no discovery or keys to offer.
  app.use(oauth);
  if (!engine.config.auth.builtin) app.use('/auth', mountRoutes(engine, externalIssuerRoutes));
  // WebDAV before the route table: its own methods, auth and errors, and PUT bodies streamed.
  app.use(`${API_PREFIX}/projects/:project/webdav`, webdavRouter(engine));
  app.use(API_PREFIX, mountRoutes(engine, apiRoutes()));
  app.use('/', mountRoutes(engine, siteRoutes));
  app.use(MCP_PATH, mcpRouter(engine));

  app.use((req: Request, _res: Response, next: NextFunction) =>
    next(new HttpError(404, `no resource at ${req.method} ${req.path}`, { path: req.path })),
  );
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { body, headers, internal } = toErrorBody(err);
    if (internal) engine.log.error({ err, errorId: body.errorId }, 'unhandled error');
    // A database out of reach or busy is the operator's to see, though no bug.
    else if (body.statusCode === 503)
      engine.log.warn(
        { err: (err as Error).message, errorId: body.errorId, message: body.message },
        'request refused: service unavailable',
      );
    else
      engine.log.debug(
        { errorId: body.errorId, status: body.statusCode, message: body.message },
        'request refused',
      );
    if (res.headersSent) return res.destroy();
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    // RFC 9110: every 401 carries a challenge, also "no access to the project".
    if (body.statusCode === 401 && !res.hasHeader('WWW-Authenticate'))
      res.setHeader('WWW-Authenticate', challenge(engine));
    let format: Format;
    try {
      format = negotiate(
        { method: req.method, accept: req.headers.accept, formatParam: req.query?.format },
        ['json', 'yaml', 'html'],
      );
    } catch {
      format = 'json';
    }
    res.status(body.statusCode);
    if (req.method === 'HEAD') return res.end();
    write(req, res, format, { body, title: `Error ${body.statusCode}` }, body.statusCode);
  });
  return app;
}
