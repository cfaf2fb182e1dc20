// Starts the real app on a loopback port with a fresh data directory, for tests over HTTP.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino, type Logger } from 'pino';
import { loadConfig } from '../../src/engine/config.js';
import { Engine } from '../../src/engine/engine.js';
import { createLogger } from '../../src/engine/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';

export const ADMIN = 'admin@example.com';
/** The suite runs on the PostgreSQL shape (npm run test:pg): where the shapes differ by design. */
export const ON_PG = process.env.URSA_TEST_DATABASE === 'postgres';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface TestServer extends RunningServer {
  dataDir: string;
  /** The demo project created on first start (the admin is its Admin). */
  demo: string;
  token(email: string): Promise<string>;
  api(method: string, path: string, opts?: ApiOptions): Promise<ApiResponse>;
}

export interface ApiOptions {
  /** E-mail to authenticate as (a token is issued for it), or a raw token via `bearer`. */
  as?: string | null;
  bearer?: string;
  body?: unknown;
  /** Raw body with its content type, for YAML/form tests. */
  raw?: { type: string; data: string };
  accept?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
  json: any;
}

/**
 * A test server's configuration on `dataDir`: loopback, a port the system picks, the known
 * admin password, no logs; the demo project is created, but its data loads only where a test
 * asks for it (`URSA_DEMO_DATA: 'true'`).
 */
export function testConfig(dataDir: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    URSA_DATA_DIR: dataDir,
    ...testDatabase(dataDir),
    PORT: '0',
    HOST: '127.0.0.1',
    URSA_ADMIN_PASSWORD: ADMIN_PASSWORD,
    // URSA_TEST_LOG=error shows the servers' logs when a test run needs explaining.
    URSA_LOG_LEVEL: process.env.URSA_TEST_LOG ?? 'silent',
    URSA_DEMO_DATA: 'false',
    ...env,
  });
  if (!config.databaseUrl) fromSqliteTemplate(dataDir);
  return config;
}

/**
 * A new data directory's SQLite metadata starts as a copy of the template test/global-setup.ts
 * migrated, so the engine's migration finds nothing to do; a directory that has its metadata
 * keeps it (restarts, and tests that prepare the file themselves).
 */
function fromSqliteTemplate(dataDir: string): void {
  const template = process.env.URSA_TEST_SQLITE_TEMPLATE;
  const file = path.join(dataDir, 'metadata.sqlite');
  if (!template || fs.existsSync(file)) return;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.copyFileSync(template, file, fs.constants.COPYFILE_EXCL);
}

/**
 * On the PostgreSQL pass, the metadata database of a data directory: one per directory, made
 * on first use from the migrated template (test/global-setup.ts), so restarts on the same
 * directory find their data.
 */
const databaseName = (dataDir: string) =>
  `t_${crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 24)}`;

export function testDatabase(dataDir: string): { URSA_DATABASE_URL?: string } {
  if (!ON_PG) return {};
  const base = process.env.URSA_TEST_PG_URL;
  const template = process.env.URSA_TEST_PG_TEMPLATE;
  if (!base || !template)
    throw new Error('the PostgreSQL pass needs the server of test/global-setup.ts (run vitest)');
  const name = databaseName(dataDir);
  if (!createdDatabases.has(name)) {
    // One psql: the database exists already when another process made it for this directory.
    const r = spawnSync('psql', [base, '-qc', `CREATE DATABASE ${name} TEMPLATE ${template}`], {
      encoding: 'utf8',
    });
    if (r.status !== 0 && !/already exists/.test(r.stderr))
      throw new Error(`could not create the test database ${name}: ${r.stderr || r.error}`);
    createdDatabases.add(name);
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { URSA_DATABASE_URL: url.toString() };
}
const createdDatabases = new Set<string>();

let admin: pg.Pool | undefined;

/**
 * testDatabase without a psql child (about a second of a PostgreSQL test server's start): the
 * database made over a connection this process keeps, before testConfig looks for it.
 */
async function createTestDatabase(dataDir: string): Promise<void> {
  if (!ON_PG) return;
  const name = databaseName(dataDir);
  if (createdDatabases.has(name)) return;
  if (!admin) {
    admin = new pg.Pool({
      connectionString: process.env.URSA_TEST_PG_URL,
      max: 1,
      idleTimeoutMillis: 1000,
      allowExitOnIdle: true,
    });
    admin.on('error', () => {});
  }
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${process.env.URSA_TEST_PG_TEMPLATE}`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err; // duplicate_database
  }
  createdDatabases.add(name);
}

/**
 * Copies a data directory's metadata database onto another directory's (PostgreSQL shape; on
 * SQLite the metadata is a file in the directory and copying the directory copies it).
 */
export function copyTestDatabase(fromDir: string, toDir: string): void {
  const from = testDatabase(fromDir).URSA_DATABASE_URL;
  if (!from) return;
  // The copy starts empty (template0), not from the migrated template: the dump creates the
  // schemas and tables itself, and would stop on "schema drizzle already exists".
  const base = process.env.URSA_TEST_PG_URL!;
  const name = databaseName(toDir);
  execFileSync('psql', [base, '-qc', `DROP DATABASE IF EXISTS ${name}`], { stdio: 'pipe' });
  execFileSync('psql', [base, '-qc', `CREATE DATABASE ${name} TEMPLATE template0`]);
  createdDatabases.add(name);
  const to = testDatabase(toDir).URSA_DATABASE_URL!;
  const dump = execFileSync('pg_dump', ['--no-owner', '--no-privileges', from], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('psql', ['-q', '-v', 'ON_ERROR_STOP=1', to], { input: dump });
}

/**
 * A server on a data directory the test keeps across restarts: first on port 0 (the system
 * picks), then again on the port it got, so its site URL (and tokens' issuer) stay the same.
 */
export async function startOnPort(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  await createTestDatabase(dataDir);
  const config = testConfig(dataDir, {
    PORT: String(port),
    ...(port ? { URSA_SITE_URL: `http://localhost:${port}` } : {}),
    ...env,
  });
  return startServer(config, createLogger(config.logLevel), port !== 0);
}

/**
 * A quiet test server still keeps its last error lines in memory: a 500's cause (logged under
 * its errorId) is added to the response's text, so the failing assertion shows it (CI runs
 * without logs, and a 500 that happens once in a while must explain itself the first time).
 */
function errorMemory(): { log: Logger; about(errorId: string): string | undefined } {
  const lines: string[] = [];
  const log = pino(
    { level: 'error', base: undefined },
    {
      write(line: string) {
        lines.push(line);
        if (lines.length > 200) lines.shift();
      },
    },
  );
  return { log, about: (id) => lines.find((l) => l.includes(id)) };
}

export async function startTestServer(env: Record<string, string> = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-test-'));
  await createTestDatabase(dataDir);
  const config = testConfig(dataDir, env);
  const errors = process.env.URSA_TEST_LOG ? undefined : errorMemory();
  const running = await startServer(
    config,
    errors?.log ?? createLogger(config.logLevel),
    Boolean(env.URSA_SITE_URL),
  );
  const tokens = new Map<string, string>();
  const token = async (email: string) => {
    let t = tokens.get(email);
    if (!t) tokens.set(email, (t = await running.engine.issueToken(email)));
    return t;
  };
  const api = async (method: string, p: string, opts: ApiOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = {
      accept: opts.accept ?? 'application/json',
      ...opts.headers,
    };
    const as = opts.as === undefined ? ADMIN : opts.as;
    if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
    else if (as) headers.authorization = `Bearer ${await token(as)}`;
    let body: string | undefined;
    if (opts.raw) {
      headers['content-type'] = opts.raw.type;
      body = opts.raw.data;
    } else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const url = p.startsWith('http')
      ? p
      : `${running.url}${p.startsWith('/api/') || p.startsWith('/auth') || p === '/' ? p : `/api/v1${p}`}`;
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const errorId = (json as { errorId?: unknown } | undefined)?.errorId;
    const cause = res.status === 500 && typeof errorId === 'string' && errors?.about(errorId);
    return {
      status: res.status,
      headers: res.headers,
      text: cause ? `${text}\n[server log] ${cause}` : text,
      json,
    };
  };
  return {
    ...running,
    dataDir,
    demo: running.bootstrap.demoProjectId!,
    token,
    api,
    async close() {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Invites `email` into `project` with the given rights, as the admin. */
export async function invite(
  s: TestServer,
  project: string,
  email: string,
  rights: Record<string, unknown> = {},
): Promise<void> {
  const r = await s.api('POST', `/projects/${project}/users`, { body: { id: email, ...rights } });
  if (r.status !== 200) throw new Error(`invite ${email} failed: ${r.status} ${r.text}`);
}

/**
 * A second engine on `s`'s data directory and metadata database: another process's worth of
 * connections and locks, its triggers and jobs not started (an api process).
 */
export async function openOtherEngine(
  s: TestServer,
  env: Record<string, string> = {},
): Promise<Engine> {
  await createTestDatabase(s.dataDir);
  return Engine.open(
    loadConfig({
      URSA_DATA_DIR: s.dataDir,
      ...testDatabase(s.dataDir),
      URSA_LOG_LEVEL: 'silent',
      URSA_DEMO_DATA: 'false',
      ...env,
    }),
    createLogger('silent'),
  );
}
