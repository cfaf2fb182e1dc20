// The metadata tables engine code queries. Both schemas (schema.ts for SQLite, schema-pg.ts for
// PostgreSQL) describe the same tables under the same names (test/db-schema-parity.test.ts);
// each store holds the set of its own database, and engine code takes them from the store it
// uses (`tablesOf(db)`), so no module knows which database is behind it.
import * as pg from './schema-pg.js';
import * as sqlite from './schema.js';

export type { Announcement, WarehouseBinding } from './schema.js';

const NAMES = [
  'organizations',
  'orgAdmins',
  'users',
  'projects',
  'projectUsers',
  'jobs',
  'activity',
  'sessions',
  'davProps',
  'uploads',
  'prescriptions',
  'datasets',
  'objects',
  'objectRevisions',
  'oidcModels',
  'limitCounters',
  'tokenRevocations',
  'mcpSessions',
  'davLocks',
  'aiConversations',
  'aiMessages',
  'passwordLinks',
  'flowLocks',
  'triggerFirings',
  'triggerState',
  'triggerPauses',
  'shares',
  'deliveryState',
  'deliveryHistory',
] as const;
export type TableName = (typeof NAMES)[number];

/**
 * The tables as engine code types them: the SQLite schema's inferred types, which are the
 * engine's row types (the values read and written are the same on both databases).
 */
export type Tables = { readonly [K in TableName]: (typeof sqlite)[K] };
/** The same tables as PostgreSQL's drizzle types them. */
export type PgTables = { readonly [K in TableName]: (typeof pg)[K] };

/** A row of table `K` as engine code reads it. */
export type RowOf<K extends TableName> = Tables[K]['$inferSelect'];

function pick<S extends Record<TableName, unknown>>(schema: S): { [K in TableName]: S[K] } {
  return Object.freeze(Object.fromEntries(NAMES.map((n) => [n, schema[n]]))) as {
    [K in TableName]: S[K];
  };
}

export const sqliteTables: Tables = pick(sqlite);
export const pgTables: PgTables = pick(pg);
