// The metadata store: one asynchronous API over SQLite (one process, the default) or
// PostgreSQL (`URSA_DATABASE_URL`, any number of processes). Engine code holds a `Db` (drizzle,
// typed by the SQLite schema), takes its tables and dialect-specific SQL from the store that
// owns it (`tablesOf(db)`, `sqlOf(db)`), awaits every statement, and wraps changes that must
// land together in `tx(db, async () => …)`. Inside `tx`, the same `db` runs on the
// transaction's connection (found through AsyncLocalStorage), so functions need no
// transaction handle passed down. The store answers what engine code needs to know of it
// (`shared`, `claimOne`, `migrations`), never which database it is.
import type { SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { SQLiteColumn, SQLiteTable, SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { SqliteRemoteDatabase } from 'drizzle-orm/sqlite-proxy';
import type { Signals } from './signals.js';
import type { SqlFns } from './sql-fns.js';
import type { PgTables, Tables } from './tables.js';

/** The metadata database handle engine code queries. */
export type Db = SqliteRemoteDatabase<Record<string, never>>;

/**
 * Engine code holds one `Db` and one `Tables` type for both databases: drizzle's query
 * builder has the same API on both and reads and writes the same values, so both are typed as
 * SQLite's (whose inferred row types are the engine's). The PostgreSQL store is typed as
 * PostgreSQL and hands its drizzle and tables to engine code through here, the one place
 * that treats one as the other.
 */
export function engineView(db: NodePgDatabase, tables: PgTables): { db: Db; tables: Tables } {
  return { db: db as unknown as Db, tables: tables as unknown as Tables };
}

/** What `Store.claimOne` takes: the first row of `table` matching `where`, by `orderBy`. */
export interface ClaimSpec<T extends SQLiteTable> {
  table: T;
  /** The table's key column (the row is found, then updated, by it). */
  key: SQLiteColumn;
  where: SQL;
  orderBy: SQLiteColumn[];
  /** What the claim writes into the row (e.g. its owner). */
  set: SQLiteUpdateSetSource<T>;
}

/** Where a store keeps its schema's history (readiness compares it with the shipped one). */
export interface Migrations {
  /** The migrations this version ships for this database, applied at start-up. */
  readonly folder: string;
  /** The (schema-qualified) table drizzle records applied migrations in. */
  readonly table: string;
}

export interface TxOptions {
  /**
   * Names several processes may race on (a throttle bucket, a counter, a title): the
   * transaction holds a lock on each until it ends. SQLite has one writer and needs none;
   * PostgreSQL takes transaction-scoped advisory locks, in a fixed order (no deadlocks).
   */
  lock?: string[];
}

export interface Store {
  readonly db: Db;
  /** The metadata tables, as this store's database declares them. */
  readonly tables: Tables;
  /** The raw SQL fragments this store's database spells its own way (JSON, lists). */
  readonly sql: SqlFns;
  /**
   * Whether several processes may share this database (PostgreSQL): work, locks and leases
   * are then claimed across processes. SQLite serves one process.
   */
  readonly shared: boolean;
  readonly migrations: Migrations;
  /**
   * Updates with `spec.set` and returns the first row matching `spec.where` (by
   * `spec.orderBy`), or nothing when none does; when several processes claim at once, each
   * gets a different row (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: its one writer).
   */
  claimOne<T extends SQLiteTable>(spec: ClaimSpec<T>): Promise<T['$inferSelect'] | undefined>;
  /**
   * Runs `fn` in one transaction: every write lands or none does. Nested calls run in a
   * savepoint of the outer transaction. Run the statements of one transaction one after the
   * other (no `Promise.all` of nested transactions).
   */
  tx<T>(fn: () => Promise<T>, opts?: TxOptions): Promise<T>;
  /** Whether the caller runs inside a transaction of this store. */
  inTx(): boolean;
  /** Rows of a raw SQL query, as objects keyed by column name (inside a transaction: its). */
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Runs a raw SQL statement that returns no rows (inside a transaction: in it). */
  run(query: SQL): Promise<void>;
  /** Signals between the processes sharing this database (one process on SQLite). */
  readonly signals: Signals;
  /**
   * Runs `fn` (outside any transaction) while holding the cluster-wide lock `name`: work that
   * every process may do but only one may do at a time (bootstrap, conversions, assembling an
   * upload). The lock goes with its holder if the process dies. `held` aborts (reason
   * LockLost) when the lock is lost while `fn` runs (its database connection ended: another
   * process may hold it from then on); `fn` checks it before each step the lock guards.
   */
  exclusive<T>(
    name: string,
    fn: (held: AbortSignal) => Promise<T>,
    opts?: ExclusiveOptions,
  ): Promise<T>;
  /** Fails when the database does not answer (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface ExclusiveOptions {
  /** Stops waiting for the lock (rejects with the signal's reason); `fn` does not run. */
  signal?: AbortSignal;
}

/**
 * A cluster-wide lock was lost while held: the database ended its connection (a restart, a
 * failover, a terminated session). The cause is the connection's error (a 503: retry).
 */
export class LockLost extends Error {
  constructor(name: string, cause: Error) {
    super(`the cluster-wide lock "${name}" was lost: ${cause.message}`, { cause });
    this.name = 'LockLost';
  }
}

const stores = new WeakMap<object, Store>();

/** Registers `store` as the owner of its `db` (for `tx(db, …)` and `storeOf`). */
export function register(store: Store): Store {
  stores.set(store.db, store);
  return store;
}

export function storeOf(db: Db): Store {
  const s = stores.get(db);
  if (!s) throw new Error('this database handle belongs to no open store');
  return s;
}

/** The tables of the store `db` belongs to. */
export const tablesOf = (db: Db): Tables => storeOf(db).tables;

/** The dialect-specific SQL fragments of the store `db` belongs to. */
export const sqlOf = (db: Db): SqlFns => storeOf(db).sql;

/** One state change, one transaction: either every write lands or none does. */
export function tx<T>(db: Db, fn: () => Promise<T>, opts?: TxOptions): Promise<T> {
  return storeOf(db).tx(fn, opts);
}

/** What `.prepare()` of a drizzle builder gives on both databases. */
interface PreparedQuery<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

const preparedByDb = new WeakMap<Db, Map<string, PreparedQuery<unknown>>>();

/**
 * A statement on the request path, built once per database and run many times with values
 * given by `sql.placeholder(name)`: drizzle otherwise rebuilds the SQL text on every call,
 * which costs more than SQLite's read itself. On PostgreSQL the server also keeps it parsed
 * and planned, once per connection, under `ursa_<name>` (names must be unique).
 */
export function prepared<R>(
  name: string,
  build: (db: Db) => { prepare(): PreparedQuery<R> },
): (db: Db, values?: Record<string, unknown>) => Promise<R> {
  return (db, values) => {
    let byName = preparedByDb.get(db);
    if (!byName) preparedByDb.set(db, (byName = new Map()));
    let q = byName.get(name) as PreparedQuery<R> | undefined;
    if (!q) {
      // SQLite's prepare() takes no name and ignores it; PostgreSQL's names the statement.
      const b = build(db) as unknown as { prepare(name: string): PreparedQuery<R> };
      q = b.prepare(`ursa_${name}`);
      byName.set(name, q);
    }
    return q.execute(values ?? {});
  };
}

/** The first row of a result (drizzle builders are thenables on both databases). */
export const first = <T>(rows: T[]): T | undefined => rows[0];

/** Whether `err` (or its cause: drizzle wraps driver errors) is a unique or primary key clash. */
export function isUniqueViolation(err: unknown): boolean {
  const code = driverCode(err);
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** Whether `err` is a foreign key violation (the referenced row is missing). */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = driverCode(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

function driverCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 5; i++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
