// A whole Ursa cluster on this machine, for trying the shape out (`npm run cluster`) and for
// the cluster test: a throwaway PostgreSQL from the system packages, N Ursa processes
// (`node bin/ursa.mjs start`, so a process's pid is the server's own) sharing one
// data directory, and HAProxy in front on one loopback port, sending each request to any
// process that answers /readyz, and on a second port each SQL API connection (TCP mode).
// Everything is stopped and removed by stop().
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, holdPort, startPostgres, type TestPostgres } from './throwaway-postgres.js';
import { ensureBundle } from '../bin/bundle.mjs';
import { INSTALL_ROOT } from '../src/shared/install-root.js';

export const ROOT = INSTALL_ROOT;
export const HAPROXY = '/usr/sbin/haproxy';
export const HAPROXY_INSTALL = 'apt-get install haproxy';

export interface ClusterProcess {
  port: number;
  /** Its SQL API port (URSA_SQL_PORT). */
  sqlPort: number;
  url: string;
  child: ChildProcess;
  /** Output of the process so far (for a failing test's message). */
  log(): string;
  /** Stops it at once, as a crash would (SIGKILL). */
  kill9(): void;
  /** Starts it again on the same port (after kill9). */
  restart(): Promise<void>;
}

export interface Cluster {
  /** HAProxy's address: what users and integrations are given. */
  url: string;
  /** HAProxy's port for the SQL API (PostgreSQL clients). */
  sqlPort: number;
  databaseUrl: string;
  dataDir: string;
  adminEmail: string;
  adminPassword: string;
  processes: ClusterProcess[];
  pg: TestPostgres;
  /** A bearer token for `email` (signed with the cluster's key, for HAProxy's address). */
  token(email: string, opts?: { mcp?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  processes?: number;
  /** HAProxy's port (default: a free one). */
  port?: number;
  /** HAProxy's port for the SQL API (default: a free one). */
  sqlPort?: number;
  /** Extra settings for every Ursa process. */
  env?: Record<string, string>;
  /** Where the data directory goes (default: a new temporary directory, removed on stop). */
  dataDir?: string;
  log?: (line: string) => void;
  /** Node options of every Ursa process (bench:cluster's BENCH_CPU_PROF: --cpu-prof …). */
  nodeArgs?: string[];
}

/** Why a cluster cannot start here, or null. */
export function clusterMissing(): string | null {
  if (!fs.existsSync(HAPROXY)) return `HAProxy is not installed: ${HAPROXY_INSTALL}`;
  return null;
}

async function waitReady(url: string, timeoutMs: number, what: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until)
      throw new Error(`${url} was not ready after ${timeoutMs} ms\n${what()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * The errors HAProxy answers itself: status, message, Retry-After seconds. A message holds no
 * ' (it is quoted so in the configuration) and no % (the string is a log format).
 */
const BALANCER_ERRORS: [number, string, number?][] = [
  [
    502,
    'the Ursa process serving this request closed its connection without answering (it may have stopped); a request that changes something was not sent again: check whether it took effect before repeating it',
  ],
  [
    503,
    'no Ursa process is ready to answer (none passes its /readyz check: the metadata database or the data directory may be unavailable); retry shortly',
    5,
  ],
  [
    504,
    'the Ursa process did not answer within the time limit of the load balancer; the request may still be running: check its effect (or its job) before repeating it',
  ],
];

/**
 * HAProxy in front of the processes on `backends`. Retries only what is safe to repeat: a
 * request whose connection failed before it was sent (any method), and a GET, HEAD or OPTIONS
 * whose process closed the connection without answering (it died). Never a request that
 * timed out, which is still running (a slow job would run again), nor a POST, PUT, PATCH or
 * DELETE once sent. `serverTimeout` is for tests.
 */
export function haproxyConfig(
  port: number,
  backends: number[],
  opts: { serverTimeout?: string; sql?: { port: number; backends: number[] } } = {},
): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    `  timeout server ${opts.serverTimeout ?? '120s'}`,
    // Server-sent events (MCP, chat progress) stay open for long.
    '  timeout tunnel 1h',
    '  option forwardfor',
    // A connection to a process per request: one that is gone (killed) is then a connection
    // failure, safe to retry whatever the method. A pooled connection to it would take the
    // request and fail it as unanswered, which a POST must not be retried on.
    '  option http-server-close',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response',
    // HAProxy's own answers in Ursa's error shape, as a client reads every other error.
    ...BALANCER_ERRORS.map(
      ([status, message, retryAfter]) =>
        `  http-error status ${status} content-type application/json lf-string '${JSON.stringify({ statusCode: status, message, context: { balancer: 'haproxy' } }).slice(0, -1)},"errorId":"%[uuid]"}'` +
        (retryAfter ? ` hdr Retry-After ${retryAfter}` : ''),
    ),
    `frontend ursa`,
    `  bind 127.0.0.1:${port}`,
    '  default_backend ursa',
    'backend ursa',
    '  balance leastconn',
    // Once sent, a request that changes something is never sent again.
    '  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS',
    '  option httpchk GET /readyz',
    ...backends.map(
      (p, i) => `  server ursa${i + 1} 127.0.0.1:${p} check inter 500ms fall 2 rise 1`,
    ),
    ...(opts.sql ? sqlProxy(opts.sql.port, opts.sql.backends, backends) : []),
    '',
  ].join('\n');
}

/**
 * The SQL API behind HAProxy in TCP mode: a connection goes to a process that answers /readyz
 * (checked on its HTTP port) and stays there, with a PROXY header naming the client (so the
 * sign-in limits count each client, not HAProxy). Only a failed connect is retried (nothing
 * was sent). A cancel request may land on another process: the engine tells every process.
 */
function sqlProxy(port: number, backends: number[], httpPorts: number[]): string[] {
  return [
    'defaults',
    '  mode tcp',
    '  timeout connect 2s',
    // Sessions idle for long (a BI tool's pool); each process ends idle ones itself.
    '  timeout client 2h',
    '  timeout server 2h',
    '  retries 3',
    '  option redispatch 1',
    'frontend ursa_sql',
    `  bind 127.0.0.1:${port}`,
    '  default_backend ursa_sql',
    'backend ursa_sql',
    '  balance leastconn',
    '  option httpchk GET /readyz',
    ...backends.map(
      (p, i) =>
        `  server sql${i + 1} 127.0.0.1:${p} send-proxy check port ${httpPorts[i]} inter 500ms fall 2 rise 1`,
    ),
  ];
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const missing = clusterMissing();
  if (missing) throw new Error(missing);
  const n = opts.processes ?? 3;
  const log = opts.log ?? (() => {});
  // Built here once, not by each process starting beside the others.
  await ensureBundle();
  const pg = await startPostgres({ maxConnections: 60 + n * 30 });
  // Processes on PostgreSQL's machine reach it through its Unix socket: every metadata read
  // is a round trip, and the socket's cost less than loopback TCP's.
  const socket = `host=${encodeURIComponent(pg.socketDir)}&port=${pg.port}`;
  const databaseUrl = `postgres://${pg.user}:${pg.password}@/${pg.database}?${socket}`;
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-cluster-'));
  // HAProxy's ports are held from here until it binds them, after the processes start
  // (a minute under load): a port merely found free was sometimes given to another test.
  const held: Array<{ port: number; release: () => Promise<void> }> = [];
  const hold = async (given: number | undefined) => {
    if (given !== undefined) return given;
    const h = await holdPort();
    held.push(h);
    return h.port;
  };
  const lbPort = await hold(opts.port);
  const sqlLbPort = await hold(opts.sqlPort);
  const release = async () => {
    for (const h of held.splice(0)) await h.release();
  };
  const url = `http://localhost:${lbPort}`;
  const adminEmail = 'admin@example.com';
  const adminPassword = crypto.randomBytes(12).toString('base64url');
  const env = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('URSA_') && k !== 'PORT'),
    ),
    URSA_DATA_DIR: dataDir,
    URSA_DATABASE_URL: databaseUrl,
    // Every process signs and checks tokens for the address users see.
    URSA_SITE_URL: url,
    URSA_ADMIN_EMAIL: adminEmail,
    URSA_ADMIN_PASSWORD: adminPassword,
    URSA_TRUST_PROXY: 'loopback',
    URSA_LOG_LEVEL: 'warn',
    ...opts.env,
  };
  const children = new Set<ChildProcess>();
  let haproxy: ChildProcess | undefined;
  const processes: ClusterProcess[] = [];

  const spawnUrsa = (port: number, sqlPort: number) => {
    const out: string[] = [];
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), 'bin/ursa.mjs', 'start'], {
      cwd: ROOT,
      env: {
        ...env,
        PORT: String(port),
        URSA_SQL_PORT: String(sqlPort),
        // Clients are told HAProxy's port (the project's connection details).
        URSA_SQL_PUBLIC_PORT: String(sqlLbPort),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (b: Buffer) => {
      out.push(b.toString());
      if (out.length > 200) out.shift();
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.on('error', (err) => out.push(String(err)));
    children.add(child);
    child.on('exit', () => children.delete(child));
    return { child, out };
  };

  const stop = async () => {
    await release();
    haproxy?.kill('SIGKILL');
    await Promise.all(
      [...children].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) return resolve();
            c.once('exit', () => resolve());
            c.kill('SIGTERM');
            setTimeout(() => c.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    await pg.stop().catch(() => undefined);
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) ports.push(await freePort());
    // All at once, as a deployment would: start-up work runs in one of them at a time.
    for (const port of ports) {
      const sqlPort = await freePort();
      let proc = spawnUrsa(port, sqlPort);
      const p: ClusterProcess = {
        port,
        sqlPort,
        url: `http://127.0.0.1:${port}`,
        get child() {
          return proc.child;
        },
        log: () => proc.out.join(''),
        kill9: () => proc.child.kill('SIGKILL'),
        restart: async () => {
          proc = spawnUrsa(port, sqlPort);
          await waitReady(p.url, 60_000, p.log);
        },
      };
      processes.push(p);
    }
    await Promise.all(processes.map((p) => waitReady(p.url, 120_000, p.log)));
    log(`${n} Ursa processes ready on ports ${ports.join(', ')}`);

    const cfg = path.join(dataDir, 'haproxy.cfg');
    fs.writeFileSync(
      cfg,
      haproxyConfig(lbPort, ports, {
        sql: { port: sqlLbPort, backends: processes.map((p) => p.sqlPort) },
      }),
    );
    const check = spawnSync(HAPROXY, ['-c', '-q', '-f', cfg], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy refused its configuration: ${check.stderr}`);
    const hout: string[] = [];
    await release();
    haproxy = spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (b: Buffer) => hout.push(b.toString()));
    haproxy.stderr!.on('data', (b: Buffer) => hout.push(b.toString()));
    children.add(haproxy);
    await waitReady(url, 30_000, () => hout.join(''));
    log(`HAProxy on ${url}`);
  } catch (err) {
    const logs = processes.map((p, i) => `--- process ${i + 1}\n${p.log().slice(-3000)}`);
    await stop();
    throw new Error(`${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
  }

  const token = async (email: string, o: { mcp?: boolean } = {}) => {
    const r = spawnSync(
      process.execPath,
      ['bin/ursa.mjs', 'token', email, ...(o.mcp ? ['--mcp'] : [])],
      { cwd: ROOT, env: { ...env, URSA_LOG_LEVEL: 'error' }, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`ursa token failed: ${r.stderr}`);
    return r.stdout.trim().split('\n').pop()!;
  };

  return {
    url,
    sqlPort: sqlLbPort,
    databaseUrl,
    dataDir,
    adminEmail,
    adminPassword,
    processes,
    pg,
    token,
    stop,
  };
}
