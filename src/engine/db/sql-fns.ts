// SQL the two metadata databases spell differently, for the few raw fragments engine code
// needs. Everything else is drizzle's query builder, which each dialect renders itself. Each
// store gives its own set (`sqlOf(db)`); engine code never asks which one it got.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

export interface SqlFns {
  /** The text of `key` in the JSON document `col` (null when missing). */
  jsonText(col: SQLWrapper, key: string): SQL<string | null>;
  /** The number at `key` in the JSON document `col` (null when missing). */
  jsonNumber(col: SQLWrapper, key: string): SQL<number | null>;
  /** Whether the JSON array `col` holds the string `value`. */
  jsonArrayHas(col: SQLWrapper, value: string): SQL<boolean>;
  /** `col` is one of `values`, sent as ONE parameter (lists can exceed a statement's limit). */
  inList(col: SQLWrapper, values: string[]): SQL<boolean>;
}

/** count(*) as a number on both (PostgreSQL's is a bigint, which pg reads as text). */
export const countAll = (): SQL<number> => sql<number>`count(*)`.mapWith(Number);

function jsonKey(key: string): string {
  if (!/^\w+$/.test(key)) throw new Error(`bad JSON key ${key}`);
  return key;
}

export const sqliteSql: SqlFns = {
  jsonText: (col, key) =>
    sql<string | null>`json_extract(${col}, ${sql.raw(`'$.${jsonKey(key)}'`)})`,
  jsonNumber: (col, key) =>
    sql<number | null>`json_extract(${col}, ${sql.raw(`'$.${jsonKey(key)}'`)})`,
  jsonArrayHas: (col, value) =>
    sql<boolean>`exists (select 1 from json_each(${col}) where json_each.value = ${value})`,
  inList: (col, values) =>
    sql<boolean>`${col} in (select value from json_each(${JSON.stringify(values)}))`,
};

export const pgSql: SqlFns = {
  jsonText: (col, key) => sql<string | null>`(${col} ->> ${sql.raw(`'${jsonKey(key)}'`)})`,
  jsonNumber: (col, key) =>
    sql<number | null>`((${col} ->> ${sql.raw(`'${jsonKey(key)}'`)})::numeric)`,
  jsonArrayHas: (col, value) => sql<boolean>`(${col}::jsonb @> ${JSON.stringify([value])}::jsonb)`,
  inList: (col, values) => sql<boolean>`${col} = any(${sql.param(values)}::text[])`,
};
