// The end of every door's chain: a 404 for what no door answered, and one error handler that
// answers every failure in the spec's error shape, in the negotiated format.
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import type { Engine } from '../engine/engine.js';
import { challenge } from './auth.js';
import { HttpError, toErrorBody } from './errors.js';
import { negotiate, type Format } from './negotiate.js';
import { write } from './respond.js';

export function notFound(req: Request, _res: Response, next: NextFunction): void {
  next(new HttpError(404, `no resource at ${req.method} ${req.path}`, { path: req.path }));
}

export function errorHandler(engine: Engine): ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
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
  };
}
