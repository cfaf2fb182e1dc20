// Applies the PostgreSQL metadata migrations (drizzle-pg/, from schema-pg.ts) at start-up.
// Many Ursa processes may share one database and start together (SCALE.md): drizzle's
// migrator alone would let them race (each sees the migration missing, each runs it, all
// but one fail on "already exists"), so the whole run holds a session-level advisory lock.
// The first process migrates; the others wait, then find nothing left to apply.
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type pg from 'pg';
import { checkout } from './checkout.js';
import { installed } from '../../shared/install-root.js';

/** The PostgreSQL migrations this version ships (drizzle-pg/, generated from schema-pg.ts). */
export const MIGRATIONS_PG = installed('drizzle-pg');

/**
 * The advisory lock key of the metadata migrations ('URSA' in ASCII). Advisory locks are
 * per database, so every Ursa process on it takes this same key; nothing else may use it.
 */
export const MIGRATION_LOCK_KEY = 0x55525341;

/** Brings the database `pool` connects to up to the newest migration, once across processes. */
export async function migratePg(
  pool: pg.Pool,
  migrationsFolder: string = MIGRATIONS_PG,
): Promise<void> {
  // One connection for lock, migrations and unlock: the lock belongs to the session.
  // A connection lost meanwhile fails the statement it runs (and the start-up), not the process.
  const held = await checkout(pool);
  const client = held.client;
  let failure: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      await migrate(drizzle({ client }), { migrationsFolder });
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
    }
  } catch (err) {
    failure = err as Error;
    throw err;
  } finally {
    // After a failure the session may still hold the lock (or be mid-transaction): close it
    // rather than return it to the pool, which ends the session and frees the lock.
    held.release(failure);
  }
}
