// Request ids and the request log every door shares: X-Request-Id (the caller's when well
// formed) on every answer and in every log line the request causes.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Engine } from '../engine/engine.js';
import { uuid } from '../engine/ids.js';
import { logContext } from '../engine/logger.js';

const REQ_ID = /^[\w.:-]{1,64}$/;

/** `quiet`: paths polled by load balancers every second or so, logged at debug only. */
export function requestLog(engine: Engine, quiet: Iterable<string> = []): RequestHandler {
  const probes = new Set(quiet);
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const reqId = typeof given === 'string' && REQ_ID.test(given) ? given : uuid();
    res.setHeader('X-Request-Id', reqId);
    const start = process.hrtime.bigint();
    const level = probes.has(req.path) ? 'debug' : 'info';
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
  };
}
