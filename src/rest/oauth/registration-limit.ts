// Dynamic client registration is open (MCP clients register themselves), so each client
// address may register only so many clients an hour: a loop cannot fill the metadata DB. The
// count is the engine's (metadata DB): shared by server processes, kept across restarts.
import type { NextFunction, Request, Response } from 'express';
import type { Engine } from '../../engine/engine.js';
import { addressKey } from '../../engine/limits/counters.js';
import { clientAddress } from '../../http/throttle.js';

const HOUR_MS = 3_600_000;

export function registrationLimit(engine: Engine, perHour: number) {
  const rule = { name: 'registration', limit: perHour, windowMs: HOUR_MS };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const decision = await engine.throttle.take(rule, addressKey(clientAddress(req)));
    if (decision.ok) return next();
    const retry = decision.retryAfterSeconds;
    res.setHeader('Retry-After', String(retry));
    res.status(429).json({
      error: 'too_many_requests',
      error_description: `at most ${perHour} client registrations an hour from one address; retry in ${retry} s`,
    });
  };
}
