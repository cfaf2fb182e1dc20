// Opens the metadata database: SQLite in WAL mode, migrations applied at start-up.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema.js';

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

/** The migrations this version ships, applied at start-up (and compared by readiness). */
export const MIGRATIONS = fileURLToPath(new URL('../../../drizzle', import.meta.url));

export function openDb(dataDir: string): Db {
  fs.mkdirSync(dataDir, { recursive: true });
  const sqlite = new Database(path.join(dataDir, 'metadata.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}

/** One state change, one transaction: either every write lands or none does. */
export function tx<T>(db: Db, fn: () => T): T {
  return db.$client.transaction(fn)();
}
