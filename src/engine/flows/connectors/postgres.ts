// input.postgres: the rows of one SQL statement on a PostgreSQL server (FLOWS.md). The
// statement runs inside a READ ONLY transaction (PostgreSQL itself refuses writes), under a
// statement timeout, and its rows are streamed through a cursor in batches: the whole result
// is never in memory. The connection goes to the address the network guard allowed (no
// second DNS lookup). Messages never contain the password.
import net from 'node:net';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { z } from 'zod';
import { zIdent } from '../../model/defs.js';
import { BoxError } from '../errors.js';
import { credentialServer } from './server.js';
import type { ColumnInfo, ColumnType, Credentials, ReadContext } from './types.js';

export const postgresInputSchema = z
  .object({
    credentials: zIdent.describe(
      'Ident of a credentials object of kind "postgres" (host, port, user, database; its secret is the password)',
    ),
    query: z
      .string()
      .max(100_000)
      .regex(/\S/, { error: 'the query is empty' })
      .superRefine((q, ctx) => {
        const word = firstWord(q);
        if (word !== null && !READING.has(word.toLowerCase()))
          ctx.addIssue({ code: 'custom', message: notReading(word) });
      })
      .describe(
        'One read-only SQL statement returning rows (SELECT, WITH, VALUES or TABLE), run in a read-only transaction; its rows are streamed: SELECT id, amount FROM sales',
      ),
  })
  .strict()
  .describe('Rows of one SQL query on a PostgreSQL database');

export type PostgresInput = z.infer<typeof postgresInputSchema>;

/** Statements that read rows: a query starts with one of these (or a parenthesis). */
const READING = new Set(['select', 'with', 'values', 'table', '(']);

const notReading = (word: string) =>
  `the query must be one read-only statement returning rows (SELECT, WITH … SELECT, VALUES or TABLE), not ${word.toUpperCase()}`;

/** The query's first keyword, after comments and blanks ("(" for a parenthesised query). */
function firstWord(q: string): string | null {
  const rest = q.replace(/^(\s+|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*/, '');
  return /^(\(|[A-Za-z_]+)/.exec(rest)?.[0] ?? null;
}

export interface PostgresReadOptions {
  /** Rows per batch (and per cursor fetch); 5000. */
  batchRows?: number;
  /** TCP connect plus login; 10 s. */
  connectTimeoutMs?: number;
  /** Longest a single fetch may run in PostgreSQL; 5 min. */
  statementTimeoutMs?: number;
}

export type PostgresChunk = { columns: ColumnInfo[] } | { rows: Record<string, unknown>[] };

const DEFAULT_PORT = 5432;
const APPLICATION_NAME = 'ursa-flow';

// Type OIDs (pg_type.oid, stable across versions).
const OID = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  json: 114,
  float4: 700,
  float8: 701,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  jsonb: 3802,
} as const;

const COLUMN_TYPES = new Map<number, ColumnType>([
  [OID.int2, 'integer'],
  [OID.int4, 'integer'],
  [OID.int8, 'integer'],
  [OID.float4, 'number'],
  [OID.float8, 'number'],
  [OID.numeric, 'number'],
  [OID.bool, 'boolean'],
  [OID.date, 'date'],
  [OID.timestamp, 'datetime'],
  [OID.timestamptz, 'datetime'],
  [OID.json, 'json'],
  [OID.jsonb, 'json'],
]);

/** A column's type as connectors report it: anything unmapped comes as text. */
export function columnTypeOf(oid: number): ColumnType {
  return COLUMN_TYPES.get(oid) ?? 'string';
}

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer as a JS number when it is exactly representable, else its decimal text. */
function parseInteger(text: string): number | string {
  const n = BigInt(text);
  return n >= MIN_SAFE && n <= MAX_SAFE ? Number(n) : text;
}

// PostgreSQL's ISO output (DateStyle ISO): 2024-05-06 07:08:09.123456[+02[:30[:15]]][ BC]
const TIMESTAMP_RE =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?( BC)?$/;

/**
 * A timestamp as ISO 8601 text: `timestamptz` in UTC with a `Z` (microseconds kept),
 * `timestamp` as written (its wall-clock time, no zone). `infinity` and BC dates stay as
 * PostgreSQL wrote them.
 */
export function isoTimestamp(text: string, withZone: boolean): string {
  const m = TIMESTAMP_RE.exec(text);
  if (!m || m[12]) return text;
  const [, y, mo, d, h, mi, s] = m as unknown as string[];
  const frac = m[7] ?? '';
  if (!withZone) return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}`;
  const offset =
    (m[8] === '-' ? -1 : 1) *
    (Number(m[9] ?? 0) * 3600 + Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0));
  if (offset === 0) return `${y}-${mo}-${d}T${h}:${mi}:${s}${frac}Z`;
  const t = new Date(0);
  t.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  t.setUTCHours(Number(h), Number(mi), Number(s) - offset, 0);
  const iso = t.toISOString();
  return `${iso.slice(0, iso.indexOf('.'))}${frac}Z`;
}

/** pg's own bytea parser (hex or escape output), read from the defaults, never changed. */
const parseBytea = pg.types.getTypeParser(OID.bytea, 'text') as (text: string) => Buffer;

const asText = (text: string) => text;

/**
 * Sets this client's value parsers for the mapped types (the global pg.types registry is left
 * alone); dates stay as their `YYYY-MM-DD` text like every other type.
 */
function setParsers(client: pg.Client): void {
  const set = (oid: number, fn: (text: string) => unknown) => client.setTypeParser(oid, 'text', fn);
  set(OID.int2, parseInteger);
  set(OID.int4, parseInteger);
  set(OID.int8, parseInteger);
  set(OID.float4, Number);
  set(OID.float8, Number);
  set(OID.numeric, Number);
  set(OID.bool, (t) => t === 't');
  set(OID.timestamp, (t) => isoTimestamp(t, false));
  set(OID.timestamptz, (t) => isoTimestamp(t, true));
  set(OID.json, (t) => JSON.parse(t));
  set(OID.jsonb, (t) => JSON.parse(t));
  set(OID.bytea, (t) => parseBytea(t).toString('base64'));
}

/** Column names as row keys: a repeated name (in any case) gets `_2`, `_3`, … */
function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    let out = name;
    for (let i = 2; seen.has(out.toLowerCase()); i++) out = `${name}_${i}`;
    seen.add(out.toLowerCase());
    return out;
  });
}

/**
 * The rows of `query`: first `{ columns }`, then `{ rows }` batches of at most `batchRows`.
 * Aborting `ctx.signal` stops the read (the running statement is cancelled in PostgreSQL,
 * the connection closed) and throws the signal's reason. Errors the user must fix are
 * BoxErrors naming `credentials` (login, server, network) or `query` (PostgreSQL's message,
 * with the position and hint).
 */
export async function* postgresRows(
  query: string,
  cred: Credentials,
  ctx: ReadContext,
  opts: PostgresReadOptions = {},
): AsyncGenerator<PostgresChunk> {
  const batchRows = Math.max(1, Math.floor(opts.batchRows ?? 5000));
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  const statementTimeoutMs = Math.max(1, Math.floor(opts.statementTimeoutMs ?? 300_000));
  const { signal, box } = ctx;
  signal.throwIfAborted();

  const { target, port, user, where, clean } = await credentialServer(
    'PostgreSQL server',
    cred,
    DEFAULT_PORT,
    ctx,
  );

  const client = new pg.Client({
    host: target.address,
    port,
    user,
    // Always a string: `null` would make pg read PGPASSWORD or ~/.pgpass of the server.
    password: cred.secret ?? '',
    database: cred.database || user,
    application_name: APPLICATION_NAME,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    // This client's base parsers: every type as PostgreSQL's text, then setParsers below.
    types: { getTypeParser: () => asText },
  });
  // An error on an idle connection (server restart, network) must not crash the process;
  // the next read fails with it instead.
  client.on('error', () => {});
  setParsers(client);

  let phase: 'connect' | 'query' = 'connect';
  let busy = false; // a statement is running in PostgreSQL
  let closed = false;
  let cursor: Cursor<unknown[]> | null = null;

  const shutdown = async (cancelRunning: boolean): Promise<void> => {
    if (closed) return;
    closed = true;
    if (cancelRunning) await cancelBackend(client, target.address, port);
    await endClient(client);
  };
  let rejectAborted: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  aborted.catch(() => {});
  const onAbort = () => {
    rejectAborted(signal.reason);
    void shutdown(busy);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  /** `p`, or the signal's reason as soon as the signal aborts. */
  const race = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => {}); // settled after an abort: nobody listens any more
    return Promise.race([p, aborted]);
  };

  let completed = false;
  let failed = false;
  try {
    await race(client.connect());
    phase = 'query';
    // SET LOCAL (not startup parameters) so poolers such as PgBouncer accept them.
    await race(
      client.query(
        `BEGIN TRANSACTION READ ONLY; ` +
          `SET LOCAL statement_timeout = ${statementTimeoutMs}; ` +
          `SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'; ` +
          `SET LOCAL bytea_output = 'hex'`,
      ),
    );
    const c = client.query(new Cursor<unknown[]>(query, undefined, { rowMode: 'array' }));
    cursor = c;
    const read = async () => {
      busy = true;
      try {
        return await race(
          new Promise<{ rows: unknown[][]; fields: pg.FieldDef[] }>((resolve, reject) => {
            c.read(batchRows, (err, rows, result) => {
              if (err) reject(err);
              else resolve({ rows, fields: result.fields });
            });
          }),
        );
      } finally {
        busy = false;
      }
    };

    let batch = await read();
    // A statement without columns (COMMIT, SET, SELECT FROM t) has no rows to give.
    if (!batch.fields.length)
      throw new BoxError(
        box,
        'query',
        'the query returned no columns: it must be one read-only statement returning rows (SELECT, WITH … SELECT, VALUES or TABLE) with at least one column',
      );
    const names = uniqueNames(batch.fields.map((f) => f.name));
    const columns = batch.fields.map((f, i) => ({
      name: names[i] as string,
      type: columnTypeOf(f.dataTypeID),
    }));
    yield { columns };
    for (;;) {
      signal.throwIfAborted();
      if (batch.rows.length > 0) {
        yield { rows: batch.rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i]]))) };
        signal.throwIfAborted();
      }
      if (batch.rows.length < batchRows) break;
      batch = await read();
    }
    completed = true;
  } catch (err) {
    failed = true;
    if (signal.aborted) throw signal.reason;
    throw describeError(err, {
      box,
      where,
      user,
      query,
      phase,
      statementTimeoutMs,
      clean,
    });
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (!closed) {
      // Early stop by the consumer, or done: close the cursor and end the transaction
      // politely when the connection is idle; otherwise cancel and drop it.
      if (!busy && !failed && cursor) {
        try {
          await withTimeout(cursor.close(), 2000);
          if (completed) await withTimeout(client.query('ROLLBACK'), 2000);
        } catch {
          // the connection goes away below anyway
        }
      }
      await shutdown(busy);
    }
  }
}

interface ErrorContext {
  box: string;
  where: string;
  user: string;
  query: string;
  phase: 'connect' | 'query';
  statementTimeoutMs: number;
  clean: (text: string) => string;
}

/** The BoxError a failure becomes. */
function describeError(err: unknown, c: ErrorContext): BoxError {
  if (err instanceof BoxError) return err;
  const e = err as Partial<pg.DatabaseError> & { code?: string; message?: string };
  const message = c.clean(e.message ?? String(err));
  const sqlState = err instanceof pg.DatabaseError ? (e.code ?? '') : '';
  // Login and server-level refusals: what to fix is in the credentials object.
  if (
    c.phase === 'connect' ||
    sqlState.startsWith('28') || // invalid authorization
    sqlState === '3D000' || // database does not exist
    sqlState.startsWith('08') // connection exception
  ) {
    if (sqlState.startsWith('28'))
      return new BoxError(
        c.box,
        'credentials',
        `PostgreSQL server ${c.where} refused the login of user "${c.user}": ${message}`,
      );
    if (sqlState)
      return new BoxError(c.box, 'credentials', `PostgreSQL server ${c.where}: ${message}`);
    if (/client password must be/.test(message))
      return new BoxError(
        c.box,
        'credentials',
        `PostgreSQL server ${c.where} asks for a password and the credentials have none`,
      );
    return new BoxError(
      c.box,
      'credentials',
      `cannot connect to PostgreSQL at ${c.where}: ${networkReason(e.code, message)}`,
    );
  }
  if (sqlState === '57014' && /statement timeout/.test(message))
    return new BoxError(
      c.box,
      'query',
      `the query ran longer than the statement timeout (${c.statementTimeoutMs / 1000} s)`,
    );
  if (sqlState && !sqlState.startsWith('57P')) {
    let text = message;
    const pos = Number(e.position);
    if (Number.isInteger(pos) && pos > 0) {
      text += ` at position ${pos}`;
      const before = c.query.slice(0, pos - 1).split('\n');
      if (before.length > 1)
        text += ` (line ${before.length}, column ${(before.at(-1) ?? '').length + 1})`;
    }
    if (e.detail) text += `; detail: ${c.clean(e.detail)}`;
    if (e.hint) text += `; hint: ${c.clean(e.hint)}`;
    return new BoxError(c.box, 'query', text);
  }
  return new BoxError(c.box, null, `connection to PostgreSQL at ${c.where} failed: ${message}`);
}

function networkReason(code: string | undefined, message: string): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ECONNRESET':
      return 'connection reset by the server';
  }
  if (/timeout/i.test(message)) return 'no answer in time (connect timeout)';
  return message;
}

/**
 * Asks PostgreSQL to cancel the statement this client runs: a CancelRequest (protocol
 * message 80877102 with the backend's pid and secret key) on a new connection.
 */
export async function cancelBackend(
  client: pg.Client,
  address: string,
  port: number,
): Promise<void> {
  const { processID, secretKey } = client as unknown as {
    processID: number | null;
    secretKey: number | null;
  };
  if (typeof processID !== 'number' || typeof secretKey !== 'number') return;
  await new Promise<void>((resolve) => {
    const socket = net.connect({ host: address, port });
    const done = () => {
      socket.destroy();
      resolve();
    };
    socket.setTimeout(3000, done);
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => {
      const msg = Buffer.alloc(16);
      msg.writeInt32BE(16, 0);
      msg.writeInt32BE(80877102, 4);
      msg.writeInt32BE(processID, 8);
      msg.writeInt32BE(secretKey, 12);
      socket.end(msg);
    });
  });
}

/** Ends the connection; drops the socket if the server does not answer within 2 s. */
async function endClient(client: pg.Client): Promise<void> {
  try {
    await withTimeout(client.end(), 2000);
  } catch {
    const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } })
      .connection?.stream;
    stream?.destroy();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  p.catch(() => {}); // it may fail after the timeout won: nobody listens any more
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
