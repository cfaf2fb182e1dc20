// Structure guess: from the first bytes of an uploaded file, propose a prescription (columns,
// types, attribute/label/fact roles, primary key). The caller reads the sample (up to ~1 MB)
// and says whether the file goes on beyond it. The parts: guess/decode.ts (UTF-8 checks),
// guess/csv-sample.ts (records as DuckDB reads them, like the load), guess/types.ts (value
// types), guess/table.ts (width, header), guess/roles.ts (roles, primary key), guess/names.ts.
import { invalid } from '../errors.js';
import { SAMPLE_ROWS, type Prescription } from './prescription.js';
import { completeRecords, QUOTE, sniffCsv } from './guess/csv-sample.js';
import { decodeSample } from './guess/decode.js';
import { baseName, slugId, stripExtension } from './guess/names.js';
import { buildColumns, choosePrimaryKey } from './guess/roles.js';
import { fitWidth, splitHeader } from './guess/table.js';

export { slugId } from './guess/names.js';
export { completeRecords, readCsv } from './guess/csv-sample.js';

export type GuessedPrescription = Prescription & { data: string[][] };

export interface GuessOptions {
  fileName: string;
  /** The sample is a prefix of a longer file: its last line may be cut. */
  truncated: boolean;
}

export async function guessStructure(
  sample: Buffer,
  opts: GuessOptions,
): Promise<GuessedPrescription> {
  const { text, bom } = decodeSample(sample, opts);
  // A cut last record is left out before DuckDB sees it (it could end inside a quote).
  const whole = opts.truncated ? completeRecords(text) : text;
  const { delimiter, rows } = await sniffCsv(whole, opts.fileName);
  if (rows.length === 0)
    throw invalid(`the file "${opts.fileName}" holds no complete line of data`, {
      fileName: opts.fileName,
      truncated: opts.truncated,
    });
  const table = splitHeader(rows, opts.fileName);
  const clustername = slugId(stripExtension(baseName(opts.fileName)), 'dataset');
  const columns = buildColumns(table);
  return {
    clustername,
    primarykey: choosePrimaryKey(columns, table, clustername),
    columns,
    data: table.body.slice(0, SAMPLE_ROWS).map((r) => fitWidth(r, table.width)),
    format: {
      delimiter,
      quote: QUOTE,
      escape: QUOTE,
      header: table.header !== null,
      encoding: 'utf-8',
      bom,
    },
  };
}
