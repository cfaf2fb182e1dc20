// PostgreSQL statements of a load into a warehouse project (load.ts). Identifiers are the bound
// schema, a dataset's table (its validated name) and column ids, each quoted by the dialect;
// values are bound parameters, except the table comment (COMMENT takes no parameter), which
// is a literal of checked characters.
import { POSTGRES } from '../aql/dialect/postgres.js';
import { invalid } from '../errors.js';
import type { DataType, Prescription } from '../data/prescription.js';
import { randomId } from '../ids.js';

const q = (name: string) => POSTGRES.quote(name);

/** PostgreSQL's type for each prescription type: the values an embedded load keeps. */
export const PG_TYPES: Record<DataType, string> = {
  string: 'text',
  integer: 'bigint',
  number: 'double precision',
  date: 'date',
  // An instant (loads read datetimes as UTC), printed as UTC wall time (connection.ts).
  datetime: 'timestamptz',
  boolean: 'boolean',
};

/** Names PostgreSQL keeps whole: at most 63 bytes, and ours are plain lowercase words. */
const TABLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** The table a dataset is loaded into: its own name, in the bound schema. */
export function tableOf(dataset: string): string {
  if (!TABLE_NAME.test(dataset))
    throw invalid(`dataset name "${dataset}" cannot name a warehouse table`, { dataset });
  return dataset;
}

/** A table a load fills before it replaces (or is merged into) the dataset's table. */
export const stagingName = () => `ursa_load_${randomId(12)}`;

export const relation = (schema: string, table: string) => `${q(schema)}.${q(table)}`;

const columnList = (p: Prescription) => p.columns.map((c) => q(c.id)).join(', ');

export function createTableSql(schema: string, table: string, p: Prescription): string {
  const cols = p.columns.map((c) => `${q(c.id)} ${PG_TYPES[c.dataType]}`);
  return `CREATE TABLE ${relation(schema, table)} (${cols.join(', ')})`;
}

/** COPY of the CSV DuckDB writes: NULL unquoted and empty, an empty string quoted. */
export function copySql(schema: string, table: string, p: Prescription): string {
  return `COPY ${relation(schema, table)} (${columnList(p)}) FROM STDIN (FORMAT csv)`;
}

export function primaryKeySql(schema: string, table: string, p: Prescription): string | null {
  return p.primarykey
    ? `ALTER TABLE ${relation(schema, table)} ADD PRIMARY KEY (${q(p.primarykey)})`
    : null;
}

/** Full load: the filled table takes the dataset table's place. */
export function replaceSql(
  schema: string,
  staged: string,
  table: string,
  existed: boolean,
): string[] {
  return [
    ...(existed ? [`DROP TABLE ${relation(schema, table)}`] : []),
    `ALTER TABLE ${relation(schema, staged)} RENAME TO ${q(table)}`,
  ];
}

/**
 * Full load of a table other objects depend on (a view, another table's foreign key): the
 * table stays and its rows become the staged ones, so those objects keep working. With a key,
 * rows whose key is gone are deleted (the foreign keys onto it decide what that may do) and
 * the others updated or added; without one, every row is replaced.
 */
export function refillSql(
  schema: string,
  staged: string,
  table: string,
  p: Prescription,
): string[] {
  const t = relation(schema, table);
  const s = relation(schema, staged);
  const cols = columnList(p);
  if (!p.primarykey)
    return [
      `DELETE FROM ${t}`,
      `INSERT INTO ${t} (${cols}) SELECT ${cols} FROM ${s}`,
      `DROP TABLE ${s}`,
    ];
  const pk = q(p.primarykey);
  const others = p.columns.filter((c) => c.id !== p.primarykey).map((c) => q(c.id));
  const onConflict = others.length
    ? `DO UPDATE SET ${others.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`
    : 'DO NOTHING';
  return [
    `DELETE FROM ${t} WHERE NOT EXISTS (SELECT 1 FROM ${s} WHERE ${s}.${pk} = ${t}.${pk})`,
    `INSERT INTO ${t} (${cols}) SELECT ${cols} FROM ${s} ON CONFLICT (${pk}) ${onConflict}`,
    `DROP TABLE ${s}`,
  ];
}

/**
 * Objects of others that depend on the table, as `view x.y` or `foreign key c of x.y`: a full
 * load refills such a table in place instead of replacing it ($1: the quoted relation).
 */
export const DEPENDENTS_SQL = `SELECT DISTINCT 'view ' || v.oid::regclass::text
  FROM pg_depend d JOIN pg_rewrite w ON w.oid = d.objid JOIN pg_class v ON v.oid = w.ev_class
 WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid = to_regclass($1::text)
   AND v.oid <> d.refobjid
UNION
SELECT 'foreign key ' || quote_ident(conname) || ' of ' || conrelid::regclass::text
  FROM pg_constraint
 WHERE contype = 'f' AND confrelid = to_regclass($1::text) AND conrelid <> confrelid
 ORDER BY 1`;

/**
 * The table's columns in order as `name type`, then its primary key's columns, each a JSON
 * array in text (query connections read every value as text) — $1 as above.
 */
export const SHAPE_SQL = `SELECT
  (SELECT coalesce(json_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                   ORDER BY a.attnum), '[]')::text
     FROM pg_attribute a
    WHERE a.attrelid = to_regclass($1::text) AND a.attnum > 0 AND NOT a.attisdropped),
  (SELECT coalesce(json_agg(a.attname::text ORDER BY a.attnum), '[]')::text
     FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
    WHERE i.indrelid = to_regclass($1::text) AND i.indisprimary)`;

/** What format_type() prints for each of PG_TYPES. */
const FORMATTED: Record<string, string> = {
  text: 'text',
  bigint: 'bigint',
  'double precision': 'double precision',
  date: 'date',
  timestamptz: 'timestamp with time zone',
  boolean: 'boolean',
};

/** The shape SHAPE_SQL would read for a table created by createTableSql and primaryKeySql. */
export function shapeOf(p: Prescription): { columns: string[]; key: string[] } {
  return {
    columns: p.columns.map((c) => `${c.id} ${FORMATTED[PG_TYPES[c.dataType]]}`),
    key: p.primarykey ? [p.primarykey] : [],
  };
}

/** Incremental load: rows with a staged key are replaced, new keys added (as embedded loads). */
export function upsertSql(
  schema: string,
  staged: string,
  table: string,
  p: Prescription,
): string[] {
  const pk = q(p.primarykey);
  const t = relation(schema, table);
  const s = relation(schema, staged);
  const cols = columnList(p);
  return [
    `DELETE FROM ${t} USING ${s} WHERE ${t}.${pk} = ${s}.${pk}`,
    `INSERT INTO ${t} (${cols}) SELECT ${cols} FROM ${s}`,
    `DROP TABLE ${s}`,
  ];
}

/** What the comment of a table Ursa created holds: only such a table is ever replaced. */
export const marker = (projectId: string, dataset: string) => `[ursa:${projectId}/${dataset}]`;

const COMMENT_TEXT = /^[\w .,:/()[\]"-]+$/;

export function commentSql(
  schema: string,
  table: string,
  projectId: string,
  dataset: string,
): string {
  const text = `Ursa dataset "${dataset}" of project "${projectId}": each full load replaces this table ${marker(projectId, dataset)}`;
  // Project ids and dataset names are plain words; checked anyway, as this is a literal.
  if (!COMMENT_TEXT.test(text)) throw new Error(`unexpected characters in a table comment`);
  return `COMMENT ON TABLE ${relation(schema, table)} IS '${text.replace(/'/g, "''")}'`;
}

/** The relation of that name in the schema, if any: its kind and comment. */
export const RELATION_SQL = `SELECT c.relkind::text, coalesce(obj_description(c.oid, 'pg_class'), '')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1::text AND c.relname = $2::text`;

/** Whether the schema exists, and whether the role may use it and create tables in it. */
export const PRIVILEGES_SQL = `SELECT n.nspname IS NOT NULL,
       coalesce(has_schema_privilege(n.oid, 'USAGE'), false),
       coalesce(has_schema_privilege(n.oid, 'CREATE'), false),
       current_user::text
  FROM (SELECT 1) one LEFT JOIN pg_namespace n ON n.nspname = $1::text`;

/** The grants a replaced table had, to give its successor (GRANT takes no parameters). */
export const GRANTS_SQL = `SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END,
       a.privilege_type, a.is_grantable
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace,
       aclexplode(c.relacl) a LEFT JOIN pg_roles r ON r.oid = a.grantee
 WHERE n.nspname = $1::text AND c.relname = $2::text AND a.grantee <> c.relowner`;

const PRIVILEGES = new Set([
  'SELECT',
  'INSERT',
  'UPDATE',
  'DELETE',
  'TRUNCATE',
  'REFERENCES',
  'TRIGGER',
]);

/** GRANT of one privilege PostgreSQL listed (grantee already quoted by quote_ident). */
export function grantSql(
  schema: string,
  table: string,
  grantee: string,
  privilege: string,
  grantable: boolean,
): string | null {
  if (!PRIVILEGES.has(privilege)) return null;
  return `GRANT ${privilege} ON ${relation(schema, table)} TO ${grantee}${grantable ? ' WITH GRANT OPTION' : ''}`;
}
