// The structure guess reads CSV the way the load does: with DuckDB. DuckDB's sniffer picks the
// delimiter (the quote and escape are '"', as every guessed prescription says) and read_csv,
// given those options, splits the records, so guess and load cannot disagree on where a field
// or a record ends, nor on how many fields a record has. The guess stays lenient where the
// load is strict (a few ragged or badly quoted rows): it proposes, and the load then names the
// lines that do not fit.
//
// The sample (≤ 1 MB, already decoded) goes to a private temporary file read by an in-memory
// DuckDB of its own: one thread, no access beyond that folder, shared by the whole process.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { invalid } from '../../errors.js';
import { randomId } from '../../ids.js';
import { fileLit, lit } from '../databases.js';

export const QUOTE = '"';

export interface CsvDialect {
  delimiter: string;
  /** '' : no quoting. */
  quote: string;
  /** '' or absent: the quote, doubled (as the load reads). */
  escape?: string;
}

/** Records the sniffer reads: enough to see a consistent delimiter. */
const SNIFF_ROWS = 1000;
/** The sniffer reads this much of the sample at most (it costs 5× less than the whole 1 MB). */
const SNIFF_CHARS = 64 * 1024;
/** Idle connections kept for the next guesses (connecting costs ~0.5 ms). */
const IDLE = 2;

interface Sniffer {
  instance: DuckDBInstance;
  dir: string;
  idle: DuckDBConnection[];
}

let sniffer: Promise<Sniffer> | undefined;

const TEMP_PREFIX = 'ursa-guess-';
/** A sample's temporary file as DuckDB's messages quote it. */
const TEMP_PATH = new RegExp(`"[^"]*${TEMP_PREFIX}[^"]*"`, 'g');

function open(): Promise<Sniffer> {
  sniffer ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), TEMP_PREFIX));
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '1',
      memory_limit: '256MB',
    });
    // Nothing but its own folder: the sample is the only file this DuckDB reads.
    const c = await instance.connect();
    await c.run(`SET allowed_directories = [${lit(`${dir}/`)}]`);
    await c.run('SET enable_external_access = false');
    return { instance, dir, idle: [c] };
  })();
  // A failed start is tried again by the next guess, not remembered.
  sniffer.catch(() => (sniffer = undefined));
  return sniffer;
}

/** Runs `fn` on a connection of the sniffer with `text` in a temporary file. */
async function withSample<T>(
  text: string,
  fn: (c: DuckDBConnection, file: string, temp: (text: string) => Promise<string>) => Promise<T>,
): Promise<T> {
  const s = await open();
  const files: string[] = [];
  const temp = async (content: string) => {
    const f = path.join(s.dir, `${randomId(12)}.csv`);
    files.push(f);
    await fs.writeFile(f, content);
    return f;
  };
  const file = await temp(text);
  const c = s.idle.pop() ?? (await s.instance.connect());
  let clean = false;
  try {
    const out = await fn(c, file, temp);
    clean = true;
    return out;
  } finally {
    // Only a connection whose work ended normally is reused.
    if (clean && s.idle.length < IDLE) s.idle.push(c);
    else c.closeSync();
    await Promise.all(files.map((f) => fs.rm(f, { force: true })));
  }
}

/**
 * DuckDB's reason in a sentence: its first lines without the error class, the temporary file
 * named as the user's, without the options and search space it lists after.
 */
function reason(e: unknown, fileName: string): string {
  const lines = String((e as Error).message ?? e)
    .replace(TEMP_PATH, `"${fileName}"`)
    .replace(/^[A-Za-z ]+Error: /, '')
    .split('\n');
  // "Error when sniffing file …" says what failed; the next line says why.
  const take = /sniffing/.test(lines[0]!) && lines[1] ? 2 : 1;
  return lines
    .slice(0, take)
    .map((l) => l.trim().replace(/\.$/, ''))
    .join(': ');
}

function cannotRead(e: unknown, fileName: string) {
  const why = reason(e, fileName);
  return invalid(`the file "${fileName}" cannot be read as CSV: ${why}`, { fileName, reason: why });
}

/** The delimiter DuckDB's sniffer finds in `file` (',' for a file of one column). */
async function sniffDelimiter(c: DuckDBConnection, file: string): Promise<string> {
  const sniff = (strict: boolean) =>
    c.runAndReadAll(
      `SELECT Delimiter FROM sniff_csv(${fileLit(file)}, quote = ${lit(QUOTE)}, escape = ${lit(QUOTE)}, sample_size = ${SNIFF_ROWS}, strict_mode = ${strict})`,
    );
  // Strict first, as the load reads; a file with some bad rows still gets a delimiter.
  const r = await sniff(true).catch(() => sniff(false));
  const d = String(r.getColumns()[0]![0] ?? '');
  return d === '' ? ',' : d;
}

/** `n` characters the text does not hold (control characters first). */
function unusedMarks(text: string, n: number): string[] {
  const marks: string[] = [];
  for (let code = 1; marks.length < n; code++) {
    const mark = String.fromCharCode(code);
    if (!text.includes(mark)) marks.push(mark);
  }
  return marks;
}

/**
 * The records of `text` as read_csv splits them with `dialect`, each with its own number of
 * fields (a short record is not padded); blank lines are skipped.
 */
async function readRecords(
  c: DuckDBConnection,
  file: string,
  text: string,
  dialect: CsvDialect,
  limit?: number,
): Promise<string[][]> {
  // Three characters no cell can hold: the null string, so that an empty cell reads as '' and
  // only the padding of a short record (null_padding) as null, which concat_ws leaves out; and
  // the separators of fields and records in the one text all records come back as (handing
  // values to JavaScript one by one costs ten times more). One thread reads the file in order
  // (the parallel reader cannot pad records when quoted fields hold line breaks).
  const [pad, fieldSep, recordSep] = unusedMarks(text, 3) as [string, string, string];
  const source = `read_csv(${fileLit(file)}, delim = ${lit(dialect.delimiter)}, quote = ${lit(dialect.quote)}, escape = ${lit(dialect.escape || dialect.quote)}, header = false, all_varchar = true, null_padding = true, parallel = false, strict_mode = false, nullstr = ${lit(pad)}, sample_size = ${SNIFF_ROWS})`;
  const r = await c.runAndReadAll(
    `SELECT string_agg(concat_ws(${lit(fieldSep)}, *COLUMNS(*)), ${lit(recordSep)}) FROM (SELECT * FROM ${source}${limit ? ` LIMIT ${limit}` : ''})`,
  );
  const all = r.getColumns()[0]![0] as string | null;
  const rows: string[][] = [];
  if (all === null) return rows;
  for (const record of all.split(recordSep)) {
    // A blank line: one field that is empty or only spaces.
    if (record.trim() === '' && !record.includes(fieldSep)) continue;
    rows.push(record.split(fieldSep));
  }
  return rows;
}

/**
 * The text up to its last record end outside quotes: what a truncated sample holds whole. A
 * quote character toggles "inside"; a doubled one toggles twice.
 */
export function completeRecords(text: string, quote = QUOTE): string {
  const q = quote === '' ? -1 : quote.charCodeAt(0);
  let inside = false;
  let end = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === q) inside = !inside;
    else if (!inside && (ch === 10 || ch === 13)) end = i + 1;
  }
  return text.slice(0, end);
}

/** The dialect DuckDB finds for `text` and the records it reads with it. */
export async function sniffCsv(
  text: string,
  fileName: string,
): Promise<{ delimiter: string; rows: string[][] }> {
  if (text.trim() === '') return { delimiter: ',', rows: [] };
  return withSample(text, async (c, file, temp) => {
    try {
      // The records that begin the sample, when they are shorter than it.
      const head = text.length > SNIFF_CHARS ? completeRecords(text.slice(0, SNIFF_CHARS)) : '';
      const delimiter = await sniffDelimiter(c, head ? await temp(head) : file);
      return { delimiter, rows: await readRecords(c, file, text, { delimiter, quote: QUOTE }) };
    } catch (e) {
      throw cannotRead(e, fileName);
    }
  });
}

/**
 * The records of `text` read with a given dialect (a saved prescription's); `limit`: read only
 * the first records (blank lines count).
 */
export async function readCsv(
  text: string,
  dialect: CsvDialect,
  opts: { fileName?: string; limit?: number } = {},
): Promise<string[][]> {
  const { fileName = 'the file', limit } = opts;
  if (text.trim() === '') return [];
  return withSample(text, async (c, file) => {
    try {
      return await readRecords(c, file, text, dialect, limit);
    } catch (e) {
      throw cannotRead(e, fileName);
    }
  });
}
