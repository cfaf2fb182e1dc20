// Opens the metadata store: SQLite in the data directory (one process, the default) or
// PostgreSQL at `URSA_DATABASE_URL` (a cluster). Migrations are applied at start-up.
import type { Logger } from 'pino';
import { openPgStore } from './pg-store.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

export {
  first,
  isForeignKeyViolation,
  isUniqueViolation,
  prepared,
  sqlOf,
  storeOf,
  tablesOf,
  tx,
} from './store.js';
export type { Db, Store, TxOptions } from './store.js';
export type { RowOf, Tables } from './tables.js';

export interface StoreConfig {
  dataDir: string;
  databaseUrl?: string;
}

export async function openStore(config: StoreConfig, log?: Pick<Logger, 'warn'>): Promise<Store> {
  if (config.databaseUrl) return openPgStore(config.databaseUrl, { log });
  return openSqliteStore(config.dataDir);
}
