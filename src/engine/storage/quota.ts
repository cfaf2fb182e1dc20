// The plan's storageBytes limit: what a project uses (its files and the temporary files of
// writes in progress), the error for a write that would pass it, and the sweep of leftovers.
import fs from 'node:fs/promises';
import path from 'node:path';
import { limitExceeded } from '../errors.js';
import type { Limits } from '../limits/limits.js';
import { isMissing, type StorageTree } from './storage-tree.js';
import { abandoned } from './temp-files.js';

export interface Quota {
  limit: number;
  used: number;
}

/**
 * The plan's storage limit and what the project uses now (walked asynchronously): its
 * files, and the temporary files of writes in progress (concurrent writes count each
 * other). Leftovers of killed writers never count (temp-files.ts).
 */
export async function quotaOf(
  tree: StorageTree,
  limits: Limits,
  projectId: string,
): Promise<Quota> {
  await tree.ensureRoot(projectId);
  const { size } = await tree.folderStats(projectId, '/');
  let temporary = 0;
  for (const t of await temporaries(tree, projectId))
    if (!abandoned(t.full, t.mtimeMs)) temporary += await bytesOf(t.full);
  return { limit: await limits.limitOf(projectId, 'storageBytes'), used: size + temporary };
}

/**
 * Removes what killed writers left in the project's tmp folder (temp-files.ts judges which
 * are leftovers), and returns how many it removed.
 */
export async function sweepTemporary(tree: StorageTree, projectId: string): Promise<number> {
  let removed = 0;
  for (const t of await temporaries(tree, projectId)) {
    if (!abandoned(t.full, t.mtimeMs)) continue;
    await fs.rm(t.full, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** The entries of the project's tmp folder with their last change. */
async function temporaries(
  tree: StorageTree,
  projectId: string,
): Promise<{ full: string; mtimeMs: number }[]> {
  let names: string[];
  try {
    names = await fs.readdir(tree.tmpDir(projectId));
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const out: { full: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const full = path.join(tree.tmpDir(projectId), name);
    const st = await fs.lstat(full).catch(() => null); // null: finished meanwhile
    if (st) out.push({ full, mtimeMs: st.mtimeMs });
  }
  return out;
}

export function overLimit(q: Quota, requested: number) {
  return limitExceeded(
    `plan limit "storageBytes" exceeded: ${q.used} used + ${requested} requested > ${q.limit} allowed`,
    { limit: 'storageBytes', allowed: q.limit, used: q.used, requested },
  );
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
