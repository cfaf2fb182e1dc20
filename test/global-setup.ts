// Runs once per vitest run, before any worker (docs/testing.md):
// - one throwaway PostgreSQL for the whole run, in both passes: on the PostgreSQL pass each test
//   server's metadata is a database of its own in it (test/helpers/server.ts testDatabase), and
//   the files that need a PostgreSQL of their own (connectors, warehouses, migrations) get a
//   database and login role in it (test/helpers/postgres.ts) unless they must stop it;
// - template metadata databases, migrated once here, so a test server starts from a copy
//   (PostgreSQL CREATE DATABASE … TEMPLATE, a copied SQLite file) instead of migrating anew.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle as drizzleSqlite } from 'drizzle-orm/better-sqlite3';
import { migrate as migrateSqlite } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { ensureBundle } from '../bin/bundle.mjs';
import {
  postgresMissing,
  startPostgres,
  type TestPostgres,
} from '../scripts/throwaway-postgres.js';

let server: TestPostgres | undefined;
let tmp: string | undefined;

export async function setup(): Promise<void> {
  // The `ursa` command the tests start (test/helpers/cli.ts), built once for every worker.
  await ensureBundle();
  // Workers are forked after this runs, so they inherit what it puts in process.env.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-test-templates-'));
  process.env.URSA_TEST_SQLITE_TEMPLATE = sqliteTemplate(tmp);

  const pgPass = ['postgres', 'both'].includes(process.env.URSA_TEST_DATABASE ?? '');
  const missing = postgresMissing();
  if (missing) {
    // Without PostgreSQL only the SQLite pass can run; files that need one say so themselves.
    if (pgPass) throw new Error(missing);
    return;
  }
  // Connections: two passes' test servers (a pool each) plus the files' own clients.
  server = await startPostgres({ maxConnections: 500 });
  const url = `postgres://${server.user}:${server.password}@${server.host}:${server.port}`;
  process.env.URSA_TEST_PG_URL = `${url}/${server.database}`;
  process.env.URSA_TEST_PG_SOCKET = server.socketDir;
  process.env.URSA_TEST_PG_TEMPLATE = await postgresTemplate(server, url);
}

export async function teardown(): Promise<void> {
  try {
    await server?.stop();
  } finally {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A SQLite metadata file migrated as the engine does (src/engine/db/sqlite-store.ts). */
function sqliteTemplate(dir: string): string {
  const file = path.join(dir, 'metadata.sqlite');
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    migrateSqlite(drizzleSqlite(db), { migrationsFolder: 'drizzle' });
  } finally {
    db.close(); // the last connection closing folds the WAL into the file
  }
  return file;
}

/** A PostgreSQL database migrated as the engine does (src/engine/db/migrate-pg.ts). */
async function postgresTemplate(db: TestPostgres, url: string): Promise<string> {
  const name = 'ursa_template';
  const admin = new pg.Client({ connectionString: `${url}/${db.database}` });
  admin.on('error', () => {});
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  // No session may stay on a template while databases are made from it.
  const client = new pg.Client({ connectionString: `${url}/${name}` });
  client.on('error', () => {});
  await client.connect();
  try {
    await migratePg(drizzlePg({ client }), { migrationsFolder: 'drizzle-pg' });
  } finally {
    await client.end();
  }
  return name;
}
