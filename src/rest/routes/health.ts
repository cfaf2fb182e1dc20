// Probes for load balancers and orchestrators, at the site root (outside /api/v1): no
// authentication, JSON whatever Accept says, never cached. Readiness is the engine's verdict.
import { unavailable } from '../../engine/errors.js';
import { toErrorBody } from '../../http/errors.js';
import { sendJson } from '../../http/respond.js';
import type { RouteDef } from '../../http/router.js';

export const LIVE_PATH = '/healthz';
export const READY_PATH = '/readyz';
/** The liveness answer, also given while the server starts (server.ts). */
export const ALIVE = { status: 'ok' } as const;
export const NO_STORE = { 'Cache-Control': 'no-store' } as const;

export const healthRoutes: RouteDef[] = [
  {
    group: 'Health',
    path: LIVE_PATH,
    ops: {
      GET: {
        access: 'public',
        description: 'Liveness: the process is up and answers (touches no database).',
        handler: ({ res }) => {
          res.set(NO_STORE);
          sendJson(res, 200, ALIVE);
        },
      },
    },
  },
  {
    group: 'Health',
    path: READY_PATH,
    ops: {
      GET: {
        access: 'public',
        description:
          'Readiness: the metadata database answers, its migrations are applied, the data directory takes writes and has URSA_MIN_FREE_BYTES free; 503 naming the failing checks otherwise.',
        handler: async ({ engine, res }) => {
          const report = await engine.readiness.check();
          res.set(NO_STORE);
          if (report.ready) sendJson(res, 200, { status: 'ready', checks: report.checks });
          else {
            const { body } = toErrorBody(unavailable(report.message, { checks: report.checks }));
            sendJson(res, 503, body);
          }
        },
      },
    },
  },
];
