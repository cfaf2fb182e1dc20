// Prescriptions: the structure a file is loaded with. GET guessupload guesses it from the
// file (or returns the one saved), PUT saves an edited one, and a load uses, in order: the
// prescription sent with the load, the one saved for that file, the dataset's current one,
// or a fresh guess.
import fs from 'node:fs/promises';
import { and, eq } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { type Db, first, tablesOf } from '../db/index.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireStorageAccess } from '../storage/access.js';
import { pathOfFileId } from '../storage/paths.js';
import type { Storage } from '../storage/storage.js';
import { titleKey } from '../model/defs.js';
import type { Datasets } from './datasets.js';
import { completeRecords, guessStructure, readCsv } from './guess.js';
import { validatePrescription, type Prescription } from './prescription.js';

const SAMPLE_BYTES = 1 << 20;

export interface Guess {
  ident: string;
  prescription: Prescription;
}

export class Prescriptions {
  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    private readonly datasets: Datasets,
  ) {}

  /** uploadId: a completed chunked upload's identifier, or any stored file's fileId. */
  async resolveUploadId(projectId: string, uploadId: string): Promise<string> {
    const { uploads } = tablesOf(this.db);
    const up = await this.db
      .select({ path: uploads.targetPath, status: uploads.status })
      .from(uploads)
      .where(and(eq(uploads.projectId, projectId), eq(uploads.ident, uploadId)))
      .then(first);
    if (up) {
      if (up.status !== 'complete')
        throw conflict(`upload "${uploadId}" is not complete yet`, { uploadId });
      return up.path;
    }
    try {
      return pathOfFileId(uploadId);
    } catch {
      throw notFound(`no completed upload and no file with id "${uploadId}"`, { uploadId });
    }
  }

  private async sample(
    projectId: string,
    path: string,
  ): Promise<{ buf: Buffer; truncated: boolean }> {
    const item = await this.storage.require(projectId, path);
    if (item.type !== 'file') throw invalid(`"${path}" is a folder, not a file to load`, { path });
    const fh = await fs.open(await this.storage.localFile(projectId, item.path), 'r');
    try {
      const buf = Buffer.alloc(Math.min(SAMPLE_BYTES, item.size));
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return { buf: buf.subarray(0, bytesRead), truncated: item.size > bytesRead };
    } finally {
      await fh.close();
    }
  }

  private async saved(projectId: string, path: string): Promise<Prescription | null> {
    return (await this.savedRow(projectId, path))?.prescription ?? null;
  }

  private async savedRow(
    projectId: string,
    path: string,
  ): Promise<{ prescription: Prescription; edited: boolean } | null> {
    const { prescriptions } = tablesOf(this.db);
    const row = await this.db
      .select()
      .from(prescriptions)
      .where(and(eq(prescriptions.projectId, projectId), eq(prescriptions.sourcePath, path)))
      .then(first);
    return row ? { prescription: row.prescription as Prescription, edited: row.edited } : null;
  }

  private async guessFile(projectId: string, path: string): Promise<Prescription> {
    const { buf, truncated } = await this.sample(projectId, path);
    return guessStructure(buf, { fileName: path.slice(path.lastIndexOf('/') + 1), truncated });
  }

  async guess(a: ProjectActor, uploadId: string): Promise<Guess> {
    requireStorageAccess(a);
    const path = await this.resolveUploadId(a.projectId, uploadId);
    const guessed = await this.guessFile(a.projectId, path);
    const fresh = uniqueLabels(
      guessed,
      await this.datasets.titlesOutside(a.projectId, guessed.clustername),
    );
    const saved = await this.saved(a.projectId, path);
    // A saved structure wins; its sample rows are always today's file.
    const prescription = saved ? { ...saved, data: fresh.data } : fresh;
    if (!saved) await this.remember(a.projectId, path, fresh, false);
    return { ident: uploadId, prescription };
  }

  async save(a: ProjectActor, uploadId: string, body: unknown): Promise<Guess> {
    requireStorageAccess(a);
    const path = await this.resolveUploadId(a.projectId, uploadId);
    const fresh = await this.guessFile(a.projectId, path);
    const input =
      body && typeof body === 'object' && 'prescription' in body
        ? (body as { prescription: unknown }).prescription
        : body;
    // Omitted format, cluster name or sample rows are taken from the file's guess, so a client
    // may send only the primary key and the columns.
    const merged =
      input && typeof input === 'object' && !Array.isArray(input)
        ? { format: fresh.format, clustername: fresh.clustername, ...input }
        : input;
    const p = validatePrescription(merged);
    await this.checkAgainstFile(a.projectId, path, p);
    await this.remember(a.projectId, path, p, true);
    return { ident: uploadId, prescription: { ...p, data: fresh.data } };
  }

  /** The columns of a prescription map onto the file's columns by position. */
  private async checkAgainstFile(projectId: string, path: string, p: Prescription): Promise<void> {
    const { buf, truncated } = await this.sample(projectId, path);
    let text = buf.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    // Read as the load reads it (DuckDB), without a record the sample may have cut.
    const whole = truncated ? completeRecords(text, p.format.quote) : text;
    const first = (await readCsv(whole, p.format, { fileName: path, limit: 10 }))[0] ?? [];
    if (first.length !== p.columns.length) {
      throw invalid(
        `the prescription has ${p.columns.length} columns but the file ${path} has ${first.length} (with delimiter "${p.format.delimiter}")`,
        {
          path,
          prescriptionColumns: p.columns.length,
          fileColumns: first.length,
        },
      );
    }
  }

  async remember(projectId: string, path: string, p: Prescription, edited = true): Promise<void> {
    const { prescriptions } = tablesOf(this.db);
    const { data: _data, ...structure } = p;
    const row = {
      projectId,
      sourcePath: path,
      prescription: structure as Record<string, unknown>,
      edited,
      updated: nowIso(),
    };
    await this.db
      .insert(prescriptions)
      .values(row)
      .onConflictDoUpdate({
        target: [prescriptions.projectId, prescriptions.sourcePath],
        set: row,
      });
  }

  /**
   * The prescription a load of `cluster` from `source` uses (see the order above). Labels of
   * a guess nobody edited are made unique (`taken`: titles of other clusters of the same load);
   * a prescription someone wrote is loaded as written, and a title clash is refused later.
   */
  async forLoad(
    a: ProjectActor,
    cluster: string,
    rawSource: string,
    inline: unknown,
    taken: ReadonlySet<string> = new Set(),
  ): Promise<{ source: string; prescription: Prescription; edited: boolean }> {
    const item = await this.storage.require(a.projectId, rawSource);
    if (item.type !== 'file')
      throw invalid(`"${item.path}" is a folder, not a file to load`, {
        cluster,
        source: item.path,
      });
    const source = item.path;
    let p: Prescription;
    let edited = true;
    if (inline !== undefined) {
      const obj =
        inline && typeof inline === 'object' && !Array.isArray(inline)
          ? (inline as Record<string, unknown>)
          : null;
      // Only a prescription without its file format needs the file sniffed for one.
      const format =
        obj && !('format' in obj) ? (await this.guessFile(a.projectId, source)).format : undefined;
      p = validatePrescription(
        obj ? { ...(format ? { format } : {}), clustername: cluster, ...obj } : inline,
      );
    } else {
      const saved = await this.savedRow(a.projectId, source);
      const current = saved ? null : await this.datasets.prescriptionOf(a.projectId, cluster);
      p = saved?.prescription ?? current ?? (await this.guessFile(a.projectId, source));
      if (!current && !saved?.edited) {
        edited = false;
        const titles = await this.datasets.titlesOutside(a.projectId, cluster);
        p = uniqueLabels({ ...p, clustername: cluster }, new Set([...titles, ...taken]));
      }
    }
    p = { ...p, clustername: cluster };
    delete p.data;
    await this.checkAgainstFile(a.projectId, source, p);
    return { source, prescription: p, edited };
  }
}

/**
 * Titles are unique in a model (AQL names objects by title), so a guessed label that another
 * object or column already holds is proposed as "<label> (<dataset>)": `customer_id` of
 * `orders` beside the key of `customers` becomes "customer_id (orders)".
 */
export function uniqueLabels(p: Prescription, taken: Set<string>): Prescription {
  const used = new Set(taken);
  const columns = p.columns.map((c) => {
    const base = c.label || c.id;
    let label = base;
    for (let n = 1; used.has(titleKey(label)); n++)
      label = `${base} (${p.clustername}${n > 1 ? ` ${n}` : ''})`;
    used.add(titleKey(label));
    return label === c.label ? c : { ...c, label };
  });
  return { ...p, columns };
}
