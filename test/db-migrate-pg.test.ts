// The PostgreSQL metadata migrations on a real throwaway PostgreSQL: ten processes' pools
// starting at once migrate the database once (the advisory lock of migrate-pg.ts), and the
// result is schema-pg.ts: every table with its columns, nullability and indexes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { is } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK_KEY, migratePg } from '../src/engine/db/migrate-pg.js';
import * as pgSchema from '../src/engine/db/schema-pg.js';
import { postgresMissing, type TestPostgres } from '../scripts/throwaway-postgres.js';
import { sharedPostgres } from './helpers/postgres.js';

const inCi = process.env.CI === 'true';
const PG_MISSING = postgresMissing();
// The server may hold other databases (the run's shared one): their locks are not ours.
const THIS_DB = '(SELECT oid FROM pg_database WHERE datname = current_database())';
if (PG_MISSING && !inCi) console.warn(`PostgreSQL migration tests skipped: ${PG_MISSING}`);

const MIGRATIONS = fileURLToPath(new URL('../drizzle-pg', import.meta.url));
const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS, 'meta/_journal.json'), 'utf8'))
  .entries as Array<{ tag: string; when: number }>;
/** drizzle records a migration by the sha256 of its SQL file. */
const migrationHashes = journal.map((e) =>
  crypto
    .createHash('sha256')
    .update(fs.readFileSync(path.join(MIGRATIONS, `${e.tag}.sql`), 'utf8'))
    .digest('hex'),
);

const tables = (Object.values(pgSchema) as unknown[])
  .filter((v): v is PgTable => is(v, PgTable))
  .map((t) => getTableConfig(t));

describe.skipIf(PG_MISSING !== null && !inCi)('PostgreSQL metadata migrations', () => {
  let server: TestPostgres;
  let admin: pg.Client;
  const pools: pg.Pool[] = [];
  const newPool = () => {
    const pool = new pg.Pool({ ...connection(), max: 2 });
    pool.on('error', () => {});
    pools.push(pool);
    return pool;
  };
  const connection = () => ({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database: server.database,
  });

  beforeAll(async () => {
    server = await sharedPostgres();
    admin = new pg.Client(connection());
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await admin?.end();
    await server?.stop();
  });

  const applied = async () =>
    (
      await admin.query<{ hash: string }>(
        'SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id',
      )
    ).rows.map((r) => r.hash);

  it('ten pools migrating at once: one migrates, the others wait, all succeed', async () => {
    // Hold the lock first, so all ten are surely waiting on it together when it is released.
    const holder = new pg.Client(connection());
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    const finished: number[] = [];
    const runs = Array.from({ length: 10 }, (_, i) =>
      migratePg(newPool()).then(() => finished.push(i)),
    );
    try {
      // Wait until every one of them is blocked on the lock…
      const deadline = Date.now() + 20_000;
      let waiting = 0;
      while (waiting < 10 && Date.now() < deadline) {
        const r = await admin.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = ${THIS_DB} AND NOT granted`,
        );
        waiting = Number(r.rows[0]?.n);
        if (waiting < 10) await new Promise((r) => setTimeout(r, 50));
      }
      expect(waiting).toBe(10);
      // …with nothing migrated meanwhile.
      expect(finished).toEqual([]);
      const schema = await admin.query(
        `SELECT 1 FROM information_schema.schemata WHERE schema_name = 'drizzle'`,
      );
      expect(schema.rowCount).toBe(0);
    } finally {
      await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
      await holder.end();
    }

    const results = await Promise.allSettled(runs);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(finished).toHaveLength(10);

    // Each migration recorded exactly once.
    expect(journal.length).toBeGreaterThan(0);
    expect(await applied()).toEqual(migrationHashes);

    // No lock left behind.
    const held = await admin.query(
      `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = ${THIS_DB}`,
    );
    expect(held.rowCount).toBe(0);
  }, 60_000);

  it('the migrated database is schema-pg.ts: every table, column, nullability and index', async () => {
    expect(tables.length).toBeGreaterThan(20);
    for (const t of tables) {
      const cols = await admin.query<{ column_name: string; is_nullable: string }>(
        `SELECT column_name, is_nullable FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [t.name],
      );
      expect(cols.rowCount, `table ${t.name}`).toBeGreaterThan(0);
      expect(
        Object.fromEntries(cols.rows.map((c) => [c.column_name, c.is_nullable === 'NO'])),
        `columns of ${t.name}`,
      ).toEqual(Object.fromEntries(t.columns.map((c) => [c.name, c.notNull])));

      const ix = await admin.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1`,
        [t.name],
      );
      const names = ix.rows.map((r) => r.indexname);
      for (const i of t.indexes) expect(names, `indexes of ${t.name}`).toContain(i.config.name);
    }
  });

  it('a later start applies nothing; a failed migration releases the lock', async () => {
    const before = await applied();
    await migratePg(newPool());
    expect(await applied()).toEqual(before);

    // A migration folder whose newest migration fails: the run fails, rolls back and does not
    // leave the lock held, so the next start (the real folder) is not blocked.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pg-migrations-'));
    try {
      fs.cpSync(MIGRATIONS, dir, { recursive: true });
      const last = journal[journal.length - 1] as { when: number };
      const broken = { idx: journal.length, version: '7', when: last.when + 1, tag: '9999_broken' };
      fs.writeFileSync(
        path.join(dir, '9999_broken.sql'),
        'CREATE TABLE broken_half (id integer);\n--> statement-breakpoint\nSELECT no_such_function();',
      );
      const j = JSON.parse(fs.readFileSync(path.join(dir, 'meta/_journal.json'), 'utf8'));
      j.entries.push({ ...broken, breakpoints: true });
      fs.writeFileSync(path.join(dir, 'meta/_journal.json'), JSON.stringify(j));

      await expect(migratePg(newPool(), dir)).rejects.toThrow(/no_such_function/);
      const half = await admin.query(`SELECT to_regclass('public.broken_half') AS t`);
      expect(half.rows[0].t).toBeNull();
      expect(await applied()).toEqual(before);
      const held = await admin.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND database = ${THIS_DB}`,
      );
      expect(held.rowCount).toBe(0);

      await migratePg(newPool());
      expect(await applied()).toEqual(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
