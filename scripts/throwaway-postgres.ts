// A throwaway PostgreSQL cluster for tests, benchmarks and `npm run cluster`: initdb into a
// fresh temp directory, the server on a free loopback port (password required over TCP,
// scram-sha-256), one login role and one database. stop() shuts it down and removes the
// directory. PostgreSQL refuses to run as root, so as root the server runs as the `postgres`
// system user (created by the Debian package).
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export interface TestPostgres {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  database: string;
  /**
   * Stops the server and keeps its data, for `resume`: an immediate shutdown (a crash), or a
   * fast one (every session terminated, 57P01, as `pg_ctl restart -m fast` or a failover does).
   */
  halt(mode?: 'immediate' | 'fast'): void;
  /** Starts a halted server again on the same port. */
  resume(): void;
  /** A login role without rights of its own (opts.reader): grants are the test's. */
  reader?: { user: string; password: string };
  /** The folder of its Unix socket (local connections of the postgres user, replication). */
  socketDir: string;
  stop(): Promise<void>;
}

/** Runs a PostgreSQL program (as the postgres user when root). */
function runPg(cmd: string, args: string[]): void {
  const bin = postgresBinDir() as string;
  const [file, argv] =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]]
      : [path.join(bin, cmd), args];
  const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0)
    throw new Error(`${cmd} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
}

/**
 * A streaming replica of `primary` (pg_basebackup -R over its socket) on another loopback
 * port: same roles and data, read-only. stop() shuts it down and removes its directory.
 */
export async function startReplica(primary: TestPostgres): Promise<TestPostgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pg-replica-'));
  if (process.getuid?.() === 0) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['postgres:', dir]);
  }
  const data = path.join(dir, 'data');
  const entry = { dir, pidFile: path.join(data, 'postmaster.pid') };
  live.add(entry);
  try {
    runPg('pg_basebackup', [
      '-h',
      primary.socketDir,
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      data,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast', // an immediate checkpoint, not one spread over minutes
    ]);
    const port = await freePort();
    const opts = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c hot_standby=on',
      '-c shared_buffers=16MB',
    ].join(' ');
    const start = () =>
      runPg('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', opts, '-w', 'start']);
    start();
    return {
      ...primary,
      port,
      socketDir: dir,
      // Its own server, not the primary's (the spread above copies the primary's).
      halt(mode = 'immediate') {
        runPg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
      },
      resume: start,
      async stop() {
        try {
          runPg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
        } finally {
          live.delete(entry);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    kill(entry);
    throw err;
  }
}

export const POSTGRES_INSTALL = 'apt-get install postgresql-15';

/** The newest /usr/lib/postgresql/<version>/bin holding a server, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a) || b.localeCompare(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

/** Why the tests cannot start PostgreSQL here, or null when they can. */
export function postgresMissing(): string | null {
  if (!postgresBinDir())
    return `PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): ${POSTGRES_INSTALL}`;
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0)
    return `running as root but there is no "postgres" system user: ${POSTGRES_INSTALL}`;
  return null;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A TCP port on 127.0.0.1 held (listened on) until `release`: for a port named long before
 * whatever binds it starts (a load balancer's, written into the servers' configuration), so
 * that nothing else is given it in between.
 */
export function holdPort(): Promise<{ port: number; release: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      resolve({ port, release: () => new Promise<void>((done) => srv.close(() => done())) });
    });
  });
}

const live = new Set<{ dir: string; pidFile: string }>();
let exitHook = false;

/** Stops a cluster at once (SIGQUIT: immediate shutdown) and removes its directory. */
function kill(c: { dir: string; pidFile: string }) {
  try {
    const pid = Number(fs.readFileSync(c.pidFile, 'utf8').split('\n')[0]);
    if (pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    // not running
  }
  fs.rmSync(c.dir, { recursive: true, force: true });
  live.delete(c);
}

/** Kills what is still running when the test process exits (a crashed or skipped stop()). */
function killLeftovers() {
  for (const c of live) kill(c);
}

export async function startPostgres(
  opts: { maxConnections?: number; reader?: boolean } = {},
): Promise<TestPostgres> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const bin = postgresBinDir() as string;
  const asRoot = process.getuid?.() === 0;
  // As root, run the PostgreSQL programs as the postgres user.
  const run = (cmd: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]]
      : [path.join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0)
      throw new Error(`${cmd} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}`);
  };

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pg-'));
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['postgres:', dir]);
  }
  const entry = { dir, pidFile: path.join(data, 'postmaster.pid') };
  live.add(entry);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', killLeftovers);
  }

  try {
    // Local (socket) connections trust the OS user, TCP ones need a password.
    run('initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--no-sync',
      '--no-instructions',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    const port = await freePort();
    const serverOptions = [
      `-p ${port}`,
      `-k ${dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      `-c max_connections=${opts.maxConnections ?? 40}`,
      '-c shared_buffers=16MB',
    ].join(' ');
    run('pg_ctl', ['-D', data, '-l', log, '-o', serverOptions, '-w', '-t', '60', 'start']);

    const user = 'ursa_test';
    const database = 'ursa_test';
    const password = crypto.randomBytes(12).toString('hex');
    const reader = opts.reader
      ? { user: 'ursa_reader', password: crypto.randomBytes(12).toString('hex') }
      : undefined;
    const admin = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
    admin.on('error', () => {});
    await admin.connect();
    try {
      await admin.query(`CREATE ROLE ${user} LOGIN CREATEDB PASSWORD '${password}'`);
      await admin.query(`CREATE DATABASE ${database} OWNER ${user}`);
      if (reader)
        await admin.query(`CREATE ROLE ${reader.user} LOGIN PASSWORD '${reader.password}'`);
    } finally {
      await admin.end();
    }

    return {
      host: '127.0.0.1',
      port,
      user,
      password,
      database,
      halt(mode = 'immediate') {
        run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
      },
      resume() {
        run('pg_ctl', ['-D', data, '-l', log, '-o', serverOptions, '-w', '-t', '60', 'start']);
      },
      ...(reader ? { reader } : {}),
      socketDir: dir,
      async stop() {
        try {
          run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
        } finally {
          live.delete(entry);
          fs.rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    const tail = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '';
    kill(entry);
    throw new Error(
      `could not start a test PostgreSQL: ${(err as Error).message}${tail ? `\n${tail}` : ''}`,
      { cause: err },
    );
  }
}
