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
