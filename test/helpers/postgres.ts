// A PostgreSQL for a test file that needs one of its own (a connector's source, a warehouse,
// migrations): a new database and login role in the run's shared server (test/global-setup.ts)
// rather than a server started for the file. A file that stops or restarts its server
// (halt/resume, replicas) starts its own with startPostgres().
import crypto from 'node:crypto';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../../scripts/throwaway-postgres.js';

let made = 0;

export async function sharedPostgres(opts: { reader?: boolean } = {}): Promise<TestPostgres> {
  const socketDir = process.env.URSA_TEST_PG_SOCKET;
  const base = process.env.URSA_TEST_PG_URL;
  if (!socketDir || !base) return startPostgres(opts); // vitest without the global setup
  const { port } = new URL(base);
  const suffix = `${process.pid}_${++made}`;
  const user = `u_${suffix}`;
  const database = `d_${suffix}`;
  const password = crypto.randomBytes(12).toString('hex');
  const reader = opts.reader
    ? { user: `r_${suffix}`, password: crypto.randomBytes(12).toString('hex') }
    : undefined;
  // The superuser over the socket (trusted), as startPostgres makes its roles.
  const superuser = async <T>(fn: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({ host: socketDir, port: Number(port), user: 'postgres' });
    c.on('error', () => {});
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  await superuser(async (c) => {
    await c.query(`CREATE ROLE ${user} LOGIN CREATEDB PASSWORD '${password}'`);
    await c.query(`CREATE DATABASE ${database} OWNER ${user}`);
    if (reader) await c.query(`CREATE ROLE ${reader.user} LOGIN PASSWORD '${reader.password}'`);
  });
  const own = (what: string) => () => {
    throw new Error(`${what}: the shared test PostgreSQL stays up; use startPostgres()`);
  };
  return {
    host: '127.0.0.1',
    port: Number(port),
    user,
    password,
    database,
    ...(reader ? { reader } : {}),
    socketDir,
    halt: own('halt'),
    resume: own('resume'),
    async stop() {
      // The roles stay (they hold nothing once the database is gone); the server goes at the
      // end of the run.
      await superuser((c) => c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
    },
  };
}
