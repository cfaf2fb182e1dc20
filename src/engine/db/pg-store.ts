// The PostgreSQL metadata store (`URSA_DATABASE_URL`): a pg Pool shared by the process, the
// migrations applied once across processes (migrate-pg.ts). drizzle is given a client that
// sends each statement to the connection of the caller's transaction (AsyncLocalStorage)
// or, outside one, to the pool; so engine code uses the same `db` in and out of `tx`.
import { AsyncLocalStorage } from 'node:async_hooks';
import { type SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from 'pino';
import { invalid } from '../errors.js';
import { checkout } from './checkout.js';
import { claimSkipLocked } from './claim.js';
import { MIGRATIONS_PG, migratePg } from './migrate-pg.js';
import { pgSignals } from './signals.js';
import { pgSql } from './sql-fns.js';
import {
  engineView,
  LockLost,
  register,
  type ExclusiveOptions,
  type Store,
  type TxOptions,
} from './store.js';
import { pgTables } from './tables.js';

/** SQLSTATE of a statement cancelled (pg_cancel_backend) or past statement_timeout. */
const QUERY_CANCELED = '57014';

/**
 * Text PostgreSQL cannot store: NUL in text (22021 character_not_in_repertoire) or as \u0000
 * in jsonb (22P05 untranslatable_character). The doors refuse it before it gets here
 * (src/shared/storable-text.ts); one that slipped through is still the caller's bad input,
 * so the store raises it as such (400), not as an internal error.
 */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);
function rethrowUnstorable(err: unknown): never {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !UNSTORABLE_TEXT.has(code)) throw err;
  throw Object.assign(
    invalid('a value holds text that cannot be stored (a NUL character, \\u0000)', {
      sqlstate: code,
    }),
    { cause: err },
  );
}

interface TxContext {
  client: pg.PoolClient;
  depth: number;
  open: boolean;
}

// Raw rows (`rows()`): bigint (int8, e.g. count(*)) and numeric arrive as strings by default;
// metadata counts and sizes are numbers. Per query, not pg's global parsers: the flows'
// PostgreSQL connector reads customer data with pg too, and must keep exact values.
const rawTypes = {
  getTypeParser: (id: number, format?: string) =>
    id === pg.types.builtins.INT8 || id === pg.types.builtins.NUMERIC
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(id, format as 'text'),
};

export interface PgStoreOptions {
  /** Connections per process (default 10). */
  max?: number;
  /** Connections per process that hold cluster-wide locks (`exclusive`; default 16). */
  lockConnections?: number;
  /** Longest statement, in milliseconds (default 30 s): a stuck query must not hold a slot. */
  statementTimeoutMs?: number;
  log?: Pick<Logger, 'warn'>;
}

export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<Store> {
  const log = opts.log;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    statement_timeout: opts.statementTimeoutMs ?? 30_000,
    application_name: 'ursa',
  });
  // An idle connection that breaks (server restart, network) emits 'error' on the pool; left
  // unhandled it would end the process. The next query reconnects.
  pool.on('error', (err) => opts.log?.warn({ err: err.message }, 'metadata connection lost'));
  await migratePg(pool);
  // Connections that hold (or wait for) `exclusive` locks. A waiter may wait as long as the
  // holder works (an upload being assembled), so there is no acquire timeout.
  const lockPool = new pg.Pool({
    connectionString: url,
    max: opts.lockConnections ?? 16,
    connectionTimeoutMillis: 0,
    idleTimeoutMillis: 10_000,
    application_name: 'ursa-locks',
  });
  lockPool.on('error', (err) => opts.log?.warn({ err: err.message }, 'lock connection lost'));
  const als = new AsyncLocalStorage<TxContext>();
  const current = () => {
    const t = als.getStore();
    return t?.open ? t : undefined;
  };
  const client = {
    query: (...args: unknown[]) =>
      (
        (current()?.client ?? pool).query(
          ...(args as Parameters<pg.Pool['query']>),
        ) as unknown as Promise<pg.QueryResult>
      ).catch(rethrowUnstorable),
  };
  // drizzle's node-postgres driver calls only `query` of the client it is given.
  const pgDb = drizzle({ client: client as unknown as pg.Pool });
  const { db, tables } = engineView(pgDb, pgTables);
  const dialect = new PgDialect();

  const signals = pgSignals(
    url,
    (text, values) => (current()?.client ?? pool).query(text, values),
    opts.log,
  );

  const store: Store = {
    db,
    tables,
    sql: pgSql,
    shared: true,
    migrations: { folder: MIGRATIONS_PG, table: 'drizzle.__drizzle_migrations' },
    claimOne: (spec) => claimSkipLocked(db, spec),
    signals,
    async exclusive<T>(
      name: string,
      fn: (held: AbortSignal) => Promise<T>,
      opts?: ExclusiveOptions,
    ): Promise<T> {
      // A session-level advisory lock on a connection of the lock pool, held while `fn` runs
      // its statements on the main pool; it goes with the connection if this process dies.
      // Holders and waiters never take the main pool's connections, so however many wait,
      // the holder's statements still get one. PostgreSQL grants a lock to its waiters in
      // the order they asked.
      const signal = opts?.signal;
      signal?.throwIfAborted();
      // A lock connection that ends (the session terminated, the server restarted) takes the
      // lock with it: another process may take it at once. `fn` hears it through `held`.
      const held = new AbortController();
      let locked = false;
      const conn = await checkout(lockPool, (err) => {
        if (!locked) return; // a waiter: its pg_advisory_lock fails with the error
        log?.warn({ err: err.message, lock: name }, 'lock connection lost; its holder stops');
        held.abort(new LockLost(name, err));
      });
      let broken: Error | undefined;
      // A waiter that gives up cancels its lock request: the server would wait on otherwise.
      // The cancel is repeated until the request ends: one that reaches the server before the
      // request does (it was just sent) cancels nothing.
      const pid = (conn.client as unknown as { processID: number }).processID;
      let waiting = true;
      const onAbort = () =>
        void (async () => {
          while (waiting) {
            await pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
            if (waiting) await sleep(100);
          }
        })();
      try {
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          // Given up while the connection was being checked out: the listener came too late.
          signal?.throwIfAborted();
          await conn.client.query('SELECT pg_advisory_lock(hashtextextended($1, 1))', [name]);
          locked = true;
        } catch (err) {
          if (
            signal?.aborted &&
            (err === signal.reason || (err as { code?: string }).code === QUERY_CANCELED)
          )
            throw signal.reason as Error;
          broken = err as Error;
          throw err;
        } finally {
          waiting = false;
          signal?.removeEventListener('abort', onAbort);
        }
        try {
          return await fn(held.signal);
        } finally {
          if (!conn.lost.aborted)
            await conn.client
              .query('SELECT pg_advisory_unlock(hashtextextended($1, 1))', [name])
              .catch((e: Error) => (broken = e));
        }
      } finally {
        conn.release(broken);
      }
    },
    inTx: () => current() !== undefined,
    async tx<T>(fn: () => Promise<T>, opts?: TxOptions): Promise<T> {
      const outer = current();
      const lockAll = async (c: pg.PoolClient) => {
        for (const key of [...new Set(opts?.lock ?? [])].sort())
          await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
      };
      if (outer) {
        const name = `sp${outer.depth}`;
        await outer.client.query(`SAVEPOINT ${name}`);
        await lockAll(outer.client);
        const inner: TxContext = { client: outer.client, depth: outer.depth + 1, open: true };
        try {
          const out = await als.run(inner, fn);
          await outer.client.query(`RELEASE SAVEPOINT ${name}`);
          return out;
        } catch (err) {
          await outer.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          throw err;
        } finally {
          inner.open = false;
        }
      }
      const held = await checkout(pool);
      const conn = held.client;
      const ctx: TxContext = { client: conn, depth: 1, open: true };
      let broken: Error | undefined;
      try {
        await conn.query('BEGIN');
        await lockAll(conn);
        try {
          const out = await als.run(ctx, fn);
          await conn.query('COMMIT');
          return out;
        } catch (err) {
          try {
            await conn.query('ROLLBACK');
          } catch (e) {
            broken = e as Error;
          }
          throw err;
        }
      } finally {
        ctx.open = false;
        held.release(broken);
      }
    },
    async rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]> {
      const q = dialect.sqlToQuery(query);
      const r = await (current()?.client ?? pool)
        .query({ text: q.sql, values: q.params as unknown[], types: rawTypes })
        .catch(rethrowUnstorable);
      return r.rows as T[];
    },
    async run(query: SQL): Promise<void> {
      const q = dialect.sqlToQuery(query);
      await (current()?.client ?? pool)
        .query(q.sql, q.params as unknown[])
        .catch(rethrowUnstorable);
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await signals.close();
      await lockPool.end();
      await pool.end();
    },
  };
  return register(store);
}
