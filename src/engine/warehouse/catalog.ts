// A warehouse schema's catalog as Ursa's structure guess: the tables and views a project may
// map, and for one of them a prescription (columns typed from PostgreSQL's types, the primary
// key, single-column foreign keys onto another table's primary key as references, sample
// rows), titled in words, a naming column as a label of the key, and the database's own
// comments (COMMENT ON) as descriptions. Nothing is copied; the prescription only names the
// columns that are read in place.
import { slugId } from '../data/guess.js';
import { columnTitle, isNamingColumn } from '../data/guess/titles.js';
import { CSV_FORMAT, SAMPLE_ROWS, type Column, type Prescription } from '../data/prescription.js';
import { WarehouseError, type Server } from './connection.js';

export interface WarehouseTable {
  /** `schema.table`, as data/guesstable/{schema.table} takes it. */
  ident: string;
  schema: string;
  name: string;
  kind: 'table' | 'view';
  /** Whether the role may read it (SELECT). */
  readable: boolean;
  /** The dataset name it is mapped to by default. */
  dataset: string;
  /** Its COMMENT ON TABLE text, or null. */
  description: string | null;
}

/** PostgreSQL type OIDs read as AQL types; other types are left out of the guess. */
const TYPES = new Map<number, Column['dataType']>([
  [20, 'integer'],
  [21, 'integer'],
  [23, 'integer'],
  [700, 'number'],
  [701, 'number'],
  [1700, 'number'],
  [16, 'boolean'],
  [1082, 'date'],
  [1114, 'datetime'],
  [1184, 'datetime'],
  [25, 'string'],
  [1043, 'string'],
  [1042, 'string'],
  [19, 'string'],
]);

const ID_WORDS = /(^|_)(id|code|key|no)$/;

/** A dataset name for a table: lowercase a-z, 0-9 and _. */
export const datasetNameOf = (table: string) => slugId(table, 'table');

export async function listTables(server: Server, schema: string): Promise<WarehouseTable[]> {
  const r = await server.query(
    `SELECT c.relname, c.relkind IN ('v', 'm'), has_table_privilege(c.oid, 'SELECT'),
            obj_description(c.oid, 'pg_class')
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1::text AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
      ORDER BY c.relname`,
    [schema],
  );
  return r.rows.map(([name, view, readable, comment]) => ({
    ident: `${schema}.${String(name)}`,
    schema,
    name: String(name),
    kind: view ? 'view' : 'table',
    readable: Boolean(readable),
    dataset: datasetNameOf(String(name)),
    description: comment ? String(comment) : null,
  }));
}

interface CatalogColumn {
  name: string;
  oid: number;
  type: string;
  comment: string | null;
}

/** The relation's oid, or null when the schema holds no such table or view. */
async function relationOid(server: Server, schema: string, table: string): Promise<number | null> {
  const r = await server.query(
    `SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1::text AND c.relname = $2::text AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
    [schema, table],
  );
  return r.rows.length ? Number(r.rows[0]![0]) : null;
}

/** PostgreSQL's `statement_timeout` cancel, said as which read passed which limit. */
export const sampleTimedOut =
  (server: Server, what: string) =>
  (err: unknown): never => {
    if (err instanceof WarehouseError && err.sqlState === '57014')
      throw new WarehouseError(
        `reading ${what} took longer than its limit of ${server.sampleTimeoutMs / 1000} s (URSA_WAREHOUSE_SAMPLE_TIMEOUT_SECONDS)`,
        'query',
        err.sqlState,
      );
    throw err;
  };

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const relationSql = (schema: string, table: string) =>
  `${quoteIdent(schema)}.${quoteIdent(table)}`;

export interface TableGuess {
  ident: string;
  prescription: Prescription;
  /** Columns of types AQL does not read (arrays, json, uuid…): left out. */
  skipped: { name: string; type: string }[];
}

/**
 * The structure guess of one table or view; null when it does not exist. `datasets` maps
 * `schema.table` of tables already mapped (or mapped together) to their dataset names, so a
 * foreign key onto one becomes a reference. `withSample: false` reads the catalog only: no row
 * of the table (mapping needs none, and a caller with a row-level filter may see none).
 */
export async function guessTable(
  server: Server,
  schema: string,
  table: string,
  datasets: ReadonlyMap<string, string> = new Map(),
  withSample = true,
): Promise<TableGuess | null> {
  const oid = await relationOid(server, schema, table);
  if (oid === null) return null;
  const cols = (
    await server.query(
      `SELECT a.attname, a.atttypid, format_type(a.atttypid, a.atttypmod),
              col_description(a.attrelid, a.attnum)
         FROM pg_attribute a
        WHERE a.attrelid = $1::bigint::oid AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [oid],
    )
  ).rows.map(([name, typ, type, comment]): CatalogColumn => ({
    name: String(name),
    oid: Number(typ),
    type: String(type),
    comment: comment ? String(comment) : null,
  }));
  const tableComment = (
    await server.query(`SELECT obj_description($1::bigint::oid, 'pg_class')`, [oid])
  ).rows[0]?.[0];
  const pk = (
    await server.query(
      `SELECT a.attname FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE i.indrelid = $1::bigint::oid AND i.indisprimary AND i.indnatts = 1`,
      [oid],
    )
  ).rows.map((r) => String(r[0]))[0];
  // Single-column foreign keys onto the referenced table's primary key: AQL joins on it.
  const fks = (
    await server.query(
      `SELECT a.attname, rn.nspname, rc.relname
         FROM pg_constraint con
         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1]
         JOIN pg_class rc ON rc.oid = con.confrelid
         JOIN pg_namespace rn ON rn.oid = rc.relnamespace
         JOIN pg_index ri ON ri.indrelid = con.confrelid AND ri.indisprimary AND ri.indnatts = 1
                         AND ri.indkey[0] = con.confkey[1]
        WHERE con.conrelid = $1::bigint::oid AND con.contype = 'f'
          AND array_length(con.conkey, 1) = 1`,
      [oid],
    )
  ).rows.map(([column, s, t]) => ({
    column: String(column),
    target: `${String(s)}.${String(t)}`,
    table: String(t),
  }));

  const used = new Set<string>();
  const skipped: TableGuess['skipped'] = [];
  const kept: { c: CatalogColumn; column: Column }[] = [];
  for (const c of cols) {
    const dataType = TYPES.get(c.oid);
    if (!dataType) {
      skipped.push({ name: c.name, type: c.type });
      continue;
    }
    let id = slugId(c.name, `column_${kept.length + 1}`);
    for (let n = 2; used.has(id); n++) id = `${id.slice(0, 60)}_${n}`;
    used.add(id);
    const fk = fks.find((f) => f.column === c.name);
    const keyLike = c.name === pk || fk !== undefined || ID_WORDS.test(id);
    const objectType = (dataType === 'integer' || dataType === 'number') && !keyLike ? 'F' : 'A';
    kept.push({
      c,
      column: {
        id,
        originalheader: c.name,
        objectType,
        dataType,
        label: columnTitle(c.name, table),
        ...(c.comment ? { description: c.comment } : {}),
        ...(fk ? { reference: datasets.get(fk.target) ?? datasetNameOf(fk.table) } : {}),
      },
    });
  }
  const pkColumn = kept.find((k) => k.c.name === pk);
  // A text column naming the rows (`name`, `customer_name`) labels the key: two customers of
  // one name stay two when grouped by it.
  if (pkColumn)
    for (const k of kept)
      if (
        k !== pkColumn &&
        k.column.dataType === 'string' &&
        k.column.objectType === 'A' &&
        !k.column.reference &&
        isNamingColumn(k.c.name, table)
      ) {
        k.column.objectType = 'L';
        k.column.labelOf = pkColumn.column.id;
      }
  // Nothing selected: no sample read.
  const select = withSample
    ? kept.map((k) => `CAST(${quoteIdent(k.c.name)} AS TEXT)`).join(', ')
    : '';
  // A view may compute for long; the request waiting on it has a short limit of its own.
  const sample = select
    ? (
        await server
          .query(
            `SELECT ${select} FROM ${relationSql(schema, table)} LIMIT ${SAMPLE_ROWS}`,
            [],
            undefined,
            server.sampleTimeoutMs,
          )
          .catch(sampleTimedOut(server, `the sample rows of ${schema}.${table}`))
      ).rows.map((r) => r.map((v) => (v === null ? '' : String(v))))
    : [];
  return {
    ident: `${schema}.${table}`,
    prescription: {
      clustername: datasets.get(`${schema}.${table}`) ?? datasetNameOf(table),
      primarykey: pkColumn?.column.id ?? '',
      ...(tableComment ? { description: String(tableComment) } : {}),
      columns: kept.map((k) => k.column),
      data: sample,
      format: { ...CSV_FORMAT },
    },
    skipped,
  };
}
