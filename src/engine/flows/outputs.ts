// Output boxes. While the run computes, each output's rows are written to a file of the run
// (Parquet for datasets, the asked format for storage); nothing visible changes. Only when
// every box succeeded do they commit: datasets through the loader (typed, all or nothing,
// model objects), storage files by an atomic write.
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fileLit, ident } from '../data/databases.js';
import { slugId } from '../data/guess.js';
import type { ClusterLoad } from '../data/loads.js';
import { stagingTable } from '../data/load-sql.js';
import {
  CSV_FORMAT,
  FACT_TYPES,
  validatePrescription,
  type Column,
  type DataType,
  type Prescription,
} from '../data/prescription.js';
import { uniqueLabels } from '../data/prescriptions.js';
import { EngineError } from '../errors.js';
import type { Box } from './flow-def.js';
import { BoxError } from './errors.js';
import type { FlowColumn } from './expressions.js';
import { lit, type Scratch } from './scratch.js';
import { column } from './transforms.js';

export interface PreparedOutput {
  box: string;
  type: 'output.dataset' | 'output.storage';
  rows: number;
  file: string;
  /** output.storage: where it goes. */
  path?: string;
  /** output.dataset: the load. */
  load?: Omit<ClusterLoad, 'stage'> & { columns: FlowColumn[] };
}

export interface DatasetContext {
  /** The dataset's current prescription (its titles and roles carry over), or null. */
  existing: Prescription | null;
  /** Titles used by the rest of the project: new labels avoid them. */
  titlesOutside: Set<string>;
}

/** Writes an output box's rows to a file of the run. */
export async function prepareOutput(
  box: Box,
  table: string,
  columns: FlowColumn[],
  rows: number,
  s: Scratch,
  flow: string,
  dataset: (name: string) => Promise<DatasetContext>,
): Promise<PreparedOutput> {
  if (box.type === 'output.storage') {
    const format = box.format as 'csv' | 'parquet';
    const file = path.join(s.dir, `out-${table}.${format}`);
    const opts = format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT parquet';
    await s.c.run(`COPY (SELECT * FROM ${ident(table)}) TO ${lit(file)} (${opts})`);
    return { box: box.id, type: 'output.storage', rows, file, path: String(box.path) };
  }
  const name = String(box.dataset);
  const ctx = await dataset(name);
  const prescription = prescriptionFor(box, columns, ctx);
  const file = path.join(s.dir, `out-${table}.parquet`);
  const select = prescription.columns.map((c) => {
    const src = columns.find((x) => x.name === c.originalheader)!;
    return `${ident(src.name)} AS ${ident(c.id)}`;
  });
  await s.c.run(
    `COPY (SELECT ${select.join(', ')} FROM ${ident(table)}) TO ${lit(file)} (FORMAT parquet)`,
  );
  return {
    box: box.id,
    type: 'output.dataset',
    rows,
    file,
    load: {
      name,
      source: `flow ${flow}, box ${box.id}`,
      mode: box.mode as 'full' | 'incremental',
      prescription,
      remember: false,
      columns,
    },
  };
}

/**
 * The prescription of a flow's dataset: a column per output column, typed from DuckDB; the
 * dataset's current prescription keeps its labels and roles; the box's overrides win.
 */
function prescriptionFor(box: Box, columns: FlowColumn[], ctx: DatasetContext): Prescription {
  const name = String(box.dataset);
  const overrides = (box.columns ?? {}) as Record<string, Partial<Column>>;
  const refs = (box.references ?? {}) as Record<string, string>;
  const input = { box: box.id, table: '', columns };
  for (const key of [...Object.keys(overrides), ...Object.keys(refs)])
    column(input, key, box.id, `columns.${key}`);
  const pkName = box.primarykey
    ? column(input, String(box.primarykey), box.id, 'primarykey').name
    : null;
  const used = new Set<string>();
  const idOf = new Map<string, string>();
  for (const c of columns) {
    let id = slugId(c.name, 'column');
    for (let n = 2; used.has(id); n++) id = `${slugId(c.name, 'column').slice(0, 58)}_${n}`;
    used.add(id);
    idOf.set(c.name, id);
  }
  const before = new Map((ctx.existing?.columns ?? []).map((c) => [c.id, c]));
  const find = <T>(rec: Record<string, T>, colName: string): T | undefined =>
    Object.entries(rec).find(([k]) => k.toLowerCase() === colName.toLowerCase())?.[1];
  const out: Column[] = columns.map((c) => {
    const id = idOf.get(c.name)!;
    const o = find(overrides, c.name) ?? {};
    const prev = before.get(id);
    const dataType: DataType = o.dataType ?? c.type ?? 'string';
    const reference = find(refs, c.name);
    const isKey = c.name === pkName || reference !== undefined;
    const objectType =
      o.objectType ??
      (isKey ? 'A' : prev && prev.dataType === dataType ? prev.objectType : undefined) ??
      (FACT_TYPES.includes(dataType) ? 'F' : 'A');
    const labelOf = o.labelOf
      ? idOf.get(column(input, o.labelOf, box.id, `columns.${c.name}.labelOf`).name)
      : objectType === 'L'
        ? prev?.labelOf
        : undefined;
    return {
      id,
      originalheader: c.name,
      objectType,
      dataType,
      label: o.label ?? prev?.label ?? c.name,
      ...(labelOf ? { labelOf } : {}),
      ...(reference ? { reference } : {}),
    };
  });
  const draft: Prescription = {
    clustername: name,
    primarykey: pkName ? idOf.get(pkName)! : '',
    columns: out,
    format: { ...CSV_FORMAT },
  };
  try {
    // New labels avoid the titles of other datasets and objects, as guessed file loads do.
    const explicit = new Set(
      columns.filter((c) => find(overrides, c.name)?.label).map((c) => idOf.get(c.name)),
    );
    const unique = uniqueLabels(draft, ctx.titlesOutside);
    unique.columns = unique.columns.map((c, i) => (explicit.has(c.id) ? draft.columns[i]! : c));
    return validatePrescription(unique);
  } catch (err) {
    if (err instanceof EngineError) throw new BoxError(box.id, 'columns', err.message);
    throw err;
  }
}

/** The loader's staging table from an output file, every column cast to its final type. */
export function stageFromFile(c: DuckDBConnection, out: PreparedOutput): Promise<unknown> {
  const load = out.load!;
  const p = load.prescription;
  const cols = p.columns.map((col) => {
    const src = load.columns.find((x) => x.name === col.originalheader)!;
    return `${castTo(ident(col.id), src, col.dataType)} AS ${ident(col.id)}`;
  });
  return c
    .run(
      `CREATE OR REPLACE TABLE ${stagingTable(p.clustername)} AS SELECT ${cols.join(', ')} FROM read_parquet(${fileLit(out.file)})`,
    )
    .catch((err: Error) => {
      throw new BoxError(
        out.box,
        'columns',
        `the rows do not fit dataset "${p.clustername}": ${String(err.message).split('\n')[0]}`,
      );
    });
}

/** Largest integer a DOUBLE holds exactly. */
const MAX_EXACT = 9007199254740991;

function castTo(col: string, src: FlowColumn, t: DataType): string {
  const nested = src.type === null;
  switch (t) {
    case 'string':
      return nested ? `CAST(to_json(${col}) AS VARCHAR)` : `CAST(${col} AS VARCHAR)`;
    case 'integer':
      if (src.type === 'integer') return `CAST(${col} AS BIGINT)`;
      // A fraction is a type violation, not something to round (as in file loads).
      return `CASE WHEN ${col} IS NULL THEN NULL WHEN CAST(${col} AS DOUBLE) <> trunc(CAST(${col} AS DOUBLE)) OR abs(CAST(${col} AS DOUBLE)) > ${MAX_EXACT} THEN error(concat('value ', ${col}::VARCHAR, ' of column ${src.name.replace(/'/g, "''")} is not a whole number')) ELSE CAST(${col} AS BIGINT) END`;
    case 'number':
      return `CAST(${col} AS DOUBLE)`;
    case 'date':
      return `CAST(${col} AS DATE)`;
    case 'datetime':
      return src.duck.toUpperCase().includes('WITH TIME ZONE')
        ? `make_timestamp(epoch_us(${col}))`
        : `CAST(${col} AS TIMESTAMP)`;
    case 'boolean':
      return `CAST(${col} AS BOOLEAN)`;
  }
}
