// A run's own DuckDB: in memory with a memory limit and a spill folder, so large inputs
// stream and spill to disk instead of sitting in JS memory. Each box's rows become a table
// `b<n>`; the project's database is touched only when outputs commit.
import fs from 'node:fs/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ident } from '../data/databases.js';
import type { DataType } from '../data/prescription.js';
import type { FlowColumn } from './expressions.js';

/** What one run may hold in memory before DuckDB spills to its folder. */
const MEMORY_LIMIT = '512MB';

export class Scratch {
  private constructor(
    private readonly instance: DuckDBInstance,
    readonly c: DuckDBConnection,
    readonly dir: string,
  ) {}

  /**
   * `readable`: the folders the run may read besides its own (the project's files). Everything
   * else is closed to this DuckDB for good: a defence below the expression compiler's, which
   * already cannot name a file.
   */
  static async open(dir: string, readable: string[], signal: AbortSignal): Promise<Scratch> {
    await fs.mkdir(dir, { recursive: true });
    const instance = await DuckDBInstance.create(':memory:', {
      threads: '2',
      memory_limit: MEMORY_LIMIT,
      temp_directory: `${dir}/spill`,
      preserve_insertion_order: 'true',
    });
    const c = await instance.connect();
    const dirs = [dir, ...readable].map((d) => lit(d.endsWith('/') ? d : `${d}/`));
    await c.run(`SET allowed_directories = [${dirs.join(', ')}]`);
    await c.run('SET enable_external_access = false');
    signal.addEventListener('abort', () => c.interrupt(), { once: true });
    return new Scratch(instance, c, dir);
  }

  /** Creates table `name` from a SELECT and answers its columns and row count. */
  async table(name: string, select: string): Promise<{ columns: FlowColumn[]; rows: number }> {
    await this.c.run(`CREATE OR REPLACE TABLE ${ident(name)} AS ${select}`);
    return { columns: await this.columns(name), rows: await this.count(name) };
  }

  async columns(name: string): Promise<FlowColumn[]> {
    const rows = (await this.c.runAndReadAll(`DESCRIBE ${ident(name)}`)).getRowObjectsJson();
    return rows.map((r) => {
      const duck = String(r.column_type);
      return { name: String(r.column_name), duck, type: dataTypeOf(duck) };
    });
  }

  async count(name: string): Promise<number> {
    const r = await this.c.runAndReadAll(`SELECT count(*) AS n FROM ${ident(name)}`);
    return Number(r.getRowObjectsJson()[0]!.n);
  }

  async close(): Promise<void> {
    try {
      this.c.closeSync();
      this.instance.closeSync();
    } finally {
      await fs.rm(this.dir, { recursive: true, force: true });
    }
  }
}

/** How AQL and the loader see a DuckDB type; null: a nested or exotic type. */
export function dataTypeOf(duck: string): DataType | null {
  const t = duck.toUpperCase();
  if (
    /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/.test(
      t,
    )
  )
    return 'integer';
  if (/^(FLOAT|DOUBLE|REAL|DECIMAL(\(.*\))?)$/.test(t)) return 'number';
  if (t === 'VARCHAR' || t === 'UUID') return 'string';
  if (t === 'DATE') return 'date';
  if (t.startsWith('TIMESTAMP')) return 'datetime';
  if (t === 'BOOLEAN') return 'boolean';
  return null;
}

/** A SQL string literal (file paths and options, which cannot be bound parameters). */
export const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;
