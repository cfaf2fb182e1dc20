// Input boxes: each brings its rows into a table of the run's DuckDB. Files are read by
// DuckDB itself; records from APIs and databases are written to an NDJSON file as they
// arrive (bounded memory) and read from it, typed as their source says.
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { Box } from './flow-def.js';
import { BoxError } from './errors.js';
import { httpRecords } from './connectors/http.js';
import { postgresRows } from './connectors/postgres.js';
import { sftpDownload } from './connectors/sftp.js';
import type { ColumnType, Credentials, NetPolicy } from './connectors/types.js';
import { fileLit, ident } from '../data/databases.js';
import { lit, type Scratch } from './scratch.js';

export interface InputDeps {
  /** The file-system path of a storage file (no links on the way), or a 404 EngineError. */
  localFile(storagePath: string): Promise<string>;
  /** The storage files a glob matches (storage-glob.ts), or a BoxError when none does. */
  matchFiles(pattern: string, box: string): Promise<string[]>;
  /** A credentials object the run's user may use, with its secret. */
  credentials(ident: string): Promise<Credentials>;
  net: NetPolicy;
  signal: AbortSignal;
  /** Reports records read so far (long inputs). */
  progress(rows: number): void;
}

type Format = 'csv' | 'json' | 'ndjson' | 'parquet';

function formatOf(box: Box, file: string): Format {
  if (box.format) return box.format as Format;
  const ext = path.extname(file).toLowerCase().slice(1);
  if (ext === 'csv' || ext === 'txt' || ext === 'tsv') return 'csv';
  if (ext === 'json') return 'json';
  if (ext === 'ndjson' || ext === 'jsonl') return 'ndjson';
  if (ext === 'parquet') return 'parquet';
  throw new BoxError(
    box.id,
    'format',
    `cannot tell the format of "${file}" from its extension; set format to csv, json, ndjson or parquet`,
  );
}

/** The DuckDB table function reading local files, each by its exact name; several by column name. */
function readFileSql(files: string[], format: Format): string {
  const src = files.length === 1 ? fileLit(files[0]!) : `[${files.map(fileLit).join(', ')}]`;
  const union = files.length > 1 ? ', union_by_name = true' : '';
  switch (format) {
    case 'csv':
      return `read_csv(${src}, header = true${union})`;
    case 'json':
      return `read_json(${src}, format = 'array'${union})`;
    case 'ndjson':
      return `read_json(${src}, format = 'newline_delimited'${union})`;
    case 'parquet':
      return `read_parquet(${src}${union})`;
  }
}

const DUCK_OF: Record<ColumnType, string> = {
  string: 'VARCHAR',
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  datetime: 'TIMESTAMP',
  json: 'JSON',
};

/** Fills `table` from an input box; returns its row count. */
export async function readInput(
  box: Box,
  table: string,
  s: Scratch,
  deps: InputDeps,
): Promise<{ rows: number }> {
  const ctx = { box: box.id, signal: deps.signal, net: deps.net };
  switch (box.type) {
    case 'input.storage': {
      const paths = box.glob ? await deps.matchFiles(String(box.path), box.id) : [String(box.path)];
      const files: string[] = [];
      for (const p of paths)
        files.push(
          await deps.localFile(p).catch((err: Error) => {
            throw new BoxError(box.id, 'path', err.message);
          }),
        );
      return fromFile(box, table, s, files, formatOf(box, String(box.path)), 'path');
    }
    case 'input.sftp': {
      const format = formatOf(box, String(box.path));
      const local = path.join(s.dir, `${table}.${format}`);
      await sftpDownload(
        await deps.credentials(String(box.credentials)),
        String(box.path),
        local,
        ctx,
      );
      return fromFile(box, table, s, [local], format, 'path');
    }
    case 'input.http': {
      const file = path.join(s.dir, `${table}.ndjson`);
      const cred = box.credentials ? await deps.credentials(String(box.credentials)) : null;
      let rows = 0;
      await writeNdjson(file, async (write) => {
        const { id: _id, type: _type, ...params } = box;
        for await (const page of httpRecords(params as never, cred, ctx)) {
          for (const r of page) await write(r);
          rows += page.length;
          deps.progress(rows);
        }
      });
      if (!rows)
        throw new BoxError(
          box.id,
          box.records !== undefined ? 'records' : 'url',
          'the API answered no records, so the columns are unknown',
        );
      await s.c.run(
        `CREATE TABLE ${ident(table)} AS SELECT * FROM read_json(${fileLit(file)}, format = 'newline_delimited', sample_size = -1)`,
      );
      await flattenObjects(s, table);
      return { rows };
    }
    case 'input.postgres': {
      const file = path.join(s.dir, `${table}.ndjson`);
      const cred = await deps.credentials(String(box.credentials));
      let columns: Array<{ name: string; type: ColumnType }> = [];
      let rows = 0;
      await writeNdjson(file, async (write) => {
        for await (const chunk of postgresRows(String(box.query), cred, ctx)) {
          if ('columns' in chunk) columns = chunk.columns;
          else {
            for (const r of chunk.rows) await write(r);
            rows += chunk.rows.length;
            deps.progress(rows);
          }
        }
      });
      const names = new Set<string>();
      for (const c of columns) {
        if (names.has(c.name.toLowerCase()))
          throw new BoxError(
            box.id,
            'query',
            `the query returns two columns named "${c.name}"; give them distinct names with AS`,
          );
        names.add(c.name.toLowerCase());
      }
      const defs = columns.map((c) => `${ident(c.name)} ${DUCK_OF[c.type]}`).join(', ');
      await s.c.run(`CREATE TABLE ${ident(table)} (${defs})`);
      if (rows) {
        const spec = columns.map((c) => `${lit(c.name)}: ${lit(DUCK_OF[c.type])}`).join(', ');
        await s.c.run(
          `INSERT INTO ${ident(table)} SELECT * FROM read_json(${fileLit(file)}, format = 'newline_delimited', columns = {${spec}})`,
        );
      }
      return { rows };
    }
    default:
      throw new BoxError(box.id, 'type', `${box.type} is not an input`);
  }
}

async function fromFile(
  box: Box,
  table: string,
  s: Scratch,
  files: string[],
  format: Format,
  field: string,
): Promise<{ rows: number }> {
  try {
    await s.c.run(`CREATE TABLE ${ident(table)} AS SELECT * FROM ${readFileSql(files, format)}`);
  } catch (err) {
    // Local paths say where the data directory is: the message names the storage path instead.
    let detail = firstLine(err);
    for (const f of files) detail = detail.replaceAll(f, String(box.path));
    throw new BoxError(
      box.id,
      field,
      `reading "${String(box.path)}" as ${format} failed: ${detail}`,
    );
  }
  if (format === 'json' || format === 'ndjson') await flattenObjects(s, table);
  return { rows: await s.count(table) };
}

/** Deepest nesting of objects turned into columns; deeper ones stay JSON text. */
const FLATTEN_DEPTH = 5;

/**
 * Nested objects of JSON records become columns of their own, named by their path
 * (`customer.name`), so expressions can use them; arrays stay one column (stored as JSON).
 */
async function flattenObjects(s: Scratch, table: string): Promise<void> {
  for (let depth = 0; depth < FLATTEN_DEPTH; depth++) {
    const cols = await s.columns(table);
    if (!cols.some((c) => isStruct(c.duck))) return;
    const taken = new Set(cols.map((c) => c.name.toLowerCase()));
    const items: string[] = [];
    for (const c of cols) {
      if (!isStruct(c.duck)) {
        items.push(ident(c.name));
        continue;
      }
      // DuckDB expands a struct's fields with `col.*`; DESCRIBE names them exactly.
      const fields = (
        await s.c.runAndReadAll(`DESCRIBE SELECT ${ident(c.name)}.* FROM ${ident(table)}`)
      )
        .getRowObjectsJson()
        .map((r) => String(r.column_name));
      for (const f of fields) {
        let name = `${c.name}.${f}`;
        for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${c.name}.${f}_${n}`;
        taken.add(name.toLowerCase());
        items.push(`${ident(c.name)}.${ident(f)} AS ${ident(name)}`);
      }
    }
    await s.c.run(
      `CREATE OR REPLACE TABLE ${ident(table)} AS SELECT ${items.join(', ')} FROM ${ident(table)}`,
    );
  }
}

const isStruct = (duck: string) => /^STRUCT\(/i.test(duck);

/** Writes records as NDJSON, waiting when the disk is slower than the source. */
async function writeNdjson(
  file: string,
  fill: (write: (record: unknown) => Promise<void>) => Promise<void>,
): Promise<void> {
  const out: WriteStream = createWriteStream(file, { flags: 'wx' });
  let failure: Error | null = null;
  out.on('error', (err) => (failure = err));
  const write = async (record: unknown) => {
    if (failure) throw failure;
    if (!out.write(`${JSON.stringify(record)}\n`))
      await new Promise<void>((resolve) => {
        out.once('drain', resolve);
        out.once('error', () => resolve());
      });
  };
  try {
    await fill(write);
  } finally {
    await new Promise<void>((resolve) => out.end(() => resolve()));
  }
  if (failure) throw failure;
}

export function firstLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 500);
}
