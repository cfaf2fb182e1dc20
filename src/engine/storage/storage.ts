// Project file storage: one folder per project under the data directory. Every write is
// atomic (a temporary file in the project's tmp folder, then rename), counts toward the
// plan's storageBytes limit, and is announced to change listeners (flows' WebDAV triggers).
// A full disk is an 'insufficient_storage' error, with the temporary file removed.
//
// This file holds the store's writes, quota and change hook; reads are in storage-tree.ts,
// moves and copies in move-copy.ts, the storageBytes count in quota.ts.
import fs from 'node:fs/promises';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { asDiskFull } from '../disk-full.js';
import { conflict, invalid } from '../errors.js';
import type { Limits } from '../limits/limits.js';
import { borrow } from './borrowed-stream.js';
import type { ChangeListener, StorageChange } from './changes.js';
import { copyItem, moveItem, type MoveContext } from './move-copy.js';
import { newFileStream } from './new-file-stream.js';
import { normalizeStoragePath, parentOf } from './paths.js';
import { overLimit, quotaOf, sweepTemporary } from './quota.js';
import { StorageTree } from './storage-tree.js';
import { holdTemp } from './temp-files.js';

import type { StorageItem } from '../../contract/storage.js';

export type { StorageItem };
export type { ChangeKind, ChangeListener, StorageChange } from './changes.js';

export interface WriteOptions {
  /** Known size (Content-Length): an upload too big for the plan is refused before it starts. */
  expectedSize?: number;
  user?: string | null;
  /** The job writing it (a flow run's output): triggers the change fires are chained to it. */
  job?: string;
  createParents?: boolean;
  /** Awaited when the data is on disk, before it is visible; a rejection discards it. */
  confirm?: () => Promise<void>;
}

export class Storage extends StorageTree {
  private listeners: ChangeListener[] = [];

  /** What move-copy.ts needs of this store. */
  private readonly moves: MoveContext = {
    tree: this,
    quota: (projectId) => this.quota(projectId),
    emit: (change) => this.emit(change),
  };

  constructor(
    projectDir: (projectId: string) => string,
    private readonly limits: Limits,
  ) {
    super(projectDir);
  }

  /** The hook point for "a file changed in storage", whichever door it came through. */
  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  private async emit(change: StorageChange): Promise<void> {
    for (const l of this.listeners) {
      try {
        await l(change);
      } catch {
        // A listener's failure (e.g. a trigger that cannot start) must not undo the write.
      }
    }
  }

  async mkdir(
    projectId: string,
    rawPath: string,
    opts: { parents?: boolean; user?: string | null } = {},
  ): Promise<StorageItem> {
    const p = normalizeStoragePath(rawPath);
    if (p === '/') throw conflict('the root folder already exists', { path: p });
    await this.ensureRoot(projectId);
    if (await this.stat(projectId, p)) throw conflict(`"${p}" already exists`, { path: p });
    const parent = await this.stat(projectId, parentOf(p));
    if (!parent && !opts.parents)
      throw conflict(`parent folder "${parentOf(p)}" does not exist`, { path: p });
    await this.assertFolderPath(projectId, parentOf(p), p);
    await fs.mkdir(this.abs(projectId, p), { recursive: true }).catch((err: unknown) => {
      throw asDiskFull(err);
    });
    await this.emit({
      projectId,
      path: p,
      kind: 'created',
      type: 'folder',
      user: opts.user ?? null,
    });
    return (await this.stat(projectId, p))!;
  }

  /**
   * Writes a file atomically from a stream. `expectedSize` (e.g. Content-Length) lets the
   * plan limit refuse before a byte is written; the running count refuses the rest. The
   * source is borrowed, never destroyed: a request can still be answered after a refusal.
   * `confirm` runs once the data is on disk, before it becomes visible: a rejection
   * discards the write (a request whose body turned out wrong after the file part).
   */
  async writeFile(
    projectId: string,
    rawPath: string,
    source: Readable | Buffer,
    opts: WriteOptions = {},
  ): Promise<{ item: StorageItem; created: boolean }> {
    // Borrowed before the first await, so a source that fails meanwhile is listened to.
    const input = borrow(source);
    try {
      return await this.writeFrom(projectId, rawPath, input, opts);
    } finally {
      input.destroy(); // refused before reading: lets go of the source
    }
  }

  private async writeFrom(
    projectId: string,
    rawPath: string,
    input: Readable,
    opts: WriteOptions,
  ): Promise<{ item: StorageItem; created: boolean }> {
    const p = normalizeStoragePath(rawPath);
    if (p === '/') throw invalid('cannot write a file at the root path "/"');
    await this.ensureRoot(projectId);
    const existing = await this.stat(projectId, p);
    if (existing?.type === 'folder') throw conflict(`"${p}" is a folder`, { path: p });
    const parent = await this.stat(projectId, parentOf(p));
    if (!parent && !opts.createParents)
      throw conflict(`parent folder "${parentOf(p)}" does not exist`, { path: p });
    await this.assertFolderPath(projectId, parentOf(p), p);
    if (!parent)
      await fs
        .mkdir(this.abs(projectId, parentOf(p)), { recursive: true })
        .catch((err: unknown) => {
          throw asDiskFull(err);
        });

    const quota = await this.quota(projectId);
    const allowed = Math.max(0, quota.limit - quota.used + (existing?.size ?? 0));
    if (opts.expectedSize !== undefined && opts.expectedSize > allowed)
      throw overLimit(quota, opts.expectedSize);
    const { file: tmp, release } = holdTemp(this.tmpDir(projectId), 'part');
    let written = 0;
    const counter = new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        written += chunk.length;
        cb(written > allowed ? overLimit(quota, written) : null, chunk);
      },
    });
    try {
      await pipeline(input, counter, await newFileStream(tmp));
      const fh = await fs.open(tmp, 'r');
      await fh.sync(); // the data is on disk before the rename makes it visible
      await fh.close();
      await opts.confirm?.();
      await fs.rename(tmp, this.abs(projectId, p));
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw asDiskFull(err);
    } finally {
      release();
    }
    const item = (await this.stat(projectId, p))!;
    await this.emit({
      projectId,
      path: p,
      kind: existing ? 'updated' : 'created',
      type: 'file',
      user: opts.user ?? null,
      ...(opts.job ? { job: opts.job } : {}),
    });
    return { item, created: !existing };
  }

  /** Every existing ancestor of `dir` (and `dir` itself) must be a folder, never a file. */
  private async assertFolderPath(projectId: string, dir: string, target: string): Promise<void> {
    for (let d = dir; ; d = parentOf(d)) {
      const st = await this.stat(projectId, d);
      if (st && st.type !== 'folder')
        throw conflict(`"${d}" is a file, not a folder`, { path: target });
      if (d === '/') return;
    }
  }

  /** The plan's storage limit and what the project uses now, temporary files too (quota.ts). */
  async quota(projectId: string): Promise<{ limit: number; used: number }> {
    return quotaOf(this, this.limits, projectId);
  }

  /** Removes what killed writers left in the tmp folder; how many (quota.ts). */
  async sweepTemporary(projectId: string): Promise<number> {
    return sweepTemporary(this, projectId);
  }

  async remove(
    projectId: string,
    rawPath: string,
    opts: { user?: string | null } = {},
  ): Promise<StorageItem> {
    const item = await this.require(projectId, rawPath);
    if (item.path === '/') throw invalid('the root folder cannot be deleted');
    // Rename away first so the path disappears at once, then delete at leisure.
    const { file: trash, release } = holdTemp(this.tmpDir(projectId), 'deleted');
    try {
      await fs.rename(this.abs(projectId, item.path), trash);
      await fs.rm(trash, { recursive: true, force: true });
    } finally {
      release();
    }
    await this.emit({
      projectId,
      path: item.path,
      kind: 'deleted',
      type: item.type,
      user: opts.user ?? null,
    });
    return item;
  }

  async move(
    projectId: string,
    rawFrom: string,
    rawTo: string,
    opts: { overwrite?: boolean; user?: string | null } = {},
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    return moveItem(this.moves, projectId, rawFrom, rawTo, opts);
  }

  async copy(
    projectId: string,
    rawFrom: string,
    rawTo: string,
    opts: { overwrite?: boolean; recursive?: boolean; user?: string | null } = {},
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    return copyItem(this.moves, projectId, rawFrom, rawTo, opts);
  }
}
