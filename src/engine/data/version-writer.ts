// Writes new dataset versions: one new file per dataset beside the current one (a full load
// starts empty, an incremental one from a copy of the current version), each attached as
// `w_<cluster>` to the project's in-memory DuckDB (its readers' own: loads and queries share
// its threads as they did in one file, and readers never name these). `finish` checkpoints,
// detaches and fsyncs them (files and directories) so a published version is whole on disk;
// `discard` removes them.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { randomId } from '../ids.js';
import { datasetTable, ident, lit } from './duck-sql.js';
import { versionFile, type DatasetVersion } from './versions.js';

export interface WriteTarget {
  name: string;
  mode: 'full' | 'incremental';
}

const alias = (cluster: string) => ident(`w_${cluster}`);

export class VersionWriter {
  private versions = new Map<string, DatasetVersion>();
  private conn: DuckDBConnection | null = null;

  constructor(
    private readonly instance: DuckDBInstance,
    private readonly projectDir: string,
    private readonly current: DatasetVersion[],
  ) {}

  /** The connection the datasets are written on (open() first). */
  get connection(): DuckDBConnection {
    if (!this.conn) throw new Error('the version writer is not open');
    return this.conn;
  }

  /** Creates the new version files of `targets` and attaches them. */
  async open(targets: WriteTarget[]): Promise<DuckDBConnection> {
    this.conn = await this.instance.connect();
    for (const t of targets) {
      const id = randomId(16);
      const file = versionFile(t.name, id);
      const abs = path.join(this.projectDir, file);
      this.versions.set(t.name, { id, cluster: t.name, file, rows: 0 });
      await fs.mkdir(path.dirname(abs), { recursive: true });
      const from = this.current.find((v) => v.cluster === t.name);
      if (t.mode === 'incremental' && from)
        await fs.copyFile(path.join(this.projectDir, from.file), abs);
      // Attachments belong to the DuckDB instance, not the connection: a write of this project
      // that failed while a statement still used its file may have left this name attached
      // (its DETACH failed). The project's write lock is ours, so no writer uses it now.
      await this.conn.run(`DETACH DATABASE IF EXISTS ${alias(t.name)}`);
      await this.conn.run(`ATTACH ${lit(abs)} AS ${alias(t.name)}`);
    }
    return this.conn;
  }

  /** Unqualified names (staging tables, the dataset's table) now mean `cluster`'s new file. */
  async use(cluster: string): Promise<void> {
    await this.connection.run(`USE ${alias(cluster)}`);
  }

  /** The new version's table of `cluster`, qualified. */
  table(cluster: string): string {
    return `${alias(cluster)}.${datasetTable(cluster)}`;
  }

  /** Counts, checkpoints, closes and fsyncs the new versions; they are ready to publish. */
  async finish(): Promise<DatasetVersion[]> {
    const c = this.connection;
    await c.run('USE memory');
    for (const v of this.versions.values()) {
      const n = (
        await c.runAndReadAll(`SELECT count(*) FROM ${this.table(v.cluster)}`)
      ).getRowsJson();
      v.rows = Number(n[0]![0]);
      await c.run(`CHECKPOINT ${alias(v.cluster)}`);
      await c.run(`DETACH ${alias(v.cluster)}`);
    }
    this.close();
    for (const v of this.versions.values()) {
      const abs = path.join(this.projectDir, v.file);
      await fsync(abs);
      await fsync(path.dirname(abs));
    }
    await fsync(path.join(this.projectDir, 'datasets'));
    return [...this.versions.values()];
  }

  /** Removes every file written (a failed or cancelled write publishes nothing). */
  async discard(): Promise<void> {
    if (this.conn) {
      await this.conn.run('USE memory').catch(() => undefined);
      for (const v of this.versions.values())
        await this.conn.run(`DETACH DATABASE IF EXISTS ${alias(v.cluster)}`).catch(() => undefined);
    }
    this.close();
    for (const v of this.versions.values()) {
      const abs = path.join(this.projectDir, v.file);
      await fs.rm(abs, { force: true });
      await fs.rm(`${abs}.wal`, { force: true });
    }
  }

  private close(): void {
    this.conn?.closeSync();
    this.conn = null;
  }
}

async function fsync(file: string): Promise<void> {
  const fh = await fs.open(file, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
