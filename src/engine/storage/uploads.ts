// Chunked uploads (the resumable.js protocol): chunks arrive in any order and any number of
// times; when the last missing one is in, the file is assembled exactly once into storage.
// The uploadId is the client's resumableIdentifier (API-DECISIONS "Storage"). Uploads left
// partial expire after the configured time (sweep).
import { and, eq, lt } from 'drizzle-orm';
import type { Readable } from 'node:stream';
import type { ProjectActor } from '../access/actor.js';
import { type Db, first, storeOf, tablesOf, type Tables } from '../db/index.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { assertWithin } from '../limits/limits.js';
import { requireStorageAccess } from './access.js';
import { borrow } from './borrowed-stream.js';
import { KeyedLock } from '../keyed-lock.js';
import { pathOfFileId, parentOf } from './paths.js';
import type { Storage, StorageItem } from './storage.js';
import { ChunkFiles, type ReceivingChunk } from './upload-chunks.js';
import { parseChunkParams, parseWholeParams, type ChunkSpec } from './upload-params.js';

type Row = Tables['uploads']['$inferSelect'];

export type ChunkResult =
  | { uploadId: string; complete: false; received: number; total: number }
  | { uploadId: string; complete: true; file: StorageItem };

export interface TestResult {
  uploadId: string;
  present: boolean;
  received: number;
  total: number;
}

export class Uploads {
  private readonly locks = new KeyedLock();
  private readonly chunks: ChunkFiles;

  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    projectDir: (projectId: string) => string,
    private readonly ttlHours: number,
  ) {
    this.chunks = new ChunkFiles(projectDir);
  }

  /** resumable.js testChunks: is this chunk of this upload already stored? */
  async testChunk(a: ProjectActor, raw: Record<string, unknown>): Promise<TestResult> {
    requireStorageAccess(a);
    const spec = parseChunkParams(raw);
    const row = await this.row(a.projectId, spec.ident);
    const partial = row?.status === 'partial' ? row : null;
    if (partial) sameUpload(partial, spec);
    const size = partial ? await this.chunks.size(a.projectId, spec.ident, spec.chunkNumber) : null;
    return {
      uploadId: spec.ident,
      present: size === spec.expectedBytes,
      received: partial ? await this.chunks.count(a.projectId, spec.ident, spec.totalChunks) : 0,
      total: spec.totalChunks,
    };
  }

  /** Stores one chunk from `source`; assembles the file when it was the last one missing. */
  async putChunk(
    a: ProjectActor,
    raw: Record<string, unknown>,
    source: Readable,
  ): Promise<ChunkResult> {
    requireStorageAccess(a);
    const spec = parseChunkParams(raw);
    // Borrowed before the first await, so a source that fails meanwhile is listened to.
    const input = borrow(source);
    try {
      return await this.receiveChunk(a, spec, input);
    } finally {
      input.destroy(); // refused before reading: lets go of the source
    }
  }

  private async receiveChunk(
    a: ProjectActor,
    spec: ChunkSpec,
    input: Readable,
  ): Promise<ChunkResult> {
    const p = a.projectId;
    // Refuse before a byte is written: a changed upload, a target that cannot be, no room.
    const seen = await this.row(p, spec.ident);
    const startedOn = seen?.status === 'partial' ? seen : null;
    if (startedOn) sameUpload(startedOn, spec);
    else await this.checkNewUpload(p, spec);

    const r = await this.locked(p, spec.ident, () =>
      this.chunks.open(p, spec.ident, spec.chunkNumber),
    );
    try {
      const bytes = await this.chunks.receive(r, input, spec.expectedBytes);
      if (bytes !== spec.expectedBytes)
        throw invalid(
          `chunk ${spec.chunkNumber} of ${spec.totalChunks} holds ${bytes} bytes; it must hold ${spec.expectedBytes}`,
          {
            uploadId: spec.ident,
            chunk: spec.chunkNumber,
            bytes,
            expectedBytes: spec.expectedBytes,
          },
        );
    } catch (err) {
      await this.chunks.discard(r);
      throw err;
    }
    return this.locked(p, spec.ident, (held) => this.settle(a, spec, r, startedOn, held));
  }

  /**
   * A whole file in one request (`curl -F file=@x.csv`): stored at `folder` (default "/")
   * under its own name, atomically and within the plan limit, and answered like a completed
   * chunked upload whose uploadId is the file's fileId.
   */
  async putWhole(
    a: ProjectActor,
    raw: Record<string, unknown>,
    filename: string | undefined,
    source: Readable,
    opts: { confirm?: () => Promise<void> } = {},
  ): Promise<ChunkResult> {
    requireStorageAccess(a);
    const target = parseWholeParams(raw, filename);
    const { item } = await this.storage.writeFile(a.projectId, target, source, {
      user: a.email,
      confirm: opts.confirm,
    });
    return { uploadId: item.fileId, complete: true, file: item };
  }

  /** Under the upload's lock: commit the chunk, and assemble when nothing is missing. */
  private async settle(
    a: ProjectActor,
    spec: ChunkSpec,
    r: ReceivingChunk,
    startedOn: Row | null,
    held: AbortSignal,
  ): Promise<ChunkResult> {
    const p = a.projectId;
    let row = await this.row(p, spec.ident);
    if (startedOn && row?.status === 'complete' && row.created === startedOn.created) {
      // Another request's chunk completed this very upload while ours was on the way.
      await this.chunks.discard(r);
      await this.chunks.removeChunks(p, spec.ident);
      return { uploadId: spec.ident, complete: true, file: await this.assembled(p, row) };
    }
    try {
      held.throwIfAborted();
      if (row?.status === 'partial') sameUpload(row, spec);
      else row = await this.begin(a, spec);
      await this.chunks.commit(p, spec.ident, spec.chunkNumber, r);
    } catch (err) {
      await this.chunks.discard(r);
      throw err;
    }
    await this.touch(p, spec.ident, 'partial');
    const received = await this.chunks.count(p, spec.ident, spec.totalChunks);
    if (received < spec.totalChunks)
      return { uploadId: spec.ident, complete: false, received, total: spec.totalChunks };

    // Whole: the row still says partial and we hold the lock, so this runs once. A failed
    // write (plan limit, target taken by a folder, a full disk) keeps the chunks: any chunk
    // sent again retries the assembly. Storage borrows the stream: it is ours to close, or a
    // refused write would keep a chunk file open.
    const whole = this.chunks.stream(p, spec.ident, spec.totalChunks);
    let item: StorageItem;
    try {
      ({ item } = await this.storage.writeFile(p, row.targetPath, whole, {
        expectedSize: row.totalSize,
        user: a.email,
        createParents: spec.createParents,
        // Lost the lock meanwhile (the database ended its connection): another process may
        // be assembling; this one leaves the file unwritten and the chunks for a retry.
        confirm: () => Promise.resolve(held.throwIfAborted()),
      }));
    } finally {
      whole.destroy();
    }
    await this.touch(p, spec.ident, 'complete');
    await this.chunks.removeChunks(p, spec.ident);
    return { uploadId: spec.ident, complete: true, file: item };
  }

  /** Starts (or restarts, after an earlier completed one) the upload named by spec.ident. */
  private async begin(a: ProjectActor, spec: ChunkSpec): Promise<Row> {
    const { uploads } = tablesOf(this.db);
    // Leftovers of an earlier upload under this identifier must not become part of this one.
    await this.chunks.removeChunks(a.projectId, spec.ident);
    const now = nowIso();
    const row: Row = {
      projectId: a.projectId,
      ident: spec.ident,
      filename: spec.filename,
      totalSize: spec.totalSize,
      chunkSize: spec.chunkSize,
      totalChunks: spec.totalChunks,
      targetPath: spec.targetPath,
      status: 'partial',
      createdBy: a.email,
      created: now,
      updated: now,
    };
    await this.db
      .insert(uploads)
      .values(row)
      .onConflictDoUpdate({ target: [uploads.projectId, uploads.ident], set: row });
    return row;
  }

  /** A new upload must have somewhere to go and fit the plan's storage limit. */
  private async checkNewUpload(projectId: string, spec: ChunkSpec): Promise<void> {
    const target = await this.storage.stat(projectId, spec.targetPath);
    if (target?.type === 'folder')
      throw conflict(`"${spec.targetPath}" is a folder`, { path: spec.targetPath });
    // The nearest existing ancestor must be a folder: with createParents, storage would
    // otherwise fail on a file in the way only at assembly, with a raw ENOTDIR.
    let dir = parentOf(spec.targetPath);
    let found = await this.storage.stat(projectId, dir);
    while (!found && spec.createParents) {
      dir = parentOf(dir);
      found = await this.storage.stat(projectId, dir);
    }
    if (!found) throw conflict(`target folder "${dir}" does not exist`, { path: spec.targetPath });
    if (found.type !== 'folder')
      throw conflict(`"${dir}" is a file, not a folder`, { path: spec.targetPath });
    // Counted without blocking (a walk of the project's files); the file it replaces frees
    // its bytes, as in Storage.writeFile.
    const { limit, used } = await this.storage.quota(projectId);
    assertWithin('storageBytes', limit, used - (target?.size ?? 0), spec.totalSize);
  }

  private async assembled(projectId: string, row: Row): Promise<StorageItem> {
    const item = await this.storage.stat(projectId, row.targetPath);
    if (item?.type !== 'file')
      throw notFound(`the file of upload "${row.ident}" is no longer at "${row.targetPath}"`, {
        uploadId: row.ident,
        path: row.targetPath,
      });
    return item;
  }

  /**
   * The storage path an uploadId names: a completed chunked upload's file, or else the file
   * whose fileId it is (API-DECISIONS "Storage").
   */
  async resolve(a: ProjectActor, uploadId: string): Promise<string> {
    requireStorageAccess(a);
    const row = await this.row(a.projectId, uploadId);
    if (row?.status === 'complete') return (await this.assembled(a.projectId, row)).path;
    if (row)
      throw conflict(`upload "${uploadId}" is not complete yet`, {
        uploadId,
        received: await this.chunks.count(a.projectId, uploadId, row.totalChunks),
        total: row.totalChunks,
      });
    let p: string | null = null;
    try {
      p = pathOfFileId(uploadId);
    } catch {
      // neither an upload nor a fileId
    }
    const item = p ? await this.storage.stat(a.projectId, p) : null;
    if (item?.type !== 'file')
      throw notFound(`no completed upload and no file with id "${uploadId}"`, { uploadId });
    return item.path;
  }

  /**
   * Deletes partial uploads untouched for the configured hours (chunks and rows), and
   * chunk folders no partial upload owns (left by a crash). Returns how many it removed.
   */
  async sweep(now = Date.now()): Promise<number> {
    const { uploads, projects } = tablesOf(this.db);
    const cutoffMs = now - this.ttlHours * 3_600_000;
    const cutoff = new Date(cutoffMs).toISOString();
    let removed = 0;
    const stale = await this.db
      .select({ projectId: uploads.projectId, ident: uploads.ident })
      .from(uploads)
      .where(and(eq(uploads.status, 'partial'), lt(uploads.updated, cutoff)));
    for (const { projectId, ident } of stale) {
      await this.locked(projectId, ident, async () => {
        const row = await this.row(projectId, ident);
        if (row?.status !== 'partial' || row.updated >= cutoff) return; // touched meanwhile
        await this.chunks.removeAll(projectId, ident);
        await this.db
          .delete(uploads)
          .where(and(eq(uploads.projectId, projectId), eq(uploads.ident, ident)));
        removed++;
      });
    }
    for (const { id } of await this.db.select({ id: projects.id }).from(projects)) {
      for (const { ident, mtimeMs } of await this.chunks.folders(id)) {
        if (mtimeMs >= cutoffMs) continue;
        await this.locked(id, ident, async () => {
          if ((await this.row(id, ident))?.status === 'partial') return;
          // A first chunk still arriving: its upload's row is written once it is whole.
          if (await this.chunks.receiving(id, ident)) return;
          await this.chunks.removeAll(id, ident);
          removed++;
        });
      }
    }
    return removed;
  }

  /**
   * At start-up and periodically, in any process of the data directory: removes the
   * temporary files of writes and chunks whose writer was killed (temp-files.ts judges
   * which; a live write of any process is kept). Returns how many it removed.
   */
  async sweepLeftovers(): Promise<number> {
    const { projects } = tablesOf(this.db);
    let removed = 0;
    for (const { id } of await this.db.select({ id: projects.id }).from(projects)) {
      removed += await this.storage.sweepTemporary(id);
      removed += await this.chunks.sweepReceiving(id);
    }
    return removed;
  }

  /**
   * One section at a time per upload, across every process on the data directory: chunks
   * of one upload may reach different processes, and exactly one must assemble the file.
   * Requests of this process queue in memory first, so each process holds one lock
   * connection per upload at most.
   */
  private locked<T>(
    projectId: string,
    ident: string,
    fn: (held: AbortSignal) => Promise<T>,
  ): Promise<T> {
    // ':' apart (PostgreSQL text holds no NUL); a project id has none, so names cannot clash.
    const key = `ursa:upload:${projectId}:${ident}`;
    return this.locks.run(key, () => storeOf(this.db).exclusive(key, fn));
  }

  private async row(projectId: string, ident: string): Promise<Row | undefined> {
    const { uploads } = tablesOf(this.db);
    return this.db
      .select()
      .from(uploads)
      .where(and(eq(uploads.projectId, projectId), eq(uploads.ident, ident)))
      .then(first);
  }

  private async touch(
    projectId: string,
    ident: string,
    status: 'partial' | 'complete',
  ): Promise<void> {
    const { uploads } = tablesOf(this.db);
    await this.db
      .update(uploads)
      .set({ status, updated: nowIso() })
      .where(and(eq(uploads.projectId, projectId), eq(uploads.ident, ident)));
  }
}

/** A chunk must describe the upload its identifier started: same sizes, same target. */
function sameUpload(row: Row, spec: ChunkSpec): void {
  const started = {
    resumableTotalSize: row.totalSize,
    resumableChunkSize: row.chunkSize,
    resumableTotalChunks: row.totalChunks,
    target: row.targetPath,
  };
  const given = {
    resumableTotalSize: spec.totalSize,
    resumableChunkSize: spec.chunkSize,
    resumableTotalChunks: spec.totalChunks,
    target: spec.targetPath,
  };
  const differ = (Object.keys(started) as (keyof typeof started)[]).filter(
    (k) => started[k] !== given[k],
  );
  if (differ.length)
    throw conflict(
      `upload "${row.ident}" was started with other ${differ.join(', ')} (${differ.map((k) => started[k]).join(', ')}); ` +
        'finish it with the same parameters, or use another resumableIdentifier',
      { uploadId: row.ident, started, given },
    );
}
