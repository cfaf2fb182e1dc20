// The metadata shape the suite runs on: SQLite (default) or, with URSA_TEST_DATABASE=postgres,
// one throwaway PostgreSQL for the whole run, each test server in a database of its own
// (test/helpers/server.ts testConfig). CI runs the suite once per shape.
import { startPostgres, type TestPostgres } from '../scripts/throwaway-postgres.js';

let pg: TestPostgres | undefined;

export async function setup(): Promise<void> {
  if (process.env.URSA_TEST_DATABASE !== 'postgres') return;
  pg = await startPostgres({ maxConnections: 400 });
  const auth = `${pg.user}:${pg.password}`;
  // Workers are forked after this runs, so they inherit it.
  process.env.URSA_TEST_PG_URL = `postgres://${auth}@${pg.host}:${pg.port}/${pg.database}`;
}

export async function teardown(): Promise<void> {
  await pg?.stop();
}
