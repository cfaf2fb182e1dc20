// A project's data is immutable dataset versions (SCALE.md, "Data"): files under
// projects/<id>/datasets/<cluster>/<version>.duckdb, published in the metadata (versions.ts).
// Reads attach the current versions READ_ONLY to the project's in-memory DuckDB (cached per
// version) and see one consistent set of them for their whole run; a connection's search path
// names that set, so `datasetTable(name)` means the version the read started with. Writes
// (write-lock.ts, version-writer.ts) never block reads: they publish new files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { KeyedLock } from '../keyed-lock.js';
import type { DatasetVersion, VersionStore } from './versions.js';
import { VersionWriter, type WriteTarget } from './version-writer.js';
import { lit } from './duck-sql.js';

export { datasetTable, fileLit, ident, lit } from './duck-sql.js';
import { WriteLocks } from './write-lock.js';

interface Entry {
  instance: DuckDBInstance;
  /** Read connections that finished cleanly, for the next reads (connecting costs ~0.5 ms). */
  idle: DuckDBConnection[];
  /** Attached versions by id (the promise settles once ATTACH has run). */
  attached: Map<string, Promise<void>>;
  /** Reads running on each attached version. */
  refs: Map<string, number>;
  /** The versions current at the latest read: others are detached once unused. */
  latest: Set<string>;
  /** ATTACH and DETACH, one at a time, on their own connection. */
  admin: KeyedLock;
  adminConn: DuckDBConnection;
}

/** Idle read connections kept per project. */
const IDLE_READERS = 4;
/** A process records reading a version at most this often (ms; a third of a shorter grace period). */
const TOUCH_MS = 10_000;

/** What a write does with its new versions: publish them (all at once) when they are checked. */
export interface VersionWrite {
  readonly writer: VersionWriter;
  /** Publishes the versions `writer.finish()` answered, together (the lock must still be held). */
  publish(versions: DatasetVersion[]): Promise<void>;
}

export class ProjectDatabases {
  private entries = new Map<string, Promise<Entry>>();
  /** Search path last set on each read connection. */
  private paths = new WeakMap<DuckDBConnection, string>();
  /** When this process last recorded reading each version. */
  private touched = new Map<string, number>();
  readonly locks: WriteLocks;
  private readonly touchMs: number;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly projectDir: (projectId: string) => string,
    readonly store: VersionStore,
    graceMs = 300_000,
  ) {
    this.locks = new WriteLocks(store);
    this.touchMs = Math.max(100, Math.min(TOUCH_MS, graceMs / 3));
    // Versions a long read still uses are recorded again, so the collector keeps them.
    this.heartbeat = setInterval(() => this.touchInUse(), this.touchMs);
    this.heartbeat.unref();
  }

  private entry(projectId: string): Promise<Entry> {
    let e = this.entries.get(projectId);
    if (!e) {
      e = (async () => {
        // Spill files of large loads and queries go to the project's folder, not the cwd.
        const instance = await DuckDBInstance.create(':memory:', {
          threads: '2',
          temp_directory: path.join(this.projectDir(projectId), 'datasets', '.spill'),
        });
        return {
          instance,
          idle: [],
          attached: new Map(),
          refs: new Map(),
          latest: new Set<string>(),
          admin: new KeyedLock(),
          adminConn: await instance.connect(),
        };
      })();
      // A failed open must be retried next time, not cached.
      e.catch(() => this.entries.delete(projectId));
      this.entries.set(projectId, e);
    }
    return e;
  }

  private admin(e: Entry, sql: string): Promise<void> {
    return e.admin.run('admin', async () => void (await e.adminConn.run(sql)));
  }

  /**
   * A connection for reads that sees the project's current versions, as they were when the
   * read started, until it ends (queries run concurrently on their own connections).
   */
  async read<T>(projectId: string, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const versions = await this.store.current(projectId);
    const e = await this.entry(projectId);
    const ids = versions.map((v) => v.id).sort();
    // Counted before any await: a version in use is never detached under a read.
    for (const id of ids) e.refs.set(id, (e.refs.get(id) ?? 0) + 1);
    e.latest = new Set(ids);
    let c: DuckDBConnection | undefined;
    let clean = false;
    try {
      await Promise.all(versions.map((v) => this.attach(e, projectId, v)));
      this.touch(ids);
      c = e.idle.pop() ?? (await e.instance.connect());
      const searchPath = ids.length
        ? ids.map((id) => `${alias(id)}.main`).join(',')
        : 'memory.main';
      if (this.paths.get(c) !== searchPath) {
        await c.run(`SET search_path = ${lit(searchPath)}`);
        this.paths.set(c, searchPath);
      }
      const out = await fn(c);
      clean = true;
      return out;
    } finally {
      // Only a connection whose work ended normally is reused (not one interrupted or failed).
      if (c) {
        if (clean && e.idle.length < IDLE_READERS && this.entries.has(projectId)) e.idle.push(c);
        else c.closeSync();
      }
      for (const id of ids) {
        const n = e.refs.get(id)! - 1;
        if (n) e.refs.set(id, n);
        else e.refs.delete(id);
      }
      this.detachUnused(e);
    }
  }

  private attach(e: Entry, projectId: string, v: DatasetVersion): Promise<void> {
    let a = e.attached.get(v.id);
    if (!a) {
      const file = path.join(this.projectDir(projectId), v.file);
      a = this.admin(e, `ATTACH IF NOT EXISTS ${lit(file)} AS ${alias(v.id)} (READ_ONLY)`);
      a.catch(() => e.attached.delete(v.id));
      e.attached.set(v.id, a);
    }
    return a;
  }

  /** Detaches superseded versions no read of this process uses any more. */
  private detachUnused(e: Entry): void {
    for (const id of e.attached.keys()) {
      if (e.latest.has(id) || e.refs.has(id)) continue;
      e.attached.delete(id);
      this.touched.delete(id);
      void this.admin(e, `DETACH DATABASE IF EXISTS ${alias(id)}`).catch(() => undefined);
    }
  }

  private touchInUse(): void {
    for (const e of this.entries.values())
      void e.then(
        (entry) => this.touch([...entry.refs.keys()]),
        () => undefined,
      );
  }

  /** Records reads in the metadata, at most once per touchMs per version and process. */
  private touch(ids: string[]): void {
    const now = Date.now();
    const due = ids.filter((id) => (this.touched.get(id) ?? 0) + this.touchMs <= now);
    if (!due.length) return;
    for (const id of due) this.touched.set(id, now);
    this.store.touch(due).catch(() => {
      for (const id of due) this.touched.delete(id); // retried by the next read
    });
  }

  /**
   * Runs `fn` as the project's only writer (across processes): it writes new versions with
   * `w.writer` and publishes them with `w.publish`; whatever it wrote and did not publish is
   * removed when it ends.
   */
  async write<T>(
    projectId: string,
    targets: WriteTarget[],
    signal: AbortSignal | undefined,
    fn: (w: VersionWrite, c: DuckDBConnection) => Promise<T>,
  ): Promise<T> {
    return this.locks.with(projectId, signal, async (confirm) => {
      const writer = new VersionWriter(
        (await this.entry(projectId)).instance,
        this.projectDir(projectId),
        await this.store.current(projectId),
      );
      let published = false;
      try {
        const c = await writer.open(targets);
        return await fn(
          {
            writer,
            publish: async (versions) => {
              await confirm();
              await this.store.addPending(projectId, versions);
              await this.store.publish(
                projectId,
                versions.map((v) => v.id),
              );
              published = true;
            },
          },
          c,
        );
      } finally {
        // Pending rows of a publish that failed half-way are collected with their files.
        if (!published) await writer.discard();
      }
    });
  }

  /**
   * Deletes superseded versions no process has read for `graceMs`, and versions a dead
   * writer left unpublished; returns how many files were removed.
   */
  async collect(graceMs: number): Promise<number> {
    const before = new Date(Date.now() - graceMs).toISOString();
    const gone = await this.store.collectable(before);
    for (const v of gone) {
      const file = path.join(this.projectDir(v.projectId), v.file);
      await fs.rm(file, { force: true });
      await fs.rm(`${file}.wal`, { force: true });
    }
    await this.store.forget(gone.map((v) => v.id));
    return gone.length;
  }

  /**
   * Removes files in the project's `datasets/` that no version names (a writer killed before
   * it published) when no one writes the project.
   */
  async sweepOrphans(projectId: string): Promise<number> {
    const root = path.join(this.projectDir(projectId), 'datasets');
    const found: string[] = [];
    for (const cluster of await fs.readdir(root).catch(() => [] as string[])) {
      if (cluster.startsWith('.')) continue;
      for (const f of await fs.readdir(path.join(root, cluster)).catch(() => [] as string[]))
        found.push(`datasets/${cluster}/${f}`);
    }
    if (!found.length || (await this.store.locked(projectId))) return 0;
    // Read after the lock: a version published by a writer that just finished is known here.
    const known = await this.store.files(projectId);
    let removed = 0;
    for (const f of found) {
      if (known.has(f.replace(/\.wal$/, ''))) continue;
      await fs.rm(path.join(this.projectDir(projectId), f), { force: true });
      removed++;
    }
    return removed;
  }

  /** Closes the project's database (before its folder is deleted). */
  async close(projectId: string): Promise<void> {
    const e = this.entries.get(projectId);
    if (!e) return;
    this.entries.delete(projectId);
    try {
      const entry = await e;
      // After the ATTACH and DETACH already asked for.
      await entry.admin.run('admin', () => {
        for (const c of entry.idle.splice(0)) c.closeSync();
        entry.adminConn.closeSync();
        entry.instance.closeSync();
      });
    } catch {
      // never opened: nothing to close
    }
  }

  async closeAll(): Promise<void> {
    clearInterval(this.heartbeat);
    await Promise.all([...this.entries.keys()].map((p) => this.close(p)));
  }
}

/** A version's attachment name in a read instance. */
const alias = (versionId: string): string => `v_${versionId}`;
