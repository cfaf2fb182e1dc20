// The structure of a dataset to load, as the API answers a guess and takes a load
// (docs/loading.md "prescription"): the engine validates it against this shape. Type
// aliases, not interfaces: the engine stores a prescription as a JSON record.
import type { DataType } from './data.js';

/** A column is an attribute, a label of one, or a fact. */
export const COLUMN_KINDS = ['A', 'L', 'F'] as const;
export type ColumnKind = (typeof COLUMN_KINDS)[number];

export type PrescriptionColumn = {
  id: string;
  originalheader: string;
  objectType: ColumnKind;
  dataType: DataType;
  label: string;
  /** The model object's description, set by each load that gives one. */
  description?: string;
  labelOf?: string;
  reference?: string;
  dateFormat?: string;
};

export type CsvFormat = {
  delimiter: string;
  quote: string;
  escape: string;
  header: boolean;
  encoding: 'utf-8';
  bom: boolean;
  dateFormat?: string;
};

export type Prescription = {
  clustername: string;
  /** '' means "no primary key": the dataset loads, but nothing can reference it. */
  primarykey: string;
  /** What one row is, for people and AI assistants. */
  description?: string;
  columns: PrescriptionColumn[];
  /** Sample rows (the guess's; a load may leave them out). */
  data?: string[][];
  format: CsvFormat;
};

/** A structure guess of an upload or a warehouse table. */
export interface Guess {
  ident: string;
  prescription: Prescription;
}
