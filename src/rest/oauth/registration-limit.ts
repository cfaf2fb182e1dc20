// Dynamic client registration is open (MCP clients register themselves), so each client
// address may register only so many clients an hour: a loop cannot fill the metadata DB.
import type { Request, Response, NextFunction } from 'express';

const WINDOW_MS = 3_600_000;
/** Addresses remembered at most; older entries go first when it is reached. */
const MAX_ADDRESSES = 10_000;

export function registrationLimit(perHour: number) {
  const seen = new Map<string, number[]>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const now = Date.now();
    const key = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    const recent = (seen.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
    if (recent.length >= perHour) {
      const retry = Math.ceil((recent[0]! + WINDOW_MS - now) / 1000);
      res.setHeader('Retry-After', String(retry));
      res.status(429).json({
        error: 'too_many_requests',
        error_description: `at most ${perHour} client registrations an hour from one address; retry in ${retry} s`,
      });
      return;
    }
    recent.push(now);
    seen.delete(key);
    seen.set(key, recent);
    if (seen.size > MAX_ADDRESSES) seen.delete(seen.keys().next().value!);
    next();
  };
}
