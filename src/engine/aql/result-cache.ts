// Query results, stored per (SQL, bound values, data version, model version) as JSON files in
// the project's results/ folder: the files are the record every process of a cluster reads
// (and the sweep deletes when unread); the maps here only save work. How long a result is
// served is its backend's (QueryBackend.resultTtlMs).
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { Warning } from './member-hints.js';

export interface QueryResult {
  columns: { title: string; kind: string; dataType: string }[];
  rows: string[][];
  /** Why a 0-row answer may be empty: text values in WHERE that match no member. */
  warnings?: Warning[];
}

export interface CacheEntry {
  key: string;
  file: string;
  rowCount: number;
  /** When it was computed. */
  at: number;
  /** Served for this long after `at`, by this process only; null: while its file is stored. */
  ttlMs: number | null;
  /** When this process last saw its file stored (wrote, read or touched it). */
  seenAt: number;
}

/** Results up to this size are written without leaving the event loop (~0.1 ms). */
const SYNC_WRITE_BYTES = 64 * 1024;
/** Cells of recent results kept in memory (about a few MB). */
const RECENT_CELLS = 200_000;
/** Results whose whereabouts are remembered (a small record each). */
const MEMO_ENTRIES = 20_000;
/**
 * A file this process saw stored this recently is still stored: the sweep removes results
 * only when unread for the retention (URSA_RESULT_TTL_HOURS), so checking again within a
 * second costs a system call (two, with the touch) per answer and tells nothing new.
 */
const SEEN_MS = 1_000;

export class ResultCache {
  private memo = new LRUCache<string, CacheEntry>({ max: MEMO_ENTRIES });
  /** Results older than this (epoch ms) count as not stored (clear). */
  private forgottenBefore = 0;
  /** Result directories known to exist (a mkdir per query costs more than the write). */
  private dirs = new Set<string>();
  /**
   * The latest results, in memory as well as in their files: the answer a waiting caller
   * reads right after its job ends, and repeats, skip reading the file back. The files stay
   * the record (other processes and restarts read those); this only saves work.
   */
  private recent = new Map<string, QueryResult>();
  private recentCells = 0;

  constructor(private readonly projectDir: (projectId: string) => string) {}

  file(projectId: string, key: string): string {
    return path.join(this.projectDir(projectId), 'results', `${key}.json`);
  }

  /**
   * The stored result of `key`, if any. Another process of a cluster may have computed it:
   * the result files in the shared data directory are the index, this map only its memory.
   * A result with a lifetime (`ttlMs`, a warehouse's: its data changes outside Ursa) is served
   * for that long only, and only by the process that computed it (it knows when).
   */
  async cached(projectId: string, key: string, ttlMs: number | null): Promise<CacheEntry | null> {
    const k = `${projectId}/${key}`;
    const hit = this.memo.get(k);
    if (hit) {
      if (hit.ttlMs !== null && Date.now() - hit.at >= hit.ttlMs) return null;
      return hit;
    }
    if (ttlMs !== null) return null;
    const file = this.file(projectId, key);
    try {
      // Synchronous, without an error when absent: a miss (every new query) is one system
      // call, where the thread pool's round trip and an ENOENT error object cost ~0.3 ms.
      const st = fsSync.statSync(file, { throwIfNoEntry: false });
      if (!st || st.mtimeMs < this.forgottenBefore) return null;
      const stored = JSON.parse(await fs.readFile(file, 'utf8')) as QueryResult;
      const entry = {
        key,
        file,
        rowCount: stored.rows.length,
        at: st.mtimeMs,
        ttlMs: null,
        seenAt: Date.now(),
      };
      this.memo.set(k, entry);
      this.remember(k, stored); // its reader comes next
      return entry;
    } catch {
      return null; // not computed yet, or being replaced
    }
  }

  /** Marks a cached result as read now (retention counts from the last read); false if gone. */
  touch(projectId: string, entry: CacheEntry): boolean {
    const now = new Date();
    if (now.getTime() - entry.seenAt < SEEN_MS) return true;
    try {
      fsSync.utimesSync(entry.file, now, now);
      entry.seenAt = now.getTime();
      return true;
    } catch {
      this.memo.delete(`${projectId}/${entry.key}`);
      return false;
    }
  }

  /** A stored result: from memory while its file is still stored, else from the file. */
  async stored(projectId: string, key: string): Promise<QueryResult> {
    const file = this.file(projectId, key);
    // From memory when recent — but only while its file is still stored (a swept result is
    // gone for every process alike).
    const k = `${projectId}/${key}`;
    const mem = this.recent.get(k);
    if (mem) {
      const entry = this.memo.get(k);
      if (entry && Date.now() - entry.seenAt < SEEN_MS) return mem;
      await fs.access(file);
      if (entry) entry.seenAt = Date.now();
      return mem;
    }
    // Computed by another process (or before a restart): kept for the next repeat.
    const stored = JSON.parse(await fs.readFile(file, 'utf8')) as QueryResult;
    this.remember(k, stored);
    return stored;
  }

  /** A result's file, read as it is now (no memory). */
  async read(projectId: string, key: string): Promise<QueryResult> {
    return JSON.parse(await fs.readFile(this.file(projectId, key), 'utf8')) as QueryResult;
  }

  /** Stores a computed result (`tag` names its temporary file: the job or call computing it). */
  async store(
    projectId: string,
    key: string,
    result: QueryResult,
    ttlMs: number | null,
    tag: string,
  ): Promise<void> {
    const file = this.file(projectId, key);
    const dir = path.dirname(file);
    if (!this.dirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true });
      this.dirs.add(dir);
    }
    const tmp = `${file}.${tag}.tmp`;
    const text = JSON.stringify(result);
    // A small result is written synchronously: three trips through the thread pool (open,
    // write, rename) cost more than the write itself, and the answer waits for them.
    const small = text.length <= SYNC_WRITE_BYTES;
    const write = async () => {
      try {
        if (small) {
          fsSync.writeFileSync(tmp, text);
          fsSync.renameSync(tmp, file);
        } else {
          await fs.writeFile(tmp, text);
          await fs.rename(tmp, file);
        }
      } catch (err) {
        await fs.rm(tmp, { force: true }); // a full disk leaves no partial result behind
        throw err;
      }
    };
    try {
      await write();
    } catch (err) {
      // The directory went away (a project deleted and made again): make it once more.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      await fs.mkdir(dir, { recursive: true });
      await write();
    }
    const k = `${projectId}/${key}`;
    const now = Date.now();
    this.memo.set(k, { key, file, rowCount: result.rows.length, at: now, ttlMs, seenAt: now });
    this.remember(k, result);
  }

  /** Forgets which results are stored, so the next run of each computes it (benchmarks). */
  clear(): void {
    this.forgottenBefore = Date.now() + 1;
    this.memo.clear();
    this.recent.clear();
    this.recentCells = 0;
  }

  /**
   * Deletes stored results of these projects not read for `ttlMs` (and temporary files a
   * crash left behind); returns how many files went. Jobs pointing at them answer "run the
   * query again".
   */
  async sweep(projectIds: string[], ttlMs: number, now = Date.now()): Promise<number> {
    let removed = 0;
    for (const projectId of projectIds) {
      const dir = path.join(this.projectDir(projectId), 'results');
      let names: string[];
      try {
        names = await fs.readdir(dir);
      } catch {
        continue; // no results yet
      }
      for (const name of names) {
        const file = path.join(dir, name);
        try {
          const st = await fs.stat(file);
          if (now - st.mtimeMs <= ttlMs) continue;
          await fs.rm(file, { force: true });
          removed++;
          if (name.endsWith('.json')) {
            this.memo.delete(`${projectId}/${name.slice(0, -'.json'.length)}`);
            this.forget(`${projectId}/${name.slice(0, -'.json'.length)}`);
          }
        } catch {
          // gone meanwhile
        }
      }
    }
    return removed;
  }

  private remember(key: string, r: QueryResult): void {
    const cells = r.rows.length * Math.max(1, r.columns.length);
    if (cells > RECENT_CELLS / 4) return; // a big result is read from its file
    this.forget(key);
    this.recent.set(key, r);
    this.recentCells += cells;
    for (const [k] of this.recent) {
      if (this.recentCells <= RECENT_CELLS) break;
      this.forget(k);
    }
  }

  private forget(key: string): void {
    const r = this.recent.get(key);
    if (!r) return;
    this.recent.delete(key);
    this.recentCells -= r.rows.length * Math.max(1, r.columns.length);
  }
}
