// The project's file tree as storage reads it: where it is on disk, what a storage path is
// (a regular file or folder reached through folders only, never a link), listing and reading.
// Storage (storage.ts) adds the writes.
import { constants as fsConstants, type Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { forbidden, invalid, notFound } from '../errors.js';
import { fileIdOf, joinPath, nameOf, normalizeStoragePath } from './paths.js';

import type { StorageItem } from '../../contract/storage.js';

export class StorageTree {
  constructor(private readonly projectDir: (projectId: string) => string) {}

  root(projectId: string): string {
    return path.join(this.projectDir(projectId), 'files');
  }

  /** The project's folder for temporary files of writes in progress (temp-files.ts). */
  tmpDir(projectId: string): string {
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
}

/** A regular file or a folder: what storage holds. */
export function isPlain(st: Stats): boolean {
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

export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
