// Chunks of uploads in progress, on disk: <project>/uploads/<identifier>/<n>.chunk, outside
// the project's files so they neither show in storage nor count toward storageBytes until
// assembled. Each chunk is received into a temporary file beside it (named for its writer,
// temp-files.ts) and renamed when whole; a full disk is an 'insufficient_storage' error.
import { createReadStream } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { asDiskFull } from '../disk-full.js';
import { invalid } from '../errors.js';
import { abandoned, holdTemp } from './temp-files.js';

const CHUNK = /^([0-9]+)\.chunk$/;

export interface ReceivingChunk {
  tmp: string;
  fh: FileHandle;
  /** Ends the temporary file's hold (temp-files.ts) once it is renamed or removed. */
  release: () => void;
}

export class ChunkFiles {
  constructor(private readonly projectDir: (projectId: string) => string) {}

  root(projectId: string): string {
    return path.join(this.projectDir(projectId), 'uploads');
  }

  dir(projectId: string, ident: string): string {
    return path.join(this.root(projectId), ident);
  }

  private file(projectId: string, ident: string, n: number): string {
    return path.join(this.dir(projectId, ident), `${n}.chunk`);
  }

  /** Creates the temporary file. Callers hold the upload's lock: then a cleanup running
   * under the same lock never removes the folder between the mkdir and the open. */
  async open(projectId: string, ident: string, n: number): Promise<ReceivingChunk> {
    const dir = this.dir(projectId, ident);
    const { file: tmp, release } = holdTemp(dir, 'part', `${n}.chunk.`);
    try {
      await fs.mkdir(dir, { recursive: true });
      return { tmp, fh: await fs.open(tmp, 'wx'), release };
    } catch (err) {
      release();
      throw asDiskFull(err);
    }
  }

  /** Copies `source` into the temporary file; refuses as soon as it holds more than `max`. */
  async receive(r: ReceivingChunk, source: AsyncIterable<Buffer | string>, max: number) {
    let bytes = 0;
    try {
      for await (const piece of source) {
        const buf = typeof piece === 'string' ? Buffer.from(piece) : piece;
        bytes += buf.length;
        if (bytes > max)
          throw invalid(`the chunk holds more than the ${max} bytes it should`, {
            expectedBytes: max,
          });
        await r.fh.write(buf);
      }
      await r.fh.sync(); // on disk before the rename makes it count as received
      await r.fh.close();
    } catch (err) {
      throw asDiskFull(err);
    }
    return bytes;
  }

  async discard(r: ReceivingChunk): Promise<void> {
    await r.fh.close().catch(() => undefined);
    await fs.rm(r.tmp, { force: true });
    r.release();
  }

  /** Makes the received chunk count; a repeat of chunk n replaces the earlier copy whole. */
  async commit(projectId: string, ident: string, n: number, r: ReceivingChunk): Promise<void> {
    await fs.rename(r.tmp, this.file(projectId, ident, n));
    r.release();
  }

  async size(projectId: string, ident: string, n: number): Promise<number | null> {
    try {
      return (await fs.lstat(this.file(projectId, ident, n))).size;
    } catch {
      return null;
    }
  }

  /** How many of chunks 1..total are present (a chunk is committed only at its right size). */
  async count(projectId: string, ident: string, total: number): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.dir(projectId, ident));
    } catch {
      return 0;
    }
    return names.filter((name) => {
      const m = CHUNK.exec(name);
      return m !== null && Number(m[1]) >= 1 && Number(m[1]) <= total;
    }).length;
  }

  /** Chunks 1..total, in order, as one stream. */
  stream(projectId: string, ident: string, total: number): Readable {
    const file = (n: number) => this.file(projectId, ident, n);
    return Readable.from(
      (async function* () {
        for (let n = 1; n <= total; n++) yield* createReadStream(file(n));
      })(),
    );
  }

  /** Removes the committed chunks. A chunk still being received keeps the folder, and its
   * request removes it when it sees the upload finished. */
  async removeChunks(projectId: string, ident: string): Promise<void> {
    const dir = this.dir(projectId, ident);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      return;
    }
    for (const name of names)
      if (CHUNK.test(name)) await fs.rm(path.join(dir, name), { force: true });
    await fs.rmdir(dir).catch(() => undefined);
  }

  /** Removes the folder with everything in it (expired uploads). */
  async removeAll(projectId: string, ident: string): Promise<void> {
    await fs.rm(this.dir(projectId, ident), { recursive: true, force: true });
  }

  /** Removes the chunks a killed writer was receiving (temp-files.ts judges which); returns
   * how many it removed. Committed chunks stay: their upload's row decides (Uploads.sweep). */
  async sweepReceiving(projectId: string): Promise<number> {
    let removed = 0;
    for (const { ident } of await this.folders(projectId)) {
      const dir = this.dir(projectId, ident);
      for (const name of await fs.readdir(dir).catch(() => [])) {
        if (!name.endsWith('.part')) continue;
        const full = path.join(dir, name);
        const st = await fs.lstat(full).catch(() => null);
        if (!st || !abandoned(full, st.mtimeMs)) continue;
        await fs.rm(full, { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** Whether a chunk of the upload is being received now, by any live process. */
  async receiving(projectId: string, ident: string): Promise<boolean> {
    const dir = this.dir(projectId, ident);
    for (const name of await fs.readdir(dir).catch(() => [])) {
      if (!name.endsWith('.part')) continue;
      const st = await fs.lstat(path.join(dir, name)).catch(() => null);
      if (st && !abandoned(path.join(dir, name), st.mtimeMs)) return true;
    }
    return false;
  }

  /** Folders under uploads/ with their last change, for the sweep of leftovers. */
  async folders(projectId: string): Promise<{ ident: string; mtimeMs: number }[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.root(projectId));
    } catch {
      return [];
    }
    const out: { ident: string; mtimeMs: number }[] = [];
    for (const ident of names) {
      const st = await fs.lstat(path.join(this.root(projectId), ident)).catch(() => null);
      if (st?.isDirectory()) out.push({ ident, mtimeMs: st.mtimeMs });
    }
    return out;
  }
}
