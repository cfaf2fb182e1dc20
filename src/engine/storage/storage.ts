// Project file storage: one folder per project under the data directory. Every write is
// atomic (a temporary file in the project's tmp folder, then rename), counts toward the
// plan's storageBytes limit, and is announced to change listeners (flows' WebDAV triggers).
// A full disk is an 'insufficient_storage' error, with the temporary file removed.
import { constants as fsConstants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { asDiskFull } from '../disk-full.js';
import { conflict, forbidden, invalid, limitExceeded, notFound } from '../errors.js';
import type { Limits } from '../limits/limits.js';
import { borrow } from './borrowed-stream.js';
import { newFileStream } from './new-file-stream.js';
import { fileIdOf, isWithin, joinPath, nameOf, normalizeStoragePath, parentOf } from './paths.js';
import { abandoned, holdTemp } from './temp-files.js';

import type { StorageItem } from '../../contract/storage.js';

export type { StorageItem };

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

export type ChangeKind = 'created' | 'updated' | 'deleted' | 'moved' | 'copied';

export interface StorageChange {
  projectId: string;
  path: string;
  kind: ChangeKind;
  type: 'file' | 'folder';
  /** For moves and copies: where it came from. */
  from?: string;
  user: string | null;
  /** The job that wrote it, when a job did (WriteOptions.job). */
  job?: string;
}

export type ChangeListener = (change: StorageChange) => void | Promise<void>;

export class Storage {
  private listeners: ChangeListener[] = [];

  constructor(
    private readonly projectDir: (projectId: string) => string,
    private readonly limits: Limits,
  ) {}

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

  root(projectId: string): string {
    return path.join(this.projectDir(projectId), 'files');
  }

  private tmpDir(projectId: string): string {
    return path.join(this.projectDir(projectId), 'tmp');
  }

  /** Absolute file-system path of a storage path (already normalized). */
  abs(projectId: string, p: string): string {
    const root = this.root(projectId);
    const full = path.join(root, ...p.split('/').filter(Boolean));
    if (full !== root && !full.startsWith(root + path.sep))
      throw invalid(`invalid storage path "${p}"`);
    return full;
  }

  async ensureRoot(projectId: string): Promise<void> {
    await fs.mkdir(this.root(projectId), { recursive: true });
    await fs.mkdir(this.tmpDir(projectId), { recursive: true });
  }

  async stat(projectId: string, rawPath: string): Promise<StorageItem | null> {
    const p = normalizeStoragePath(rawPath);
    await this.ensureRoot(projectId);
    const st = await this.lstatPlain(projectId, p);
    return st ? toItem(p, st) : null;
  }

  /**
   * lstat of a storage path, part by part below the root: null when missing. A symbolic
   * link (or a device, FIFO, socket) anywhere on the way is refused, never followed: it
   * could lead outside the project's folder. The root itself is the operator's to place.
   */
  private async lstatPlain(projectId: string, p: string): Promise<Stats | null> {
    let full = this.root(projectId);
    let st = await fs.stat(full);
    let sofar = '';
    for (const seg of p.split('/').filter(Boolean)) {
      full = path.join(full, seg);
      sofar = `${sofar}/${seg}`;
      try {
        st = await fs.lstat(full);
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
      if (!isPlain(st)) throw refusedEntry(sofar, p, st);
    }
    return st;
  }

  /**
   * The file-system path of a stored file for a reader outside storage (a data load): a
   * regular file reached through folders only (no links).
   */
  async localFile(projectId: string, rawPath: string): Promise<string> {
    const item = await this.require(projectId, rawPath);
    if (item.type !== 'file')
      throw invalid(`"${item.path}" is a folder, not a file`, { path: item.path });
    return this.abs(projectId, item.path);
  }

  async require(projectId: string, rawPath: string): Promise<StorageItem> {
    const item = await this.stat(projectId, rawPath);
    if (!item)
      throw notFound(`no file or folder at "${normalizeStoragePath(rawPath)}"`, {
        path: normalizeStoragePath(rawPath),
      });
    return item;
  }

  async list(
    projectId: string,
    rawPath: string,
    opts: { withStats?: boolean } = {},
  ): Promise<{ item: StorageItem; children: StorageItem[] }> {
    const item = await this.require(projectId, rawPath);
    if (item.type !== 'folder') return { item, children: [] };
    const entries = await fs.readdir(this.abs(projectId, item.path), { withFileTypes: true });
    const children: StorageItem[] = [];
    for (const e of entries) {
      if (!e.isFile() && !e.isDirectory()) continue; // links and the like are not storage
      const p = joinPath(item.path, e.name);
      try {
        const st = await fs.lstat(this.abs(projectId, p));
        if (!isPlain(st)) continue; // replaced meanwhile
        const child = toItem(p, st);
        if (opts.withStats && child.type === 'folder')
          Object.assign(child, await this.folderStats(projectId, p));
        children.push(child);
      } catch (err) {
        if (!isMissing(err)) throw err; // removed while listing
      }
    }
    children.sort((a, b) =>
      a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'folder' ? -1 : 1,
    );
    if (opts.withStats) Object.assign(item, await this.folderStats(projectId, item.path));
    return { item, children };
  }

  /** Total bytes and number of entries below a folder. */
  async folderStats(projectId: string, p: string): Promise<{ size: number; items: number }> {
    let size = 0;
    let items = 0;
    const walk = async (dir: string) => {
      for (const e of await fs.readdir(dir, { withFileTypes: true })) {
        items++;
        const full = path.join(dir, e.name);
        // Dirent types are the entries' own: a link is neither, so it is never followed.
        if (e.isDirectory()) await walk(full);
        else if (e.isFile()) size += (await fs.lstat(full)).size;
      }
    };
    await walk(this.abs(projectId, p));
    return { size, items };
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

  /**
   * The plan's storage limit and what the project uses now (walked asynchronously): its
   * files, and the temporary files of writes in progress (concurrent writes count each
   * other). Leftovers of killed writers never count (temp-files.ts).
   */
  async quota(projectId: string): Promise<{ limit: number; used: number }> {
    await this.ensureRoot(projectId);
    const { size } = await this.folderStats(projectId, '/');
    let temporary = 0;
    for (const t of await this.temporaries(projectId))
      if (!abandoned(t.full, t.mtimeMs)) temporary += await bytesOf(t.full);
    return { limit: await this.limits.limitOf(projectId, 'storageBytes'), used: size + temporary };
  }

  /**
   * Removes what killed writers left in the project's tmp folder (temp-files.ts judges which
   * are leftovers), and returns how many it removed.
   */
  async sweepTemporary(projectId: string): Promise<number> {
    let removed = 0;
    for (const t of await this.temporaries(projectId)) {
      if (!abandoned(t.full, t.mtimeMs)) continue;
      await fs.rm(t.full, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  /** The entries of the project's tmp folder with their last change. */
  private async temporaries(projectId: string): Promise<{ full: string; mtimeMs: number }[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.tmpDir(projectId));
    } catch (err) {
      if (isMissing(err)) return [];
      throw err;
    }
    const out: { full: string; mtimeMs: number }[] = [];
    for (const name of names) {
      const full = path.join(this.tmpDir(projectId), name);
      const st = await fs.lstat(full).catch(() => null); // null: finished meanwhile
      if (st) out.push({ full, mtimeMs: st.mtimeMs });
    }
    return out;
  }

  async readStream(
    projectId: string,
    rawPath: string,
    range?: { start: number; end: number },
  ): Promise<{ item: StorageItem; stream: Readable }> {
    const item = await this.require(projectId, rawPath);
    if (item.type !== 'file')
      throw invalid(`"${item.path}" is a folder; only files can be read`, { path: item.path });
    // O_NOFOLLOW: a link put in place since the check above is not followed either.
    const fh = await fs
      .open(this.abs(projectId, item.path), fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW)
      .catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ELOOP') throw refusedEntry(item.path, item.path, 'a symbolic link');
        throw err;
      });
    return { item, stream: fh.createReadStream(range) };
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
    const { from, to, replaced, parked } = await this.prepareTarget(
      projectId,
      rawFrom,
      rawTo,
      opts.overwrite ?? false,
    );
    await this.replacing(projectId, to, parked, () =>
      fs.rename(this.abs(projectId, from.path), this.abs(projectId, to)),
    );
    const item = (await this.stat(projectId, to))!;
    await this.emit({
      projectId,
      path: to,
      kind: 'moved',
      type: item.type,
      from: from.path,
      user: opts.user ?? null,
    });
    return { item, replaced };
  }

  async copy(
    projectId: string,
    rawFrom: string,
    rawTo: string,
    opts: { overwrite?: boolean; recursive?: boolean; user?: string | null } = {},
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    const to = normalizeStoragePath(rawTo);
    const from = await this.require(projectId, rawFrom);
    const sizeOf = async (item: StorageItem | null) =>
      !item
        ? 0
        : item.type === 'folder'
          ? (await this.folderStats(projectId, item.path)).size
          : item.size;
    const size = await sizeOf(from);
    const replacing = opts.overwrite ? await sizeOf(await this.stat(projectId, to)) : 0;
    const quota = await this.quota(projectId);
    if (size > Math.max(0, quota.limit - quota.used + replacing)) throw overLimit(quota, size);
    const { file: staged, release } = holdTemp(this.tmpDir(projectId), 'copy');
    try {
      return await this.copyVia(staged, projectId, from, rawFrom, rawTo, opts);
    } catch (err) {
      throw asDiskFull(err);
    } finally {
      release();
    }
  }

  private async copyVia(
    staged: string,
    projectId: string,
    from: StorageItem,
    rawFrom: string,
    rawTo: string,
    opts: { overwrite?: boolean; recursive?: boolean; user?: string | null },
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    const to = normalizeStoragePath(rawTo);
    try {
      if (from.type === 'folder' && opts.recursive === false) await fs.mkdir(staged);
      else
        await fs.cp(this.abs(projectId, from.path), staged, {
          recursive: true,
          errorOnExist: true,
          // Links (and devices, FIFOs) inside a copied folder are left out, not copied.
          filter: async (src) => isPlain(await fs.lstat(src)),
        });
    } catch (err) {
      await fs.rm(staged, { recursive: true, force: true });
      throw err;
    }
    let target: Awaited<ReturnType<Storage['prepareTarget']>>;
    try {
      target = await this.prepareTarget(projectId, rawFrom, rawTo, opts.overwrite ?? false);
      await this.replacing(projectId, target.to, target.parked, () =>
        fs.rename(staged, this.abs(projectId, target.to)),
      );
    } catch (err) {
      await fs.rm(staged, { recursive: true, force: true });
      throw err;
    }
    const { replaced } = target;
    const item = (await this.stat(projectId, to))!;
    await this.emit({
      projectId,
      path: to,
      kind: 'copied',
      type: item.type,
      from: from.path,
      user: opts.user ?? null,
    });
    return { item, replaced };
  }

  /** Checks a move/copy target; removes what it replaces when overwriting is allowed. */
  private async prepareTarget(
    projectId: string,
    rawFrom: string,
    rawTo: string,
    overwrite: boolean,
  ) {
    // Both paths are validated before either is looked up: bad input is a 400, not a 404.
    const to = normalizeStoragePath(rawTo);
    const from = await this.require(projectId, rawFrom);
    if (from.path === '/') throw invalid('the root folder cannot be moved or copied');
    if (to === '/') throw conflict('the target cannot be the root folder', { target: to });
    if (isWithin(to, from.path))
      throw conflict(`cannot put "${from.path}" inside itself ("${to}")`, {
        source: from.path,
        target: to,
      });
    if (isWithin(from.path, to))
      throw conflict(`cannot replace "${to}": it contains the source "${from.path}"`, {
        source: from.path,
        target: to,
      });
    const parent = await this.stat(projectId, parentOf(to));
    if (!parent || parent.type !== 'folder')
      throw conflict(`target folder "${parentOf(to)}" does not exist`, { target: to });
    const existing = await this.stat(projectId, to);
    let parked: { file: string; release: () => void } | null = null;
    if (existing) {
      if (!overwrite) throw conflict(`"${to}" already exists`, { target: to });
      parked = holdTemp(this.tmpDir(projectId), 'replaced');
      try {
        await fs.rename(this.abs(projectId, to), parked.file);
      } catch (err) {
        parked.release();
        throw err;
      }
    }
    return { from, to, replaced: Boolean(existing), parked };
  }

  /** Runs `op` with the replaced item parked aside: discarded on success, put back on failure. */
  private async replacing(
    projectId: string,
    to: string,
    parked: { file: string; release: () => void } | null,
    op: () => Promise<void>,
  ): Promise<void> {
    try {
      await op();
      if (parked) await fs.rm(parked.file, { recursive: true, force: true });
    } catch (err) {
      if (parked) await fs.rename(parked.file, this.abs(projectId, to)).catch(() => undefined);
      throw err;
    } finally {
      parked?.release();
    }
  }
}

/** A regular file or a folder: what storage holds. */
function isPlain(st: Stats): boolean {
  return st.isFile() || st.isDirectory();
}

function refusedEntry(at: string, p: string, st: Stats | 'a symbolic link') {
  const what =
    st === 'a symbolic link' || st.isSymbolicLink()
      ? 'a symbolic link'
      : 'neither a file nor a folder';
  const where = at === p ? `"${p}"` : `"${at}" (on the way to "${p}")`;
  return forbidden(
    `${where} is ${what}; storage never follows links or opens special files (remove it on the server)`,
    { path: p, refused: at },
  );
}

function toItem(p: string, st: Stats): StorageItem {
  return {
    fileId: fileIdOf(p),
    name: p === '/' ? '' : nameOf(p),
    path: p,
    type: st.isDirectory() ? 'folder' : 'file',
    size: st.isDirectory() ? 0 : st.size,
    modified: st.mtime.toISOString(),
  };
}

function overLimit(q: { limit: number; used: number }, requested: number) {
  return limitExceeded(
    `plan limit "storageBytes" exceeded: ${q.used} used + ${requested} requested > ${q.limit} allowed`,
    { limit: 'storageBytes', allowed: q.limit, used: q.used, requested },
  );
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Bytes of a regular file, or of the regular files below a folder (0 when it is gone: a
 * write that finished meanwhile); links not followed.
 */
async function bytesOf(full: string): Promise<number> {
  const st = await fs.lstat(full).catch((err: unknown) => {
    if (isMissing(err)) return null;
    throw err;
  });
  if (!st) return 0;
  if (st.isFile()) return st.size;
  if (!st.isDirectory()) return 0;
  let size = 0;
  for (const name of await fs.readdir(full).catch(() => [] as string[]))
    size += await bytesOf(path.join(full, name));
  return size;
}
