// The SQL dialects AQL compiles to (see dialect.ts).
export { Dialect, type Relations, type SqlTarget, type SqlType } from './dialect.js';
export { DUCKDB, DuckDbDialect } from './duckdb.js';
export { POSTGRES, PostgresDialect } from './postgres.js';
