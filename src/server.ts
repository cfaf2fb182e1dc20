// Starts the whole product in one process: the engine, and the front doors (REST, WebDAV,
// site and app, MCP) composed on one port. No door mounts another: this file does.
import { dashboardPage } from './web/report-pages.js';
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrap, type BootstrapResult } from './engine/bootstrap.js';
import { API_PREFIX, MCP_PATH, type Config } from './engine/config.js';
import { convertOldLayout } from './engine/data/convert-layout.js';
import { Engine } from './engine/engine.js';
import { uuid } from './engine/ids.js';
import { createLogger, type Logger } from './engine/logger.js';
import { claimDataDir, releaseDataDir } from './engine/server-record.js';
import { errorHandler, notFound } from './http/error-handler.js';
import { requestLog } from './http/request-log.js';
import { refuseUnstorableUrl } from './http/storable.js';
import { mcpRouter } from './mcp/http.js';
import { ALIVE, LIVE_PATH, READY_PATH, restDoor } from './rest/door.js';
import { siteRoutes } from './site/routes.js';
import { startSqlListener } from './sql/listener.js';
import { webdavRouter } from './webdav/handler.js';
import { mountRoutes } from './http/router.js';

export interface RunningServer {
  url: string;
  engine: Engine;
  server: http.Server;
  bootstrap: BootstrapResult;
  /** The SQL API's port, when URSA_SQL_PORT turned it on. */
  sqlPort?: number;
  close(): Promise<void>;
}

export interface StartHooks {
  /** Awaited once the port listens, before the engine opens (to observe start-up). */
  listening?(url: string): Promise<void> | void;
}

export async function startServer(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  explicitSiteUrl = true,
  hooks: StartHooks = {},
): Promise<RunningServer> {
  const server = http.createServer();
  server.keepAliveTimeout = 65_000;
  // The port listens first (the address may be chosen by the system): until the app is
  // attached, every request is answered at once instead of waiting for it.
  server.on('request', starting);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // With PORT=0 (tests) the real port is known only now.
  if (!explicitSiteUrl) config.siteUrl = `http://localhost:${port}`;
  if (config.auth.builtin && !explicitSiteUrl) {
    config.auth.issuer = `${config.siteUrl}/auth`;
    config.auth.audience = `${config.siteUrl}/api/v1`;
  }
  let engine: Engine | undefined;
  let claimed = false;
  let boot: BootstrapResult | undefined;
  let app: http.RequestListener;
  try {
    await hooks.listening?.(`http://localhost:${port}`);
    const shared = !!config.databaseUrl;
    claimDataDir(
      config.dataDir,
      { siteUrl: config.siteUrl, issuer: config.auth.issuer, audience: config.auth.audience },
      shared,
    );
    claimed = true;
    engine = await Engine.open(config, log);
    const e = engine;
    // Subscriptions mail the page a PDF export prints (the door kit draws it).
    e.delivery.setPrinter((run) => dashboardPage(run, { print: true }).html);
    // Processes of a cluster start together: the start-up work runs in one at a time (the
    // first bootstraps; the others find it done).
    // A lost lock (the database ended its connection) fails the start between steps.
    boot = await e.store.exclusive('ursa:startup', async (held) => {
      // One process (SQLite): whatever is unfinished died with the last one. A cluster: only
      // jobs whose process stopped renewing their lease.
      const interrupted = await e.jobs.recoverInterrupted();
      if (interrupted)
        log.warn({ interrupted }, 'jobs left unfinished by a stopped process were ended as ERROR');
      // Temporary files a killed process left, before anything of ours writes new ones (the
      // demo starts writing during bootstrap: a later sweep raced it and removed its files).
      held.throwIfAborted();
      const flowLocks = await e.flows.recover(
        (await e.projects.allIds()).map((projectId) => ({
          projectId,
          dir: e.projects.dir(projectId),
        })),
      );
      if (flowLocks) log.warn({ flowLocks }, 'flow runs ended by the restart were unlocked');
      held.throwIfAborted();
      const converted = await convertProjects(e);
      if (converted) log.info({ converted }, 'datasets converted to dataset versions');
      held.throwIfAborted();
      // Only what killed writers left: other processes may be receiving uploads now.
      const leftovers = await e.uploads.sweepLeftovers();
      if (leftovers)
        log.info({ removed: leftovers }, 'temporary files left by an earlier run removed');
      held.throwIfAborted();
      return bootstrap(e);
    });
    await e.jobs.start();
    app = await createApp(engine);
  } catch (err) {
    server.close();
    await engine?.close();
    if (claimed) releaseDataDir(config.dataDir);
    throw err;
  }
  const sweeper = startSweeper(engine, log);
  const collector = startVersionCollector(engine, log);
  // Timers fire (and missed runs catch up) only once the app answers. An API process of a
  // cluster leaves triggers to the workers; a worker answers only /healthz.
  if (config.role !== 'api') {
    await engine.triggers.start();
    await engine.delivery.start();
  }
  server.off('request', starting);
  server.on('request', config.role === 'worker' ? workerOnly : app);
  // The SQL API: a door of its own on its own port (a worker serves no clients).
  const sqlDoor =
    config.sql.port !== undefined && config.role !== 'worker'
      ? await startSqlListener(engine, log, {
          port: config.sql.port,
          host: config.host,
          idleTimeoutMs: config.sql.idleTimeoutMs,
          maxConnections: config.sql.maxConnections,
          trustProxy: config.trustProxy,
          ...(config.sql.tls ? { tls: config.sql.tls } : {}),
        })
      : undefined;
  const url = `http://localhost:${port}`;
  return {
    url,
    engine,
    server,
    bootstrap: boot,
    ...(sqlDoor ? { sqlPort: sqlDoor.port } : {}),
    async close() {
      await sqlDoor?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sweeper.stop();
      await collector.stop();
      // The demo's files and loads are being set up on a first start: let that finish (its
      // jobs are then stopped with the others) rather than close the store under it.
      await boot.demoLoading;
      await engine.close();
      releaseDataDir(config.dataDir);
    },
  };
}

/**
 * The HTTP application: every door in its place, behind request ids and logs and the refusal
 * of URLs holding NUL, before one error handler that answers every failure in the spec's shape.
 */
export async function createApp(engine: Engine): Promise<express.Express> {
  const rest = await restDoor(engine);
  const app = express();
  app.disable('x-powered-by');
  // Client addresses (attempt limits) come from X-Forwarded-For only through trusted proxies.
  app.set('trust proxy', engine.config.trustProxy);
  app.set('etag', false);
  app.set('query parser', 'extended');

  app.use(requestLog(engine, [LIVE_PATH, READY_PATH]));
  // A path segment or query parameter holding NUL is refused at once, for every door below.
  app.use(refuseUnstorableUrl);
  app.use('/', rest.probes);
  for (const [at, router] of rest.identity) app.use(at, router);
  // WebDAV before the route table: its own methods, auth and errors, and PUT bodies streamed.
  app.use(`${API_PREFIX}/projects/:project/webdav`, webdavRouter(engine));
  app.use(API_PREFIX, rest.api);
  // The public site and the app (/app).
  app.use('/', mountRoutes(engine, siteRoutes));
  app.use(MCP_PATH, mcpRouter(engine));

  app.use(notFound);
  app.use(errorHandler(engine));
  return app;
}

/** A worker process (URSA_ROLE=worker) runs jobs and triggers; its port answers liveness. */
function workerOnly(req: http.IncomingMessage, res: http.ServerResponse): void {
  const live =
    (req.method === 'GET' || req.method === 'HEAD') && req.url?.split('?')[0] === LIVE_PATH;
  const body = JSON.stringify(
    live
      ? ALIVE
      : {
          statusCode: 404,
          message: 'this Ursa process is a worker (URSA_ROLE=worker): it serves only /healthz',
          context: { role: 'worker' },
          errorId: uuid(),
        },
  );
  req.resume();
  res.writeHead(live ? 200 : 404, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The answer while the server starts: 503 in the API's error shape, retry in a second. Only
 * liveness answers 200: the process is up, and a slow start must not get it restarted.
 */
function starting(req: http.IncomingMessage, res: http.ServerResponse): void {
  const live =
    (req.method === 'GET' || req.method === 'HEAD') && req.url?.split('?')[0] === LIVE_PATH;
  const body = JSON.stringify(
    live
      ? ALIVE
      : {
          statusCode: 503,
          message: 'Ursa is starting; retry in a moment',
          context: { starting: true },
          errorId: uuid(),
        },
  );
  req.resume();
  res.writeHead(live ? 200 : 503, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...(live ? {} : { 'Retry-After': '1' }),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Releases the write locks of this host's dead processes, converts old-layout data files (one
 * `data.duckdb` per project) into dataset versions and removes version files a killed writer
 * left unpublished.
 */
async function convertProjects(engine: Engine): Promise<number> {
  await engine.dbs.locks.releaseDead();
  let converted = 0;
  for (const projectId of await engine.projects.allIds()) {
    converted += await convertOldLayout(engine.dbs, projectId, engine.projects.dir(projectId));
    await engine.dbs.sweepOrphans(projectId);
  }
  return converted;
}

/**
 * Deletes superseded dataset versions unread for URSA_VERSION_GRACE_SECONDS, checked at a
 * tenth of that period (1 s to 1 min).
 */
function startVersionCollector(engine: Engine, log: Logger) {
  const graceMs = engine.config.versionGraceSeconds * 1000;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      running = running.then(() =>
        engine.dbs.collect(graceMs).then(
          (removed) => {
            if (removed) log.info({ removed }, 'superseded dataset versions removed');
          },
          (err: unknown) => log.error({ err }, 'removing superseded dataset versions failed'),
        ),
      );
    },
    Math.min(60_000, Math.max(1000, graceMs / 10)),
  );
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Expires abandoned chunked uploads and query results unread for URSA_RESULT_TTL_HOURS, and
 * removes temporary files and dataset version files a killed writer of any process left, now
 * and every URSA_SWEEP_SECONDS (10 minutes), without keeping the process up.
 */
function startSweeper(engine: Engine, log: Logger) {
  let running: Promise<void> = Promise.resolve();
  const task = (what: string, work: () => Promise<number>) =>
    work().then(
      (removed) => {
        if (removed) log.info({ removed }, `${what} removed`);
      },
      (err: unknown) => log.error({ err }, `removing ${what} failed`),
    );
  const sweep = () => {
    running = running.then(async () => {
      await task('expired partial uploads', () => engine.uploads.sweep());
      await task('temporary files of killed writers', () => engine.uploads.sweepLeftovers());
      await task('query results unread past their retention', async () =>
        engine.aql.sweepResults(
          await engine.projects.allIds(),
          engine.config.resultTtlHours * 3_600_000,
        ),
      );
      await task('dataset version files no load published', async () => {
        let removed = 0;
        for (const p of await engine.projects.allIds()) removed += await engine.dbs.sweepOrphans(p);
        return removed;
      });
    });
  };
  sweep();
  const timer = setInterval(sweep, engine.config.sweepSeconds * 1000);
  timer.unref();
  return {
    /** Stops the timer and waits for a sweep in progress, so the database outlives it. */
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
