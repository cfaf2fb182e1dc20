// The column types of a load's prescription (docs/loading.md "dataType").
export const DATA_TYPE_NAMES = [
  'string',
  'integer',
  'number',
  'date',
  'datetime',
  'boolean',
] as const;
export type DataType = (typeof DATA_TYPE_NAMES)[number];

/** One row of a NEST(SELECT …) cell: its column titles to its values. */
export type NestedRow = Record<string, string | number | boolean | null>;

/**
 * A result cell in JSON: a number column's cells are numbers, null when empty; a `nested`
 * column's cells are lists of rows.
 */
export type JsonCell = string | number | null | NestedRow[];

/** A loaded dataset as GET kodiak/dataload lists it. */
export interface Dataset {
  name: string;
  /** Rows over the whole dataset; null for a reader with a row-level filter. */
  rows: number | null;
  /** A warehouse table's rows are PostgreSQL's estimate. */
  rowsEstimated?: boolean;
  /** The columns the reader may read. */
  columns: number;
  /** null: the dataset has no primary key. */
  primaryKey: string | null;
  /** Where its rows came from (a storage path, a warehouse table); null when not recorded. */
  source: string | null;
  loaded: string;
  loadedBy: string;
  dataVersion: number;
}

/** GET kodiak/dataload: `{ dataload, warehouse, link }`. */
export interface DataLoadStatus {
  dataVersion: number;
  modelVersion: number;
  datasets: Dataset[];
}
