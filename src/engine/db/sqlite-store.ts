// The SQLite metadata store (one process). better-sqlite3 is synchronous with one connection
// per handle, so an `await` inside a transaction would let other requests' statements run
// inside it. Hence: writes and transactions go through one writer connection, serialized by
// an async lock that a transaction holds from BEGIN to COMMIT; reads outside a transaction go
// to a second, read-only connection, which in WAL mode sees the last committed state and
// never waits for the writer. Statements of a transaction are recognised by the
// AsyncLocalStorage context `tx` opens.
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type SQL } from 'drizzle-orm';
import { drizzle as drizzleSync } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { drizzle } from 'drizzle-orm/sqlite-proxy';
import { KeyedLock } from '../keyed-lock.js';
import { claimSingleWriter } from './claim.js';
import { memorySignals } from './signals.js';
import { sqliteSql } from './sql-fns.js';
import { register, type Db, type ExclusiveOptions, type Store, type TxOptions } from './store.js';
import { sqliteTables } from './tables.js';
import { installed } from '../../shared/install-root.js';

/** The SQLite migrations this version ships (drizzle/, generated from schema.ts). */
export const MIGRATIONS = installed('drizzle');

const WRITER = 'writer';

interface TxContext {
  depth: number;
  /** False once the transaction ended: late statements of its context run on their own. */
  open: boolean;
}

type Method = 'run' | 'all' | 'values' | 'get';

/** Prepared statements per connection, by SQL text (preparing costs more than running). */
class Statements {
  private cache = new Map<string, Database.Statement>();
  constructor(readonly conn: Database.Database) {}
  get(sql: string): Database.Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.conn.prepare(sql);
      if (this.cache.size >= 500) this.cache.clear();
      this.cache.set(sql, s);
    }
    return s;
  }
}

function execute(st: Statements, sql: string, params: unknown[], method: Method) {
  const stmt = st.get(sql);
  if (method === 'run' || !stmt.reader) {
    stmt.run(...params);
    return { rows: [] };
  }
  stmt.raw(true);
  if (method === 'get') return { rows: stmt.get(...params) as unknown[] };
  return { rows: stmt.all(...params) as unknown[] };
}

const isRead = (sql: string, method: Method) =>
  method !== 'run' && /^\s*(select|with)\b/i.test(sql) && !/\breturning\b/i.test(sql);

export function openSqliteStore(dataDir: string, migrationsFolder = MIGRATIONS): Store {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'metadata.sqlite');
  const writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.pragma('synchronous = NORMAL');
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  migrate(drizzleSync(writer), { migrationsFolder });
  const reader = new Database(file, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  const w = new Statements(writer);
  const r = new Statements(reader);
  // The writer connection, one user at a time (FIFO).
  const lock = new KeyedLock();
  const als = new AsyncLocalStorage<TxContext>();
  const dialect = new SQLiteAsyncDialect();
  const current = () => {
    const t = als.getStore();
    return t?.open ? t : undefined;
  };

  /** Where a statement runs: its transaction's, the reader, or the writer under the lock. */
  const onConnection = async <T>(read: boolean, fn: (st: Statements) => T): Promise<T> => {
    if (current()) return fn(w);
    if (read) return fn(r);
    const release = await lock.acquire(WRITER);
    try {
      return fn(w);
    } finally {
      release();
    }
  };

  const db = drizzle(async (sql, params, method) =>
    onConnection(isRead(sql, method), (st) => execute(st, sql, params, method)),
  ) as unknown as Db;

  const signals = memorySignals();
  // One process: a start-up lock is a queue per name in memory.
  const exclusives = new KeyedLock();
  const never = new AbortController().signal;

  const store: Store = {
    db,
    tables: sqliteTables,
    sql: sqliteSql,
    shared: false,
    migrations: { folder: migrationsFolder, table: '__drizzle_migrations' },
    claimOne: (spec) => claimSingleWriter(db, (fn) => store.tx(fn), spec),
    signals,
    exclusive<T>(
      name: string,
      fn: (held: AbortSignal) => Promise<T>,
      opts?: ExclusiveOptions,
    ): Promise<T> {
      // In the queue's order; a waiter that gives up keeps its place but runs nothing. Held
      // in memory: never lost.
      return exclusives.run(name, () => fn(never), opts?.signal);
    },
    inTx: () => current() !== undefined,
    // One writer at a time: `opts.lock` names are held by construction.
    async tx<T>(fn: () => Promise<T>, _opts?: TxOptions): Promise<T> {
      const outer = current();
      if (outer) {
        const name = `sp${outer.depth}`;
        writer.exec(`SAVEPOINT ${name}`);
        const inner: TxContext = { depth: outer.depth + 1, open: true };
        try {
          const out = await als.run(inner, fn);
          writer.exec(`RELEASE ${name}`);
          return out;
        } catch (err) {
          writer.exec(`ROLLBACK TO ${name}`);
          writer.exec(`RELEASE ${name}`);
          throw err;
        } finally {
          inner.open = false;
        }
      }
      const release = await lock.acquire(WRITER);
      const ctx: TxContext = { depth: 1, open: true };
      try {
        writer.exec('BEGIN IMMEDIATE');
        try {
          const out = await als.run(ctx, fn);
          writer.exec('COMMIT');
          return out;
        } catch (err) {
          if (writer.inTransaction) writer.exec('ROLLBACK');
          throw err;
        }
      } finally {
        ctx.open = false;
        release();
      }
    },
    async rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]> {
      const q = dialect.sqlToQuery(query);
      return onConnection(isRead(q.sql, 'all'), (st) => {
        const stmt = st.get(q.sql);
        stmt.raw(false);
        return stmt.all(...q.params) as T[];
      });
    },
    async run(query: SQL): Promise<void> {
      const q = dialect.sqlToQuery(query);
      await onConnection(false, (st) => st.get(q.sql).run(...q.params));
    },
    async ping() {
      reader.prepare('SELECT 1').get();
    },
    async close() {
      await signals.close();
      const release = await lock.acquire(WRITER);
      try {
        reader.close();
        writer.close();
      } finally {
        release();
      }
    },
  };
  return register(store);
}
