// What AQL of an embedded project compiles for: DuckDB, over the ds_<cluster> tables of the
// project's version files (data/databases.ts puts the current versions on the search path).
import type { Relations, SqlTarget } from '../../aql/dialect/dialect.js';
import { DUCKDB } from '../../aql/dialect/duckdb.js';
import { datasetTable, ident } from '../../data/databases.js';

/** An embedded project's datasets: the ds_<cluster> tables of its DuckDB version files. */
export const EMBEDDED_RELATIONS: Relations = {
  table: (dataset) => datasetTable(dataset),
  column: (_dataset, column) => ident(column),
};

export const EMBEDDED: SqlTarget = { dialect: DUCKDB, relations: EMBEDDED_RELATIONS };
