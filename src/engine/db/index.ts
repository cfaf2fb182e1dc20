// Opens the metadata store: SQLite in the data directory (one process, the default) or
// PostgreSQL at `URSA_DATABASE_URL` (a cluster). Migrations are applied at start-up.
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { openPgStore } from './pg-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export { first, isForeignKeyViolation, isUniqueViolation, prepared, storeOf, tx } from './store.js';
export type { Db, Store, TxOptions } from './store.js';

/** The SQLite migrations this version ships, applied at start-up (and compared by readiness). */
export const MIGRATIONS = fileURLToPath(new URL('../../../drizzle', import.meta.url));
/** The PostgreSQL migrations (drizzle-pg/, generated from schema-pg.ts). */
export const MIGRATIONS_PG = fileURLToPath(new URL('../../../drizzle-pg', import.meta.url));

export interface StoreConfig {
  dataDir: string;
  databaseUrl?: string;
}

export async function openStore(config: StoreConfig, log?: Pick<Logger, 'warn'>): Promise<Store> {
  if (config.databaseUrl) return openPgStore(config.databaseUrl, { log });
  return openSqliteStore(config.dataDir, MIGRATIONS);
}
