// Project files as every front door (REST, WebDAV, uploads' callers) sees them: each call
// takes the caller's ProjectActor and checks their right to the files itself, before it looks
// at anything, so no door can forget. Changes are made in the caller's name. The raw store
// underneath (storage.ts, project ids, no rights) is the engine's own: loads, packages,
// prescriptions, upload assembly, sweeps and the storageBytes count use it directly.
import type { Readable } from 'node:stream';
import type { ProjectActor } from '../access/actor.js';
import { requireStorageAccess } from './access.js';
import type { DavProps, DeadProp, PropOp } from './dav-props.js';
import { normalizeStoragePath } from './paths.js';
import type { Storage, StorageItem, WriteOptions } from './storage.js';

export type { DeadProp, PropOp } from './dav-props.js';
export type { StorageItem } from './storage.js';

/** How a file is written; who wrote it is always the caller. */
export type FileWriteOptions = Omit<WriteOptions, 'user'>;

export class ProjectFiles {
  constructor(
    private readonly store: Storage,
    private readonly props: DavProps,
  ) {}

  /**
   * 403 unless the actor may use the project's files (MD Admin; Admins hold every level).
   * Every method below checks it; a door that keeps state of its own about files (WebDAV
   * locks) or wants to refuse before reading a request body asks here.
   */
  authorize(a: ProjectActor): void {
    requireStorageAccess(a);
  }

  /** The file or folder at a path, or null. */
  async stat(a: ProjectActor, path: string): Promise<StorageItem | null> {
    this.authorize(a);
    return this.store.stat(a.projectId, path);
  }

  /** The file or folder at a path; 404 when there is none. */
  async require(a: ProjectActor, path: string): Promise<StorageItem> {
    this.authorize(a);
    return this.store.require(a.projectId, path);
  }

  /** A folder and its children (a file: itself, no children); `withStats`: sizes and counts. */
  async list(
    a: ProjectActor,
    path: string,
    opts: { withStats?: boolean } = {},
  ): Promise<{ item: StorageItem; children: StorageItem[] }> {
    this.authorize(a);
    return this.store.list(a.projectId, path, opts);
  }

  async mkdir(
    a: ProjectActor,
    path: string,
    opts: { parents?: boolean } = {},
  ): Promise<StorageItem> {
    this.authorize(a);
    return this.store.mkdir(a.projectId, path, { ...opts, user: a.email });
  }

  /**
   * Writes a file atomically from a stream, within the plan's storage limit. The source is
   * borrowed, never destroyed (see Storage.writeFile); a refused caller's is not touched.
   */
  async writeFile(
    a: ProjectActor,
    path: string,
    source: Readable | Buffer,
    opts: FileWriteOptions = {},
  ): Promise<{ item: StorageItem; created: boolean }> {
    this.authorize(a);
    return this.store.writeFile(a.projectId, path, source, { ...opts, user: a.email });
  }

  /** A file's bytes (or one range of them); links are never followed. */
  async readStream(
    a: ProjectActor,
    path: string,
    range?: { start: number; end: number },
  ): Promise<{ item: StorageItem; stream: Readable }> {
    this.authorize(a);
    return this.store.readStream(a.projectId, path, range);
  }

  /** Deletes a file, or a folder with everything in it (its dead properties too). */
  async remove(a: ProjectActor, path: string): Promise<StorageItem> {
    this.authorize(a);
    return this.store.remove(a.projectId, path, { user: a.email });
  }

  /** Moves or renames; dead properties move along. */
  async move(
    a: ProjectActor,
    from: string,
    to: string,
    opts: { overwrite?: boolean } = {},
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    this.authorize(a);
    return this.store.move(a.projectId, from, to, { ...opts, user: a.email });
  }

  /**
   * Copies a file or a folder (`recursive: false`: the folder alone) with its dead
   * properties, and those of what it copies.
   */
  async copy(
    a: ProjectActor,
    from: string,
    to: string,
    opts: { overwrite?: boolean; recursive?: boolean } = {},
  ): Promise<{ item: StorageItem; replaced: boolean }> {
    this.authorize(a);
    const r = await this.store.copy(a.projectId, from, to, { ...opts, user: a.email });
    await this.props.copyTree(a.projectId, normalizeStoragePath(from), r.item.path, {
      shallow: opts.recursive === false,
    });
    return r;
  }

  /** The dead properties (WebDAV PROPPATCH) of a file or folder. */
  deadProps(a: ProjectActor, path: string): Promise<DeadProp[]> {
    this.authorize(a);
    return this.props.list(a.projectId, path);
  }

  /** Sets and removes dead properties in order, all or nothing. */
  async patchProps(a: ProjectActor, path: string, ops: PropOp[]): Promise<void> {
    this.authorize(a);
    await this.props.patch(a.projectId, path, ops);
  }
}
