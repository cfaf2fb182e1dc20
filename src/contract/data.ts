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

/** A result cell in JSON: a number column's cells are numbers, null when empty. */
export type JsonCell = string | number | null;
