// A compact way to write a prescription in code (demo data, benchmarks): one tuple per
// column, whose header is its id, in a comma-separated file with a header row.
import { CSV_FORMAT } from './packages/package.js';
import type { Column, DataType, ObjectType, Prescription } from './prescription.js';

export type ColumnSpec = [
  id: string,
  title: string,
  objectType: ObjectType,
  dataType: DataType,
  extra?: Partial<Column>,
];

export function csvPrescription(
  name: string,
  primarykey: string,
  cols: ColumnSpec[],
  description?: string,
): Prescription {
  return {
    clustername: name,
    primarykey,
    ...(description ? { description } : {}),
    format: CSV_FORMAT,
    columns: cols.map(([id, label, objectType, dataType, extra]) => ({
      id,
      originalheader: id,
      label,
      objectType,
      dataType,
      ...extra,
    })),
  };
}
