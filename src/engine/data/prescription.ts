// The prescription: how a file becomes a dataset (cluster). The structure guesser proposes
// one, the user may edit it (PUT), and the loader executes it. Zod checks the shape; the
// model rules (what may be a primary key, what a label describes…) are checked here too,
// so an edited prescription that could never load is refused with a precise 400.
import { z } from 'zod';
import { invalid } from '../errors.js';
import { parseInput } from '../validate.js';

import { DATA_TYPE_NAMES, type DataType } from '../../contract/data.js';
import {
  COLUMN_KINDS,
  type ColumnKind,
  type CsvFormat,
  type Prescription,
  type PrescriptionColumn,
} from '../../contract/guess.js';

export { DATA_TYPE_NAMES, type DataType };

/** Every dataType with its meaning, in the order documented (docs/loading.md). */
export const DATA_TYPES: readonly { readonly name: DataType; readonly meaning: string }[] = [
  { name: 'string', meaning: 'text; any value, kept exactly as in the file' },
  { name: 'integer', meaning: 'whole number (64-bit), optional sign, no thousands separators' },
  { name: 'number', meaning: 'decimal number with "." as decimal point, optional exponent' },
  { name: 'date', meaning: 'calendar date, ISO YYYY-MM-DD or the column dateFormat' },
  { name: 'datetime', meaning: 'date and time of day, ISO with "T" or space, optional zone' },
  { name: 'boolean', meaning: 'true/false (also yes/no and 1/0)' },
];

export const OBJECT_TYPES = COLUMN_KINDS;
export type ObjectType = ColumnKind;

/** Types a primary key may have: values that compare exactly (no floating point). */
export const PRIMARY_KEY_TYPES: readonly DataType[] = ['string', 'integer', 'date'];
/** Types a fact may have: facts are aggregated. */
export const FACT_TYPES: readonly DataType[] = ['integer', 'number'];
/** Wider files are not analytics datasets; the bound also keeps validation cheap. */
export const MAX_COLUMNS = 4096;
export const SAMPLE_ROWS = 10;

// Column ids become parts of model object ids (attr.<cluster>.<column>), so no dots.
const NAME_RE = /^[a-z][a-z0-9_]{0,62}$/;
const NAME_RULE = 'must start with a-z and hold only a-z, 0-9 and _ (at most 63 characters)';
const zName = z.string().regex(NAME_RE, { error: NAME_RULE });
const zChar = z.string().length(1, { error: 'must be exactly one character' });

const columnSchema = z
  .object({
    id: zName,
    originalheader: z.string().max(1000),
    objectType: z.enum(OBJECT_TYPES, {
      error: 'must be "A" (attribute), "L" (label) or "F" (fact)',
    }),
    dataType: z.enum(DATA_TYPE_NAMES, { error: `must be one of ${DATA_TYPE_NAMES.join(', ')}` }),
    label: z.string().trim().min(1).max(255),
    // The model object's description, set by each load that gives one (AI assistants read it).
    description: z.string().trim().max(1000).optional(),
    labelOf: zName.optional(),
    reference: zName.optional(),
    dateFormat: z
      .string()
      .max(64)
      .regex(/%/, { error: 'must be a strptime format such as %d.%m.%Y' })
      .optional(),
  })
  .strict() satisfies z.ZodType<PrescriptionColumn>;

const formatSchema = z
  .object({
    delimiter: zChar.refine((c) => c !== '\n' && c !== '\r', 'cannot be a line break'),
    quote: zChar,
    escape: zChar,
    header: z.boolean(),
    encoding: z.literal('utf-8', { error: 'must be "utf-8" (the only encoding loaded)' }),
    bom: z.boolean(),
    dateFormat: z
      .string()
      .max(64)
      .regex(/%/, { error: 'must be a strptime format such as %d.%m.%Y' })
      .optional(),
  })
  .strict() satisfies z.ZodType<CsvFormat>;

export const prescriptionSchema = z
  .object({
    clustername: zName,
    // '' means "no primary key": the dataset can still be loaded, but nothing can reference it.
    primarykey: z.union([z.literal(''), zName]),
    // What one row is, for people and AI assistants (get_model shows it).
    description: z.string().trim().max(1000).optional(),
    columns: z
      .array(columnSchema)
      .min(1, { error: 'a dataset needs at least one column' })
      .max(MAX_COLUMNS),
    // Optional on input: a PUT may send the structure alone; the sample rows are ours.
    data: z.array(z.array(z.string())).max(1000).optional(),
    format: formatSchema,
  })
  .strict() satisfies z.ZodType<Prescription>;

/** The CSV format DuckDB writes and the loader reads back (packages, flow outputs). */
export const CSV_FORMAT = {
  delimiter: ',',
  quote: '"',
  escape: '"',
  header: true,
  encoding: 'utf-8',
  bom: false,
} as const satisfies z.infer<typeof formatSchema>;

export type { CsvFormat, Prescription };
export type Column = PrescriptionColumn;

/** Parses and checks a prescription; throws the engine's `invalid` error on the first problem. */
export function validatePrescription(input: unknown): Prescription {
  const p = parseInput(prescriptionSchema, input, 'prescription');
  const byId = indexColumns(p.columns);
  p.columns.forEach((c, i) => checkColumn(c, i, byId));
  checkPrimaryKey(p.primarykey, byId);
  checkFormat(p.format);
  return p;
}

interface Indexed {
  column: Column;
  index: number;
}

function indexColumns(columns: Column[]): Map<string, Indexed> {
  const byId = new Map<string, Indexed>();
  columns.forEach((column, index) => {
    const first = byId.get(column.id);
    if (first)
      throw invalid(
        `duplicate column id "${column.id}" (columns ${first.index} and ${index}); ids must be unique`,
        {
          field: `columns.${index}.id`,
          value: column.id,
          duplicateOf: `columns.${first.index}.id`,
        },
      );
    byId.set(column.id, { column, index });
  });
  return byId;
}

/** Resolves a column id named by another field, or says which ids exist. */
function lookup(id: string, field: string, what: string, byId: Map<string, Indexed>): Indexed {
  const found = byId.get(id);
  if (found) return found;
  const known = [...byId.keys()];
  throw invalid(`${what} "${id}" is not a column id; known ids: ${known.join(', ')}`, {
    field,
    value: id,
    known,
  });
}

function checkColumn(c: Column, i: number, byId: Map<string, Indexed>): void {
  const at = (f: string) => `columns.${i}.${f}`;
  if (c.objectType === 'F' && !FACT_TYPES.includes(c.dataType))
    throw invalid(
      `fact "${c.id}" has dataType "${c.dataType}"; a fact is aggregated, so it must be integer or number (make it an attribute "A" instead)`,
      { field: at('dataType'), value: c.dataType, column: c.id, allowed: FACT_TYPES },
    );
  if (c.reference !== undefined && c.objectType !== 'A')
    throw invalid(
      `column "${c.id}" references "${c.reference}" but is not an attribute; only attributes (objectType "A") can reference another dataset`,
      { field: at('reference'), value: c.reference, column: c.id, objectType: c.objectType },
    );
  checkLabel(c, i, byId);
}

function checkLabel(c: Column, i: number, byId: Map<string, Indexed>): void {
  const field = `columns.${i}.labelOf`;
  if (c.objectType !== 'L') {
    if (c.labelOf !== undefined)
      throw invalid(
        `column "${c.id}" has labelOf but is not a label; set objectType "L" or remove labelOf`,
        { field, value: c.labelOf, column: c.id, objectType: c.objectType },
      );
    return;
  }
  if (c.labelOf === undefined)
    throw invalid(
      `label "${c.id}" needs labelOf: the id of the attribute column it is a display form of`,
      { field, column: c.id },
    );
  if (c.labelOf === c.id)
    throw invalid(`label "${c.id}" cannot be a label of itself; labelOf must name an attribute`, {
      field,
      value: c.labelOf,
      column: c.id,
    });
  const target = lookup(c.labelOf, field, `labelOf of "${c.id}"`, byId).column;
  if (target.objectType !== 'A')
    throw invalid(
      `label "${c.id}" describes "${target.id}", which is not an attribute (objectType "${target.objectType}"); labelOf must name an attribute`,
      { field, value: c.labelOf, column: c.id, objectType: target.objectType },
    );
}

function checkPrimaryKey(pk: string, byId: Map<string, Indexed>): void {
  if (pk === '') return;
  const { column } = lookup(pk, 'primarykey', 'primary key', byId);
  if (column.objectType !== 'A')
    throw invalid(
      `primary key "${pk}" is not an attribute (objectType "${column.objectType}"); a primary key must be an attribute "A"`,
      { field: 'primarykey', value: pk, objectType: column.objectType },
    );
  if (!PRIMARY_KEY_TYPES.includes(column.dataType))
    throw invalid(
      `primary key "${pk}" has dataType "${column.dataType}"; a primary key must be ${PRIMARY_KEY_TYPES.join(', ')}`,
      { field: 'primarykey', value: pk, dataType: column.dataType, allowed: PRIMARY_KEY_TYPES },
    );
}

function checkFormat(f: CsvFormat): void {
  if (f.delimiter === f.quote)
    throw invalid(`the delimiter and the quote character are both "${f.quote}"`, {
      field: 'format.delimiter',
      value: f.delimiter,
    });
}
