// One DuckDB database file per project (data/projects/<id>/data.duckdb): projects are
// isolated by construction. Instances open lazily and stay open; writes are serialized per
// project so two loads never interleave their transactions.
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

interface Entry {
  instance: DuckDBInstance;
  /** Tail of the per-project write queue. */
  writes: Promise<unknown>;
  /** Read connections that finished cleanly, for the next reads (connecting costs ~0.5 ms). */
  idle: DuckDBConnection[];
}

/** Idle read connections kept per project. */
const IDLE_READERS = 4;

export class ProjectDatabases {
  private entries = new Map<string, Promise<Entry>>();

  constructor(private readonly projectDir: (projectId: string) => string) {}

  file(projectId: string): string {
    return path.join(this.projectDir(projectId), 'data.duckdb');
  }

  private entry(projectId: string): Promise<Entry> {
    let e = this.entries.get(projectId);
    if (!e) {
      e = DuckDBInstance.create(this.file(projectId), { threads: '2' }).then((instance) => ({
        instance,
        writes: Promise.resolve(),
        idle: [],
      }));
      // A failed open must be retried next time, not cached.
      e.catch(() => this.entries.delete(projectId));
      this.entries.set(projectId, e);
    }
    return e;
  }

  /** A fresh connection for reads (queries run concurrently on their own connections). */
  async read<T>(projectId: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const e = await this.entry(projectId);
    const c = e.idle.pop() ?? (await e.instance.connect());
    let clean = false;
    try {
      const out = await fn(c);
      clean = true;
      return out;
    } finally {
      // Only a connection whose work ended normally is reused (not one interrupted or failed).
      if (clean && e.idle.length < IDLE_READERS && this.entries.has(projectId)) e.idle.push(c);
      else c.closeSync();
    }
  }

  /** Runs `fn` when every earlier write of this project has finished. */
  async write<T>(projectId: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const e = await this.entry(projectId);
    const run = e.writes.then(async () => {
      const c = await e.instance.connect();
      try {
        return await fn(c);
      } finally {
        c.closeSync();
      }
    });
    e.writes = run.catch(() => undefined);
    return run;
  }

  /** Closes the project's database (before its folder is deleted). */
  async close(projectId: string): Promise<void> {
    const e = this.entries.get(projectId);
    if (!e) return;
    this.entries.delete(projectId);
    try {
      const entry = await e;
      await entry.writes;
      for (const c of entry.idle.splice(0)) c.closeSync();
      entry.instance.closeSync();
    } catch {
      // never opened: nothing to close
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((p) => this.close(p)));
  }
}

/** A DuckDB identifier, quoted. Identifiers only ever come from validated model ids. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * A file path as a DuckDB string literal naming exactly that file. DuckDB's readers take
 * `*`, `?` and `[` in a path as a glob (`/in/report[1].csv` would read `/in/report1.csv`), so
 * each becomes a one-character class: `[*]`, `[?]`, `[[]`.
 */
export const fileLit = (file: string): string =>
  `'${file.replace(/[*?[]/g, (c) => `[${c}]`).replace(/'/g, "''")}'`;

/** The table holding a dataset's rows. */
export const datasetTable = (cluster: string): string => ident(`ds_${cluster}`);
