// SQL for loading a CSV file into a dataset table. Identifiers come from validated
// prescriptions; file paths and options are bound or escaped literals.
import { datasetTable, fileLit, ident, lit } from './databases.js';
import type { Column, DataType, Prescription } from './prescription.js';

const DUCK_TYPES: Record<DataType, string> = {
  string: 'VARCHAR',
  // Read as DOUBLE and checked below: a BIGINT read would round "4.5" to 5 without a word.
  integer: 'DOUBLE',
  number: 'DOUBLE',
  date: 'DATE',
  // Read with its zone (a value without one is UTC: loads run with TimeZone UTC), stored as
  // the UTC TIMESTAMP below; a plain TIMESTAMP read would drop "+02:00" silently.
  datetime: 'TIMESTAMPTZ',
  // Read as text and mapped below: DuckDB's cast knows true/false/t/f/1/0 only.
  boolean: 'VARCHAR',
};

export const duckType = (t: DataType): string =>
  t === 'boolean'
    ? 'BOOLEAN'
    : t === 'datetime'
      ? 'TIMESTAMP'
      : t === 'integer'
        ? 'BIGINT'
        : DUCK_TYPES[t];

export { lit };

export const stagingTable = (cluster: string) => ident(`ds_${cluster}__staging`);
export const rejectsTable = (cluster: string) => `rejects_${cluster}`;

/** The date formats a prescription uses; read_csv takes one per file. */
export function dateFormats(p: Prescription): { date?: string; timestamp?: string } {
  const pick = (type: DataType) => {
    const fmts = new Set(
      p.columns.filter((c) => c.dataType === type && c.dateFormat).map((c) => c.dateFormat!),
    );
    return fmts.size
      ? [...fmts][0]
      : p.format.dateFormat && type === 'date'
        ? p.format.dateFormat
        : undefined;
  };
  return { date: pick('date'), timestamp: pick('datetime') };
}

/** The strptime format a date or datetime column's values have (undefined: ISO). */
function formatOf(p: Prescription, c: Column): string | undefined {
  return c.dateFormat ?? (c.dataType === 'date' ? p.format.dateFormat : undefined);
}

/**
 * Whether read_csv types the column itself: anything but a date/datetime column whose format
 * differs from the one read_csv is given for the file. Those are read as text and converted
 * in the staging SELECT (a bad value then fails the read as a whole, without line numbers).
 */
function readTyped(p: Prescription, c: Column): boolean {
  if (c.dataType !== 'date' && c.dataType !== 'datetime') return true;
  const fmts = dateFormats(p);
  return formatOf(p, c) === (c.dataType === 'date' ? fmts.date : fmts.timestamp);
}

export function readCsvSql(p: Prescription, file: string): string {
  const cols = p.columns
    .map((c) => `${lit(c.id)}: ${lit(readTyped(p, c) ? DUCK_TYPES[c.dataType] : 'VARCHAR')}`)
    .join(', ');
  const f = p.format;
  const fmts = dateFormats(p);
  const opts = [
    `header = ${f.header ? 'true' : 'false'}`,
    `delim = ${lit(f.delimiter)}`,
    `quote = ${lit(f.quote)}`,
    `escape = ${lit(f.escape || f.quote)}`,
    `columns = {${cols}}`,
    "nullstr = ''",
    'auto_detect = false',
    'store_rejects = true',
    `rejects_table = ${lit(rejectsTable(p.clustername))}`,
    `rejects_scan = ${lit(`${rejectsTable(p.clustername)}_scan`)}`,
    ...(fmts.date ? [`dateformat = ${lit(fmts.date)}`] : []),
    ...(fmts.timestamp ? [`timestampformat = ${lit(fmts.timestamp)}`] : []),
  ];
  return `read_csv(${fileLit(file)}, ${opts.join(', ')})`;
}

const TRUE = "('true','t','yes','y','1')";
const FALSE = "('false','f','no','n','0')";

function selectExpr(p: Prescription, c: Column): string {
  const col = ident(c.id);
  if (!readTyped(p, c)) {
    const fmt = formatOf(p, c);
    const parsed = fmt
      ? `strptime(${col}, ${lit(fmt)})`
      : `CAST(${col} AS ${DUCK_TYPES[c.dataType]})`;
    return `CAST(${parsed} AS ${duckType(c.dataType)}) AS ${col}`;
  }
  // Its UTC wall time from the instant's microseconds: the same as CAST(… AS TIMESTAMP) under
  // TimeZone UTC, without that cast's per-value calendar conversion (~0.2 s per million rows).
  // Infinities have no microseconds and keep the cast.
  if (c.dataType === 'datetime')
    return `CASE WHEN isfinite(${col}) THEN make_timestamp(epoch_us(${col})) ELSE CAST(${col} AS TIMESTAMP) END AS ${col}`;
  if (c.dataType === 'integer') return integerExpr(c);
  if (c.dataType !== 'boolean') return col;
  return `CASE WHEN lower(trim(${col})) IN ${TRUE} THEN true WHEN lower(trim(${col})) IN ${FALSE} THEN false END AS ${col}`;
}

/** Largest integer a DOUBLE holds exactly: beyond it "whole" cannot be checked. */
const MAX_EXACT = 9007199254740991;

/**
 * An integer column's value, or a failed load naming the value: a fraction is a type
 * violation, not something to round. error() aborts the statement in the same single pass.
 */
function integerExpr(c: Column): string {
  const col = ident(c.id);
  const why = `' is not a whole number within ±${MAX_EXACT} (column "${c.id}" is integer; use number or string)'`;
  return `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} <> trunc(${col}) OR abs(${col}) > ${MAX_EXACT} THEN error(concat('value ', ${col}::VARCHAR, ${why})) ELSE CAST(${col} AS BIGINT) END AS ${col}`;
}

/** Creates the staging table from the file, with every column in its final type. */
export function stageSql(p: Prescription, file: string): string {
  return `CREATE OR REPLACE TABLE ${stagingTable(p.clustername)} AS SELECT ${p.columns.map((c) => selectExpr(p, c)).join(', ')} FROM ${readCsvSql(p, file)}`;
}

/** Rows whose boolean text is neither true-ish nor false-ish (read as text, so not rejected). */
export function badBooleansSql(p: Prescription, file: string): string | null {
  const bools = p.columns.filter((c) => c.dataType === 'boolean');
  if (!bools.length) return null;
  const checks = bools.map((c) => {
    const col = ident(c.id);
    return `SELECT ${lit(c.id)} AS column_name, ${col} AS value FROM ${readCsvSql(p, file)} WHERE ${col} IS NOT NULL AND lower(trim(${col})) NOT IN ${TRUE} AND lower(trim(${col})) NOT IN ${FALSE}`;
  });
  return `${checks.join(' UNION ALL ')} LIMIT 10`;
}

export function duplicateKeysSql(p: Prescription): string {
  const pk = ident(p.primarykey);
  return `SELECT ${pk}::VARCHAR AS key, count(*) AS n FROM ${stagingTable(p.clustername)} GROUP BY ${pk} HAVING count(*) > 1 ORDER BY n DESC LIMIT 10`;
}

export function nullKeysSql(p: Prescription): string {
  return `SELECT count(*) AS n FROM ${stagingTable(p.clustername)} WHERE ${ident(p.primarykey)} IS NULL`;
}

/** Full replace: the staging table becomes the dataset. */
export function replaceSql(p: Prescription): string[] {
  return [
    `DROP TABLE IF EXISTS ${datasetTable(p.clustername)}`,
    `ALTER TABLE ${stagingTable(p.clustername)} RENAME TO ${ident(`ds_${p.clustername}`)}`,
  ];
}

/** Incremental upsert by primary key. */
export function upsertSql(p: Prescription): string[] {
  const pk = ident(p.primarykey);
  const t = datasetTable(p.clustername);
  const s = stagingTable(p.clustername);
  const cols = p.columns.map((c) => ident(c.id)).join(', ');
  return [
    `DELETE FROM ${t} WHERE ${pk} IN (SELECT ${pk} FROM ${s})`,
    `INSERT INTO ${t} (${cols}) SELECT ${cols} FROM ${s}`,
    `DROP TABLE ${s}`,
  ];
}
