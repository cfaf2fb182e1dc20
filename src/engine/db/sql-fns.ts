// SQL the two metadata databases spell differently, for the few raw fragments engine code
// needs. Everything else is drizzle's query builder, which each dialect renders itself.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { boundDialect } from './tables.js';

/** The text of `key` in the JSON document `col` (null when missing). */
export function jsonText(col: SQLWrapper, key: string): SQL<string | null> {
  if (!/^\w+$/.test(key)) throw new Error(`bad JSON key ${key}`);
  return boundDialect() === 'postgres'
    ? sql<string | null>`(${col} ->> ${sql.raw(`'${key}'`)})`
    : sql<string | null>`json_extract(${col}, ${sql.raw(`'$.${key}'`)})`;
}

/** Whether the JSON array `col` holds the string `value`. */
export function jsonArrayHas(col: SQLWrapper, value: string): SQL<boolean> {
  return boundDialect() === 'postgres'
    ? sql<boolean>`(${col}::jsonb @> ${JSON.stringify([value])}::jsonb)`
    : sql<boolean>`exists (select 1 from json_each(${col}) where json_each.value = ${value})`;
}

/** count(*) as a number on both (PostgreSQL's is a bigint, which pg reads as text). */
export const countAll = (): SQL<number> => sql<number>`count(*)`.mapWith(Number);

/** The number at `key` in the JSON document `col` (null when missing). */
export function jsonNumber(col: SQLWrapper, key: string): SQL<number | null> {
  if (!/^\w+$/.test(key)) throw new Error(`bad JSON key ${key}`);
  return boundDialect() === 'postgres'
    ? sql<number | null>`((${col} ->> ${sql.raw(`'${key}'`)})::numeric)`
    : sql<number | null>`json_extract(${col}, ${sql.raw(`'$.${key}'`)})`;
}

/** `col` is one of `values`, sent as ONE parameter (lists can exceed a statement's limit). */
export function inList(col: SQLWrapper, values: string[]): SQL<boolean> {
  return boundDialect() === 'postgres'
    ? sql<boolean>`${col} = any(${sql.param(values)}::text[])`
    : sql<boolean>`${col} in (select value from json_each(${JSON.stringify(values)}))`;
}
