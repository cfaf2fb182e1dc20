// Connections to a warehouse project's PostgreSQL server: one pool per server (the primary,
// each replica) and credentials, to the address the connector network guard allowed (no
// second DNS lookup). Query connections are read-only (default_transaction_read_only) with a
// statement timeout; values come back as PostgreSQL's text except floating point numbers
// (JavaScript numbers, printed as DuckDB's are), booleans, and instants (UTC wall time, as
// DuckDB prints the UTC timestamps of loaded datetimes). The loading connection (the primary,
// writable) has a longer timeout of its own. Messages never hold the secret.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { checkout, type Checkout } from '../db/checkout.js';
import { boxErrorDetail } from '../flows/errors.js';
import { cancelBackend } from '../flows/connectors/postgres.js';
import { resolveServer } from '../flows/connectors/net-guard.js';
import { scrubSecret } from '../flows/connectors/server.js';
import type { Credentials, NetPolicy } from '../flows/connectors/types.js';

export interface ConnectionSettings {
  /** A statement's time limit (URSA_WAREHOUSE_TIMEOUT_SECONDS). */
  timeoutMs: number;
  /** A load's statement time limit (URSA_WAREHOUSE_LOAD_TIMEOUT_SECONDS). */
  loadTimeoutMs: number;
  /**
   * The time limit of a read a request waits on while mapping: a table's or view's sample rows
   * and row count (URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS). A view may be arbitrarily slow.
   */
  sampleTimeoutMs: number;
  /** Connections per server (URSA_WAREHOUSE_POOL). */
  pool: number;
  net: NetPolicy;
}

/** A warehouse error the caller can act on: said without the secret, never a 500. */
export class WarehouseError extends Error {
  constructor(
    message: string,
    /** connect: the server, login or network; query: the statement. */
    readonly phase: 'connect' | 'query',
    readonly sqlState = '',
  ) {
    super(message);
    this.name = 'WarehouseError';
  }
}

export interface QueryAnswer {
  fields: { name: string; dataTypeID: number }[];
  rows: unknown[][];
}

const FLOAT4 = 700;
const FLOAT8 = 701;
const BOOL = 16;
const TIMESTAMPTZ = 1184;
const asText = (t: string) => t;
// Sessions run with TimeZone UTC, so every instant ends in "+00": without it, it reads as the
// UTC timestamp an embedded project answers for the same value.
const utcWallTime = (t: string) => t.replace(/\+00( BC)?$/, '$1');
const typeParser = (oid: number) =>
  oid === FLOAT4 || oid === FLOAT8
    ? Number
    : oid === BOOL
      ? (t: string) => t === 't'
      : oid === TIMESTAMPTZ
        ? utcWallTime
        : asText;

const DEFAULT_PORT = 5432;

/** host:port of a replica entry (IPv6 in brackets). */
function splitHostPort(entry: string): { host: string; port: number } {
  const i = entry.lastIndexOf(':');
  return { host: entry.slice(0, i).replace(/^\[|\]$/g, ''), port: Number(entry.slice(i + 1)) };
}

function ssl(cred: Credentials, host: string): pg.PoolConfig['ssl'] {
  if (cred.sslmode === 'require') return { rejectUnauthorized: false };
  if (cred.sslmode === 'verify-full') return { rejectUnauthorized: true, servername: host };
  return false;
}

/** One server (the primary or a replica) of one credentials object. */
export class Server {
  private pool: pg.Pool | null = null;
  /**
   * A replica that could not be reached: 0 while healthy, else when it is next probed (it is
   * skipped until a probe answers).
   */
  downUntil = 0;

  constructor(
    readonly host: string,
    readonly port: number,
    private readonly cred: Credentials,
    private readonly settings: ConnectionSettings,
    private readonly readOnly: boolean,
  ) {}

  get where(): string {
    return `${this.host}:${this.port}`;
  }

  get sampleTimeoutMs(): number {
    return this.settings.sampleTimeoutMs;
  }

  clean(text: string): string {
    return scrubSecret(text, this.cred.secret);
  }

  /** The address to connect to, when the connector network rules allow this server. */
  async allowed(): Promise<{ address: string }> {
    try {
      return await resolveServer('PostgreSQL server', this.host, this.port, {
        box: 'warehouse',
        net: this.settings.net,
      });
    } catch (err) {
      throw new WarehouseError(this.clean(boxErrorDetail(err)), 'connect');
    }
  }

  private async open(): Promise<pg.Pool> {
    if (this.pool) return this.pool;
    if (!this.cred.user) throw new WarehouseError('the credentials have no user', 'connect');
    const target = await this.allowed();
    const timeout = this.readOnly ? this.settings.timeoutMs : this.settings.loadTimeoutMs;
    const opts = [
      `-c statement_timeout=${Math.max(1, Math.floor(timeout))}`,
      '-c TimeZone=UTC',
      '-c DateStyle=ISO,YMD',
      '-c IntervalStyle=postgres',
      ...(this.readOnly ? ['-c default_transaction_read_only=on'] : []),
    ];
    const pool = new pg.Pool({
      host: target.address,
      port: this.port,
      user: this.cred.user,
      // Always a string: null would make pg read PGPASSWORD or ~/.pgpass of this machine.
      password: this.cred.secret ?? '',
      database: this.cred.database || this.cred.user,
      application_name: this.readOnly ? 'ursa-warehouse' : 'ursa-warehouse-load',
      options: opts.join(' '),
      ssl: ssl(this.cred, this.host),
      max: this.settings.pool,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      types: { getTypeParser: typeParser as never },
    });
    // An idle connection dropped by the server must not crash the process.
    pool.on('error', () => {});
    this.pool = pool;
    return pool;
  }

  /**
   * A connection of its own, for a transaction (a load). The caller releases it, with `true`
   * when it may be broken (a failed or cancelled statement): it is not reused. A server that
   * goes away meanwhile (stopped, restarted, the session terminated) fails the statement
   * running or the next one, never the process (checkout listens for the whole checkout).
   */
  async session(): Promise<Checkout> {
    const pool = await this.open();
    try {
      return await checkout(pool);
    } catch (err) {
      throw this.describe(err, 'connect');
    }
  }

  /** Asks PostgreSQL to cancel what `client` (of this server) runs now. */
  cancel(client: pg.PoolClient): Promise<void> {
    const address = (client as unknown as { host: string }).host;
    return cancelBackend(client as unknown as pg.Client, address, this.port);
  }

  /**
   * Runs one statement. Aborting `signal` cancels it in PostgreSQL and drops the connection;
   * the statement timeout bounds it in any case, or `limitMs` when given (set for this
   * statement alone, in a transaction of its own).
   */
  async query(
    sql: string,
    params: unknown[],
    signal?: AbortSignal,
    limitMs?: number,
  ): Promise<QueryAnswer> {
    signal?.throwIfAborted();
    const held = await this.session();
    const client = held.client;
    let broken = false;
    const address = (client as unknown as { host: string }).host;
    const stop = () => {
      broken = true;
      void cancelBackend(client as unknown as pg.Client, address, this.port);
    };
    signal?.addEventListener('abort', stop, { once: true });
    let open = false;
    try {
      if (limitMs !== undefined) {
        await client.query('BEGIN');
        open = true;
        await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(limitMs))}`);
      }
      const r = await client.query({ text: sql, values: params, rowMode: 'array' });
      if (open) await client.query('COMMIT');
      open = false;
      return {
        fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
        rows: r.rows as unknown[][],
      };
    } catch (err) {
      signal?.throwIfAborted();
      const failure = this.describe(err, 'query');
      // A lost connection (a socket error, or the server ending the session: 08…, 57P01–03)
      // is never reused: the server's error arrives before its socket closes, so the pool
      // would hand the dead connection to the next statement.
      if (failure.phase === 'connect') broken = true;
      if (open && !broken) await client.query('ROLLBACK').catch(() => (broken = true));
      throw failure;
    } finally {
      signal?.removeEventListener('abort', stop);
      held.release(broken);
    }
  }

  /** PostgreSQL's reason, with its detail and hint, without the secret. */
  describe(err: unknown, phase: 'connect' | 'query'): WarehouseError {
    const e = err as Partial<pg.DatabaseError> & { message?: string; code?: string };
    const sqlState = err instanceof pg.DatabaseError ? (e.code ?? '') : '';
    // 57P01-57P03: the server is shutting down, crashed or not yet accepting connections (a
    // replica stopping or starting): like a failed connection, another server may answer.
    const login =
      sqlState.startsWith('28') ||
      sqlState === '3D000' ||
      sqlState.startsWith('08') ||
      /^57P0[123]$/.test(sqlState);
    // A socket the server closed mid-statement (a terminated backend: the write may fail
    // before PostgreSQL's own reason is read) says so, not only "write EPIPE".
    const closed = !sqlState && (e.code === 'EPIPE' || e.code === 'ECONNRESET');
    const reason = closed
      ? `the server closed the connection (${e.message ?? e.code})`
      : (e.message ?? String(err));
    const text = [reason, e.detail, e.hint].filter(Boolean).join('; ');
    const where = phase === 'connect' || login ? `PostgreSQL server ${this.where}: ` : '';
    return new WarehouseError(
      this.clean(`${where}${text}`),
      phase === 'connect' || login || !sqlState ? 'connect' : 'query',
      sqlState,
    );
  }

  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    await p?.end().catch(() => {});
  }
}

/** How often a replica that could not be reached is probed until it answers again. */
export const REPLICA_RETRY_MS = 10_000;

/**
 * The servers of one credentials object: queries go to the healthy replicas in turn (the
 * primary when there are none, or none answers), mapping and loads to the primary.
 */
export class ServerSet {
  readonly primary: Server;
  /** The primary for writes (loads): no read-only default. */
  readonly writer: Server;
  readonly replicas: Server[];
  private next = 0;

  constructor(cred: Credentials, settings: ConnectionSettings) {
    const host = cred.host ?? '';
    const port = cred.port ?? DEFAULT_PORT;
    this.primary = new Server(host, port, cred, settings, true);
    this.writer = new Server(host, port, cred, settings, false);
    this.replicas = (cred.replicas ?? []).map((r) => {
      const { host: h, port: p } = splitHostPort(r);
      return new Server(h, p, cred, settings, true);
    });
  }

  /**
   * A read on a healthy replica in turn (the primary when none is). One that cannot be reached
   * is skipped, and probed in the background every REPLICA_RETRY_MS: it is used again once it
   * answers, and no caller's query waits on a server that is still down.
   */
  async read(sql: string, params: unknown[], signal?: AbortSignal): Promise<QueryAnswer> {
    const now = Date.now();
    for (const r of this.replicas) if (r.downUntil && r.downUntil <= now) this.probe(r);
    const healthy = this.replicas.filter((r) => !r.downUntil);
    for (let i = 0; i < healthy.length; i++) {
      const r = healthy[(this.next + i) % healthy.length]!;
      try {
        const answer = await r.query(sql, params, signal);
        this.next = (this.next + i + 1) % Math.max(1, healthy.length);
        return answer;
      } catch (err) {
        if (!(err instanceof WarehouseError) || err.phase !== 'connect') throw err;
        await this.down(r);
      }
    }
    return this.primary.query(sql, params, signal);
  }

  private async down(r: Server): Promise<void> {
    r.downUntil = Date.now() + REPLICA_RETRY_MS;
    await r.close();
  }

  private probing = new Set<Server>();
  private closed = false;

  /** Tries a replica that was down once more, without holding up any read. */
  private probe(r: Server): void {
    if (this.closed || this.probing.has(r)) return;
    this.probing.add(r);
    r.query('SELECT 1', []).then(
      async () => {
        r.downUntil = 0;
        this.probing.delete(r);
        if (this.closed) await r.close(); // closed meanwhile: the probe opened a pool
      },
      async () => {
        await this.down(r);
        this.probing.delete(r);
      },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.primary, this.writer, ...this.replicas].map((s) => s.close()));
  }
}

/** What identifies a credentials object's connections: a change opens new ones. */
export function credentialsKey(cred: Credentials): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        cred.ident,
        cred.host,
        cred.port,
        cred.user,
        cred.database,
        cred.sslmode,
        cred.replicas,
        cred.secret,
      ]),
    )
    .digest('hex');
}
