// The box catalog (FLOWS.md): every box type with its kind, how many inputs it takes, and its
// parameters as a zod schema. `inflow/box` answers the JSON Schema made from the same schema
// that checks a flow on save, so a client (or an assistant) can build a flow from it alone.
import { z } from 'zod';
import { zStoragePath } from './box-paths.js';
import { httpInputSchema } from './connectors/http.js';
import { postgresInputSchema } from './connectors/postgres.js';
import { sftpInputSchema } from './connectors/sftp.js';

export type BoxKind = 'input' | 'transform' | 'output';

export interface BoxType {
  id: string;
  kind: BoxKind;
  title: string;
  description: string;
  /** Inputs (incoming edges) allowed: [min, max]. */
  inputs: [number, number];
  params: z.ZodObject;
  /** Parameters holding AQL expressions, and how each is compiled (checked on save). */
  expressions?: (box: Record<string, unknown>) => Array<{ field: string; text: string }>;
}

const FORMATS = ['csv', 'json', 'ndjson', 'parquet'] as const;
const zColumn = z.string().min(1).max(255);
const zExpr = z.string().trim().min(1).max(20_000);

export const BOX_TYPES: BoxType[] = [
  {
    id: 'input.storage',
    kind: 'input',
    title: 'File from project storage',
    description:
      'Reads a CSV, JSON (array of objects), NDJSON or Parquet file from project storage, or with glob: true every file a pattern matches; the format follows the extension unless given.',
    inputs: [0, 0],
    params: z
      .object({
        path: zStoragePath.describe(
          'storage path of the file, e.g. "/in/sales.csv"; taken literally unless glob is true',
        ),
        glob: z
          .boolean()
          .optional()
          .describe(
            'true: path is a pattern (*, ?, [abc], {a,b}, ** for any depth: "/in/**/*.csv"); the files it matches are read as one table, columns matched by name',
          ),
        format: z.enum(FORMATS).optional().describe('file format; default from the extension'),
      })
      .strict(),
  },
  {
    id: 'input.http',
    kind: 'input',
    title: 'HTTP JSON API',
    description:
      'Reads records from a JSON API, page after page (page, offset, cursor or Link header) until an empty page; retries 429 and 5xx honouring Retry-After.',
    inputs: [0, 0],
    params: httpInputSchema,
  },
  {
    id: 'input.postgres',
    kind: 'input',
    title: 'PostgreSQL query',
    description:
      'Runs one query in a read-only transaction and streams its rows; column types follow PostgreSQL’s.',
    inputs: [0, 0],
    params: postgresInputSchema,
  },
  {
    id: 'input.sftp',
    kind: 'input',
    title: 'File from an SFTP server',
    description: 'Downloads one file (CSV, JSON, NDJSON, Parquet) from an SFTP server.',
    inputs: [0, 0],
    params: sftpInputSchema,
  },
  {
    id: 'transform.filter',
    kind: 'transform',
    title: 'Filter rows',
    description:
      'Keeps the rows for which an AQL condition holds: [amount] > 10 AND [region] IN ("EU", "US").',
    inputs: [1, 1],
    params: z
      .object({ condition: zExpr.describe('AQL condition over the input columns') })
      .strict(),
    expressions: (b) => [{ field: 'condition', text: String(b.condition) }],
  },
  {
    id: 'transform.derive',
    kind: 'transform',
    title: 'Derive columns',
    description:
      'Adds (or replaces) columns computed by AQL row expressions: [amount] * 0.9, UPPER([name]), CASE WHEN … END, DATE_TRUNC("month", [day]).',
    inputs: [1, 1],
    params: z
      .object({
        columns: z
          .record(zColumn, zExpr)
          .refine((c) => Object.keys(c).length > 0, { error: 'name at least one column' })
          .describe('{ <new column>: <AQL expression over the input columns> }'),
      })
      .strict(),
    expressions: (b) =>
      Object.entries(b.columns as Record<string, string>).map(([k, v]) => ({
        field: `columns.${k}`,
        text: v,
      })),
  },
  {
    id: 'transform.select',
    kind: 'transform',
    title: 'Select and rename columns',
    description: 'Keeps the named columns, in order: a list of names, or { newName: oldName }.',
    inputs: [1, 1],
    params: z
      .object({
        columns: z
          .union([
            z.array(zColumn).min(1).max(4096),
            z
              .record(zColumn, zColumn)
              .refine((c) => Object.keys(c).length > 0, { error: 'name at least one column' }),
          ])
          .describe('["a", "b"] or { "new name": "old name" }'),
      })
      .strict(),
  },
  {
    id: 'transform.aggregate',
    kind: 'transform',
    title: 'Aggregate',
    description:
      'One row per group: measures SUM, AVG, MIN, MAX, MEDIAN, COUNT([col]) (non-null rows), COUNT_DISTINCT([col]).',
    inputs: [1, 1],
    params: z
      .object({
        groupby: z.array(zColumn).max(100).describe('columns to group by ([] = one row)'),
        measures: z
          .record(zColumn, zExpr)
          .refine((c) => Object.keys(c).length > 0, { error: 'name at least one measure' })
          .describe('{ <new column>: "SUM([amount])" }'),
      })
      .strict(),
    expressions: (b) =>
      Object.entries(b.measures as Record<string, string>).map(([k, v]) => ({
        field: `measures.${k}`,
        text: v,
      })),
  },
  {
    id: 'transform.join',
    kind: 'transform',
    title: 'Join',
    description:
      'Joins its two inputs on pairs of columns; right columns whose names clash get the suffix "_<right box id>".',
    inputs: [2, 2],
    params: z
      .object({
        left: z.string().min(1).max(100).describe('box id of the left input'),
        right: z.string().min(1).max(100).describe('box id of the right input'),
        on: z
          .array(z.tuple([zColumn, zColumn]))
          .min(1)
          .max(50)
          .describe('[[leftColumn, rightColumn], …]'),
        how: z.enum(['inner', 'left', 'full']).optional().describe('default inner'),
      })
      .strict(),
  },
  {
    id: 'transform.union',
    kind: 'transform',
    title: 'Union',
    description: 'Stacks two or more inputs, matching columns by name (missing ones are null).',
    inputs: [2, 50],
    params: z.object({}).strict(),
  },
  {
    id: 'transform.sort',
    kind: 'transform',
    title: 'Sort',
    description: 'Orders rows by columns.',
    inputs: [1, 1],
    params: z
      .object({
        by: z
          .array(z.object({ column: zColumn, desc: z.boolean().optional() }).strict())
          .min(1)
          .max(50)
          .describe('[{ column, desc? }]'),
      })
      .strict(),
  },
  {
    id: 'transform.dedupe',
    kind: 'transform',
    title: 'Remove duplicates',
    description:
      'Keeps one row per distinct value of the columns (all columns when none are named).',
    inputs: [1, 1],
    params: z.object({ columns: z.array(zColumn).min(1).max(100).optional() }).strict(),
  },
  {
    id: 'transform.limit',
    kind: 'transform',
    title: 'Limit',
    description: 'Keeps the first rows.',
    inputs: [1, 1],
    params: z.object({ rows: z.number().int().min(0).max(1e12).describe('rows to keep') }).strict(),
  },
  {
    id: 'output.dataset',
    kind: 'output',
    title: 'Dataset',
    description:
      'Loads the rows into a dataset through the same loader as file loads: typed, all or nothing, model objects created; incremental mode upserts by primary key.',
    inputs: [1, 1],
    params: z
      .object({
        dataset: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,62}$/, {
            error: 'must be 1-63 lowercase letters, digits or "_", starting with a letter',
          })
          .describe('dataset (cluster) name'),
        mode: z.enum(['full', 'incremental']).describe('full replaces; incremental upserts'),
        primarykey: zColumn.optional().describe('column that identifies a row'),
        references: z
          .record(zColumn, z.string().regex(/^[a-z][a-z0-9_]{0,62}$/))
          .optional()
          .describe('{ <column>: <dataset it references> }'),
        columns: z
          .record(
            zColumn,
            z
              .object({
                label: z.string().trim().min(1).max(255).optional(),
                objectType: z.enum(['A', 'L', 'F']).optional(),
                dataType: z
                  .enum(['string', 'integer', 'number', 'date', 'datetime', 'boolean'])
                  .optional(),
                labelOf: zColumn.optional(),
              })
              .strict(),
          )
          .optional()
          .describe('prescription overrides per column: label, objectType, dataType, labelOf'),
      })
      .strict(),
  },
  {
    id: 'output.storage',
    kind: 'output',
    title: 'File in project storage',
    description: 'Writes the rows as CSV or Parquet, atomically, when the whole run succeeds.',
    inputs: [1, 1],
    params: z
      .object({
        path: zStoragePath.describe('storage path to write'),
        format: z.enum(['csv', 'parquet']).describe('file format'),
      })
      .strict(),
  },
];

export const BOXES = new Map(BOX_TYPES.map((b) => [b.id, b]));

/** A box type as `inflow/box` shows it. */
export function boxView(b: BoxType) {
  const params = z.toJSONSchema(b.params, { io: 'input', unrepresentable: 'any' });
  return {
    id: b.id,
    kind: b.kind,
    title: b.title,
    description: b.description,
    inputs: { min: b.inputs[0], max: b.inputs[1] },
    params,
  };
}
