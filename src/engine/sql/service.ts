// The SQL API's engine side: who a connection is (an e-mail and an API token; the database
// is the project), and what each statement answers. A SELECT over the model becomes AQL and
// runs as a query job of the member (row filters, object access, plan limits, the jobs list);
// AQL itself may be sent behind `/*aql*/`. The wire protocol is the door's (src/sql).
import type { Principal, ProjectActor } from '../access/actor.js';
import type { Aql } from '../aql/service.js';
import type { CatalogService } from '../catalog/catalog.js';
import { EngineError } from '../errors.js';
import type { JobRunner } from '../jobs/jobs.js';
import type { Signals } from '../db/signals.js';
import type { Throttle } from '../identity/throttle.js';
import type { SqlPasswords } from './passwords.js';
import { FINAL_STATUSES } from '../jobs/types.js';
import { notSupported, SqlError, sqlErrorOf } from './errors.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
import type { Param } from './expr.js';
import { localStatement, type LocalResult, type SqlCell, type SqlSession } from './local.js';
import { parseSql, type Parsed, type Stmt } from './parse.js';
import { CatalogDb, catalogStatement } from './catalog-db.js';
import { sqlSchema } from './schema.js';
import { translateSelect } from './translate.js';

export { loadSqlParser } from './parse.js';
export { SqlError } from './errors.js';
export {
  initialSettings,
  SERVER_VERSION,
  type CopyFormat,
  type SqlSession,
  type SqlCell,
} from './local.js';
export type { Param } from './expr.js';

export type SqlResult = LocalResult;

const CH_CANCEL = 'ursa_sql_cancel';
/** An API token (a JWT); any other password is a member's SQL password. */
const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The AQL of a statement sent as `/*aql*\/ SELECT …`, else null. */
const AQL_MARK = /^\s*\/\*\s*aql\s*\*\/\s*/i;

export interface SqlDeps {
  aql: Aql;
  catalog: CatalogService;
  jobs: JobRunner;
  verify: (token: string) => Promise<{ email: string }>;
  actor: (p: Principal, projectId: string) => Promise<ProjectActor>;
  /** The longest a statement runs when the session sets no statement_timeout. */
  statementTimeoutMs: number;
  throttle: Pick<Throttle, 'guess'>;
  passwords: Pick<SqlPasswords, 'check'>;
  /** Between processes: a cancel request reaches whichever process a balancer chose. */
  signals: Pick<Signals, 'listen' | 'notify'>;
  /** The project's activity log (a SQL API sign-in is recorded like other members' actions). */
  activity: {
    record(
      projectId: string,
      type: 'user_action',
      e: { user: string; message: string; detail: Record<string, unknown> },
    ): Promise<void>;
  };
}

export class SqlService {
  private catalogDb = new CatalogDb();

  constructor(private readonly d: SqlDeps) {}

  /**
   * A cancel request (its own connection, which a balancer may send to another process than
   * the session's): told to every process; the one holding the session with that key cancels.
   */
  requestCancel(pid: number, secret: number): Promise<void> {
    return this.d.signals.notify(CH_CANCEL, `${pid}:${secret}`);
  }

  /** Hears cancel requests sent to any process; returns the way to stop. */
  onCancel(fn: (pid: number, secret: number) => void): Promise<() => void> {
    return this.d.signals.listen(CH_CANCEL, (payload) => {
      const [pid, secret] = payload.split(':').map(Number);
      if (Number.isInteger(pid) && Number.isInteger(secret)) fn(pid!, secret!);
    });
  }

  /** Frees the catalog databases (engine close). */
  close(): void {
    this.catalogDb.close();
  }

  /**
   * A connection's member: `user` is their e-mail, `password` an API token of theirs,
   * `database` the project. Any failure is the same 28P01 (nothing to learn from it) except
   * a project the member cannot enter (3D000 names it).
   */
  async authenticate(
    user: string,
    password: string,
    database: string,
    address: string,
  ): Promise<ProjectActor> {
    // Guesses are limited as sign-ins are (per account and address, and per address).
    const guess = await this.d.throttle.guess('sql', user.trim(), address);
    if (guess.retryAfter !== null)
      throw new SqlError(
        '28000',
        `too many failed sign-ins from this address; retry in ${guess.retryAfter} seconds`,
      );
    const failed = (hint: string) =>
      new SqlError('28P01', `password authentication failed for user "${user}"`, hint);
    let email: string;
    if (JWT.test(password)) {
      try {
        email = (await this.d.verify(password)).email;
      } catch {
        throw failed('the password is an API token of this user (ursa token)');
      }
      if (email.toLowerCase() !== user.trim().toLowerCase())
        throw failed('the token belongs to another user');
    } else {
      if (!(await this.d.passwords.check(database, user.trim(), password)))
        throw failed(
          "the password is an API token of this user (ursa token), or their SQL password for this project (the project's settings in the app)",
        );
      email = user.trim();
    }
    await guess.succeeded();
    try {
      const actor = await this.d.actor({ email }, database);
      await this.d.activity.record(actor.projectId, 'user_action', {
        user: actor.email,
        message: 'connected over the SQL API',
        detail: { action: 'sql_connect' },
      });
      return actor;
    } catch (err) {
      if (
        err instanceof EngineError &&
        ['not_found', 'unauthenticated', 'forbidden'].includes(err.kind)
      )
        throw new SqlError(
          '3D000',
          `database "${database}" does not exist or is not yours: ${err.message}`,
          'the database name is the project id',
        );
      throw err;
    }
  }

  /** Statements of a query text, with their parameters ($1 …) when there is one statement. */
  statements(text: string): { aql: string | null; stmts: Parsed[] } {
    if (AQL_MARK.test(text)) return { aql: text.replace(AQL_MARK, ''), stmts: [] };
    return { aql: null, stmts: parseSql(text) };
  }

  /**
   * Runs every statement of `text` in order; each result goes to `onResult` as it is ready
   * (a client sees the results before a later statement's error, as PostgreSQL does).
   */
  async run(
    a: ProjectActor,
    session: SqlSession,
    text: string,
    params: Param[],
    signal: AbortSignal,
    onResult: (r: SqlResult) => void | Promise<void>,
  ): Promise<void> {
    try {
      const { aql, stmts } = this.statements(text);
      if (aql !== null) {
        await onResult(await this.runAql(a, session, aql, signal));
        return;
      }
      if (!stmts.length) return;
      for (const stmt of stmts)
        await onResult(await this.statement(a, session, stmt, params, signal));
    } catch (err) {
      throw sqlErrorOf(err);
    }
  }

  /** The columns a statement returns (null: none), without running it. */
  async describe(
    a: ProjectActor,
    session: SqlSession,
    text: string,
    params: Param[],
  ): Promise<SqlCell[] | null> {
    try {
      const { aql, stmts } = this.statements(text);
      if (aql !== null)
        return (await this.d.aql.explain(a, aql)).columns.map((c) => ({
          name: c.title,
          dataType: c.dataType,
        }));
      if (stmts.length !== 1) return null;
      const { stmt, text: one } = stmts[0]!;
      const local = localStatement(stmt, { ...session, settings: new Map(session.settings) });
      if (local) return local.columns ?? null;
      // A catalog query reads no data: running it is how its columns are known.
      if (catalogStatement(stmt))
        return (
          (
            await this.catalogQuery(
              a,
              one,
              params.map((p) => ({ ...p, value: null })),
            )
          ).columns ?? null
        );
      const t = await this.translate(a, stmt, params);
      const cols = (await this.d.aql.explain(a, t.aql)).columns;
      return t.names.map((name, i) => ({
        name,
        dataType: t.types[i] ?? cols[i]?.dataType ?? 'string',
      }));
    } catch (err) {
      throw sqlErrorOf(err);
    }
  }

  private async statement(
    a: ProjectActor,
    session: SqlSession,
    { stmt, text }: Parsed,
    params: Param[],
    signal: AbortSignal,
  ): Promise<SqlResult> {
    const local = localStatement(stmt, session);
    if (local) return local;
    if (catalogStatement(stmt)) return this.catalogQuery(a, text, params);
    if (stmt.CopyStmt) return this.copy(a, session, stmt.CopyStmt as Node, params, signal);
    if (!stmt.SelectStmt)
      throw new SqlError('0A000', `${Object.keys(stmt)[0]} is not supported by Ursa's SQL API`);
    const t = await this.translate(a, stmt, params);
    const r = await this.runAql(a, session, t.aql, signal);
    if (t.rowLimit !== undefined && (r.rows?.length ?? 0) > t.rowLimit)
      throw new SqlError(
        '54000',
        `the listing has more than ${t.rowLimit} rows`,
        'add LIMIT, or aggregate with GROUP BY',
      );
    const columns = t.names.map((name, i) => ({
      name,
      dataType: t.types[i] ?? r.columns![i]!.dataType,
    }));
    const rows = r.rows!.map((row) => row.slice(0, columns.length));
    return { command: `SELECT ${rows.length}`, columns, rows };
  }

  /** COPY (SELECT …) TO STDOUT, or COPY table TO STDOUT: a query whose rows stream out. */
  private async copy(
    a: ProjectActor,
    session: SqlSession,
    c: Node,
    params: Param[],
    signal: AbortSignal,
  ): Promise<SqlResult> {
    if (c.is_from)
      throw new SqlError(
        '25006',
        'cannot execute COPY FROM in a read-only transaction',
        'loads go through REST or MCP',
      );
    if (c.filename || c.is_program)
      throw notSupported('COPY to a file or program', 'COPY … TO STDOUT (psql: \\copy)');
    const opt = new Map<string, string | true>();
    for (const o of (c.options ?? []) as Node[]) {
      const d = o.DefElem;
      const v = d.arg?.String?.sval ?? d.arg?.Boolean?.boolval ?? d.arg?.Integer?.ival;
      opt.set(String(d.defname).toLowerCase(), v === undefined ? true : String(v));
    }
    const format = String(opt.get('format') ?? 'text').toLowerCase();
    if (format !== 'text' && format !== 'csv') throw notSupported(`COPY in the ${format} format`);
    const csv = format === 'csv';
    const header = opt.has('header') && !/^(false|off|0)$/i.test(String(opt.get('header')));
    const query: Node = c.query ?? {
      SelectStmt: {
        targetList: [{ ResTarget: { val: { ColumnRef: { fields: [{ A_Star: {} }] } } } }],
        fromClause: [{ RangeVar: c.relation }],
      },
    };
    if (c.attlist) throw notSupported('COPY with a column list', 'COPY (SELECT …) TO STDOUT');
    const r = await this.statement(a, session, { stmt: query, text: '' }, params, signal);
    return {
      ...r,
      command: `COPY ${r.rows?.length ?? 0}`,
      copy: {
        csv,
        header,
        delimiter: String(opt.get('delimiter') ?? (csv ? ',' : '\t')),
        null: String(opt.get('null') ?? (csv ? '' : '\\N')),
      },
    };
  }

  /** pg_catalog and information_schema, over the member's view of the model. */
  private async catalogQuery(a: ProjectActor, text: string, params: Param[]): Promise<SqlResult> {
    const schema = sqlSchema(await this.d.catalog.schema(a));
    return this.catalogDb.query(a.projectId, schema, text, params);
  }

  private async translate(a: ProjectActor, stmt: Stmt, params: Param[]) {
    const s = stmt.SelectStmt as Record<string, unknown> | undefined;
    if (!s)
      throw new SqlError('0A000', `${Object.keys(stmt)[0]} is not supported by Ursa's SQL API`);
    const schema = sqlSchema(await this.d.catalog.schema(a));
    return translateSelect(schema, s, params);
  }

  /** AQL as a query job of the member; cancelled when the client goes or the time is up. */
  private async runAql(
    a: ProjectActor,
    session: SqlSession,
    aql: string,
    signal: AbortSignal,
  ): Promise<SqlResult> {
    const own = Number(session.settings.get('statement_timeout') ?? '0');
    const timeoutMs =
      own > 0 ? Math.min(own, this.d.statementTimeoutMs) : this.d.statementTimeoutMs;
    let jobId: string | undefined;
    const { job, result } = await this.d.aql.executeAndWait(a, aql, timeoutMs, signal, (j) => {
      jobId = j.id;
    });
    if (!FINAL_STATUSES.includes(job.status)) {
      if (jobId) await this.d.jobs.cancel(a, jobId).catch(() => undefined);
      if (signal.aborted) throw new SqlError('57014', 'canceling statement due to user request');
      throw new SqlError('57014', 'canceling statement due to statement timeout');
    }
    if (job.status !== 'OK' || !result) {
      if (job.status === 'CANCELLED')
        throw new SqlError('57014', 'canceling statement due to user request');
      throw new SqlError('XX000', job.message ?? 'the query failed');
    }
    const columns = result.columns.map((c) => ({ name: c.title, dataType: c.dataType }));
    // Ursa's cells are text with '' for null.
    const rows = result.rows.map((r) => r.map((c) => (c === '' ? null : c)));
    return { command: `SELECT ${rows.length}`, columns, rows };
  }
}
