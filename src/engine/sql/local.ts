// Statements a PostgreSQL client sends that need no data: session settings (SET, SHOW),
// transactions (Ursa is read-only: BEGIN/COMMIT are accepted and change nothing), and
// SELECTs of constants and session functions (`SELECT 1`, `version()`) that drivers and BI
// tools run when they connect.
import { notSupported, SqlError } from './errors.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What PostgreSQL version clients are told (their features are chosen by it). */
export const SERVER_VERSION = '15.0';

export interface SqlSession {
  user: string;
  database: string;
  /** Settings by lower-case name (SET changes them, SHOW reads them). */
  settings: Map<string, string>;
  backendPid: number;
}

export interface SqlCell {
  name: string;
  dataType: string;
}

export interface LocalResult {
  command: string;
  columns?: SqlCell[];
  rows?: (string | null)[][];
  /** COPY … TO STDOUT: the rows go out as copy data in this format. */
  copy?: CopyFormat;
}

export interface CopyFormat {
  csv: boolean;
  header: boolean;
  delimiter: string;
  null: string;
}

export function initialSettings(app = ''): Map<string, string> {
  return new Map([
    ['server_version', SERVER_VERSION],
    ['server_version_num', '150000'],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['datestyle', 'ISO, MDY'],
    ['intervalstyle', 'postgres'],
    ['timezone', 'UTC'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['is_superuser', 'off'],
    ['application_name', app],
    ['search_path', '"$user", public'],
    ['transaction_isolation', 'read committed'],
    ['default_transaction_isolation', 'read committed'],
    ['transaction_read_only', 'on'],
    ['default_transaction_read_only', 'on'],
    ['statement_timeout', '0'],
    ['extra_float_digits', '1'],
    ['max_identifier_length', '63'],
  ]);
}

const TRANSACTION: Record<string, string> = {
  TRANS_STMT_BEGIN: 'BEGIN',
  TRANS_STMT_START: 'START TRANSACTION',
  TRANS_STMT_COMMIT: 'COMMIT',
  TRANS_STMT_ROLLBACK: 'ROLLBACK',
  TRANS_STMT_SAVEPOINT: 'SAVEPOINT',
  TRANS_STMT_RELEASE: 'RELEASE',
  TRANS_STMT_ROLLBACK_TO: 'ROLLBACK',
};

const constOf = (n: Node | undefined): string | null => {
  const k = n?.A_Const;
  if (!k || k.isnull) return null;
  if (k.sval) return k.sval.sval ?? '';
  if ('ival' in k) return String(k.ival?.ival ?? 0);
  if (k.fval) return String(k.fval.fval);
  if (k.boolval) return k.boolval.boolval ? 'on' : 'off';
  return null;
};

/** A statement answered from the session alone, or undefined when it needs the engine. */
export function localStatement(stmt: Node, session: SqlSession): LocalResult | undefined {
  if (stmt.TransactionStmt) {
    const kind = stmt.TransactionStmt.kind as string;
    return { command: TRANSACTION[kind] ?? 'COMMIT' };
  }
  if (stmt.VariableSetStmt) {
    const v = stmt.VariableSetStmt;
    if (v.kind === 'VAR_RESET_ALL') {
      session.settings = initialSettings(session.settings.get('application_name'));
      return { command: 'RESET' };
    }
    const name = String(v.name ?? '').toLowerCase();
    if (v.kind === 'VAR_RESET') {
      const init = initialSettings().get(name);
      if (init !== undefined) session.settings.set(name, init);
      return { command: 'RESET' };
    }
    if (v.kind === 'VAR_SET_VALUE' && name) {
      const value = ((v.args ?? []) as Node[]).map((a) => constOf(a) ?? '').join(', ');
      if (name === 'transaction_read_only' && /^(off|false|0)$/i.test(value))
        throw new SqlError('25006', 'the SQL API is read-only');
      session.settings.set(name, value);
    }
    return { command: 'SET' };
  }
  if (stmt.VariableShowStmt) {
    const name = String(stmt.VariableShowStmt.name).toLowerCase();
    if (name === 'all')
      return {
        command: 'SHOW',
        columns: [
          { name: 'name', dataType: 'string' },
          { name: 'setting', dataType: 'string' },
          { name: 'description', dataType: 'string' },
        ],
        rows: [...session.settings].map(([k, v]) => [k, v, '']),
      };
    const value = session.settings.get(name);
    if (value === undefined)
      throw new SqlError('42704', `unrecognized configuration parameter "${name}"`);
    return { command: 'SHOW', columns: [{ name, dataType: 'string' }], rows: [[value]] };
  }
  if (stmt.DiscardStmt) return { command: 'DISCARD ALL' };
  if (stmt.DeallocateStmt) return { command: 'DEALLOCATE' };
  const write = Object.keys(stmt).find((k) =>
    /^(Insert|Update|Delete|Merge|Create|Alter|Drop|Truncate|Grant|Vacuum|Comment)/.test(k),
  );
  if (write)
    throw new SqlError(
      '25006',
      `cannot execute ${write.replace(/Stmt$/, '').toUpperCase()} in a read-only transaction`,
      'the SQL API reads the model; loads and model changes go through REST or MCP',
    );
  const s = stmt.SelectStmt;
  if (s && !s.fromClause && !s.op?.startsWith?.('SETOP_U') && s.targetList) {
    return constantSelect(s, session);
  }
  return undefined;
}

/** `SELECT 1`, `SELECT version(), current_schema()`: values from the session. */
function constantSelect(s: Node, session: SqlSession): LocalResult {
  const columns: SqlCell[] = [];
  const row: (string | null)[] = [];
  for (const rt of s.targetList as Node[]) {
    const r = rt.ResTarget;
    const { value, dataType, name } = constantValue(r.val, session);
    columns.push({ name: r.name ?? name, dataType });
    row.push(value);
  }
  if (s.whereClause) throw notSupported('WHERE without FROM');
  return { command: 'SELECT 1', columns, rows: [row] };
}

function constantValue(
  n: Node,
  session: SqlSession,
): { value: string | null; dataType: string; name: string } {
  const k = n.A_Const;
  if (k) {
    if (k.isnull) return { value: null, dataType: 'string', name: '?column?' };
    if ('ival' in k)
      return { value: String(k.ival?.ival ?? 0), dataType: 'integer', name: '?column?' };
    if (k.fval) return { value: String(k.fval.fval), dataType: 'number', name: '?column?' };
    if (k.boolval)
      return { value: k.boolval.boolval ? 't' : 'f', dataType: 'boolean', name: 'bool' };
    return { value: k.sval?.sval ?? '', dataType: 'string', name: '?column?' };
  }
  if (n.TypeCast) {
    const inner = constantValue(n.TypeCast.arg, session);
    const type = (n.TypeCast.typeName.names as Node[]).at(-1)?.String?.sval as string;
    const dataType = /^int|^bigint/.test(type)
      ? 'integer'
      : /^(numeric|float)/.test(type)
        ? 'number'
        : type === 'bool'
          ? 'boolean'
          : 'string';
    return { ...inner, dataType, name: inner.name === '?column?' ? type : inner.name };
  }
  if (n.SQLValueFunction) {
    const op = n.SQLValueFunction.op as string;
    const v: Record<string, [string, string]> = {
      SVFOP_CURRENT_USER: [session.user, 'current_user'],
      SVFOP_SESSION_USER: [session.user, 'session_user'],
      SVFOP_USER: [session.user, 'current_user'],
      SVFOP_CURRENT_CATALOG: [session.database, 'current_catalog'],
      SVFOP_CURRENT_SCHEMA: ['public', 'current_schema'],
    };
    const hit = v[op];
    if (hit) return { value: hit[0], dataType: 'string', name: hit[1] };
    if (op === 'SVFOP_CURRENT_DATE')
      return {
        value: new Date().toISOString().slice(0, 10),
        dataType: 'date',
        name: 'current_date',
      };
    if (op.startsWith('SVFOP_CURRENT_TIMESTAMP') || op.startsWith('SVFOP_LOCALTIMESTAMP'))
      return {
        value: new Date().toISOString().replace('T', ' ').replace('Z', ''),
        dataType: 'datetime',
        name: 'current_timestamp',
      };
  }
  if (n.FuncCall) {
    const name = (n.FuncCall.funcname as Node[]).at(-1)?.String?.sval?.toLowerCase() as string;
    const args = (n.FuncCall.args ?? []) as Node[];
    switch (name) {
      case 'version':
        return {
          value: `PostgreSQL ${SERVER_VERSION} (Ursa SQL API: the semantic model over the PostgreSQL protocol)`,
          dataType: 'string',
          name,
        };
      case 'current_schema':
        return { value: 'public', dataType: 'string', name };
      case 'current_database':
        return { value: session.database, dataType: 'string', name };
      case 'current_user':
      case 'session_user':
        return { value: session.user, dataType: 'string', name };
      case 'pg_backend_pid':
        return { value: String(session.backendPid), dataType: 'integer', name };
      case 'current_setting': {
        const key = String(constantValue(args[0]!, session).value ?? '').toLowerCase();
        const value = session.settings.get(key);
        if (value === undefined)
          throw new SqlError('42704', `unrecognized configuration parameter "${key}"`);
        return { value, dataType: 'string', name };
      }
      case 'now':
        return {
          value: new Date().toISOString().replace('T', ' ').replace('Z', ''),
          dataType: 'datetime',
          name,
        };
    }
    throw notSupported(`the function ${name}() without FROM`);
  }
  throw notSupported(`${Object.keys(n)[0]} without FROM`);
}
