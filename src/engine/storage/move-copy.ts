// Moving and copying within a project's storage: the target is checked first, what it replaces
// is parked aside until the rename succeeds (put back if it fails), and a copy is staged in the
// tmp folder (counted against the plan) before it appears at its target.
import fs from 'node:fs/promises';
import { asDiskFull } from '../disk-full.js';
import { conflict, invalid } from '../errors.js';
import type { StorageChange } from './changes.js';
import { isWithin, normalizeStoragePath, parentOf } from './paths.js';
import { overLimit, type Quota } from './quota.js';
import { isPlain, type StorageTree } from './storage-tree.js';
import { holdTemp } from './temp-files.js';

import type { StorageItem } from '../../contract/storage.js';

/** What moving and copying need from the store: its tree, its quota, its change hook. */
export interface MoveContext {
  tree: StorageTree;
  quota(projectId: string): Promise<Quota>;
  emit(change: StorageChange): Promise<void>;
}

export async function moveItem(
  ctx: MoveContext,
  projectId: string,
  rawFrom: string,
  rawTo: string,
  opts: { overwrite?: boolean; user?: string | null } = {},
): Promise<{ item: StorageItem; replaced: boolean }> {
  const { from, to, replaced, parked } = await prepareTarget(
    ctx,
    projectId,
    rawFrom,
    rawTo,
    opts.overwrite ?? false,
  );
  await replacing(ctx, projectId, to, parked, () =>
    fs.rename(ctx.tree.abs(projectId, from.path), ctx.tree.abs(projectId, to)),
  );
  return announced(ctx, projectId, 'moved', from.path, to, opts.user, replaced);
}

export async function copyItem(
  ctx: MoveContext,
  projectId: string,
  rawFrom: string,
  rawTo: string,
  opts: { overwrite?: boolean; recursive?: boolean; user?: string | null } = {},
): Promise<{ item: StorageItem; replaced: boolean }> {
  const to = normalizeStoragePath(rawTo);
  const from = await ctx.tree.require(projectId, rawFrom);
  const sizeOf = async (item: StorageItem | null) =>
    !item
      ? 0
      : item.type === 'folder'
        ? (await ctx.tree.folderStats(projectId, item.path)).size
        : item.size;
  const size = await sizeOf(from);
  const replacing = opts.overwrite ? await sizeOf(await ctx.tree.stat(projectId, to)) : 0;
  const quota = await ctx.quota(projectId);
  if (size > Math.max(0, quota.limit - quota.used + replacing)) throw overLimit(quota, size);
  const { file: staged, release } = holdTemp(ctx.tree.tmpDir(projectId), 'copy');
  try {
    return await copyVia(ctx, staged, projectId, from, rawFrom, rawTo, opts);
  } catch (err) {
    throw asDiskFull(err);
  } finally {
    release();
  }
}

async function copyVia(
  ctx: MoveContext,
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
      await fs.cp(ctx.tree.abs(projectId, from.path), staged, {
        recursive: true,
        errorOnExist: true,
        // Links (and devices, FIFOs) inside a copied folder are left out, not copied.
        filter: async (src) => isPlain(await fs.lstat(src)),
      });
  } catch (err) {
    await fs.rm(staged, { recursive: true, force: true });
    throw err;
  }
  let target: Awaited<ReturnType<typeof prepareTarget>>;
  try {
    target = await prepareTarget(ctx, projectId, rawFrom, rawTo, opts.overwrite ?? false);
    await replacing(ctx, projectId, target.to, target.parked, () =>
      fs.rename(staged, ctx.tree.abs(projectId, target.to)),
    );
  } catch (err) {
    await fs.rm(staged, { recursive: true, force: true });
    throw err;
  }
  const { replaced } = target;
  return announced(ctx, projectId, 'copied', from.path, to, opts.user, replaced);
}

/** The item at its new place, once change listeners heard where it came from. */
async function announced(
  ctx: MoveContext,
  projectId: string,
  kind: 'moved' | 'copied',
  from: string,
  to: string,
  user: string | null | undefined,
  replaced: boolean,
): Promise<{ item: StorageItem; replaced: boolean }> {
  const item = (await ctx.tree.stat(projectId, to))!;
  await ctx.emit({ projectId, path: to, kind, type: item.type, from, user: user ?? null });
  return { item, replaced };
}

/** Checks a move/copy target; removes what it replaces when overwriting is allowed. */
async function prepareTarget(
  ctx: MoveContext,
  projectId: string,
  rawFrom: string,
  rawTo: string,
  overwrite: boolean,
) {
  // Both paths are validated before either is looked up: bad input is a 400, not a 404.
  const to = normalizeStoragePath(rawTo);
  const from = await ctx.tree.require(projectId, rawFrom);
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
  const parent = await ctx.tree.stat(projectId, parentOf(to));
  if (!parent || parent.type !== 'folder')
    throw conflict(`target folder "${parentOf(to)}" does not exist`, { target: to });
  const existing = await ctx.tree.stat(projectId, to);
  let parked: { file: string; release: () => void } | null = null;
  if (existing) {
    if (!overwrite) throw conflict(`"${to}" already exists`, { target: to });
    parked = holdTemp(ctx.tree.tmpDir(projectId), 'replaced');
    try {
      await fs.rename(ctx.tree.abs(projectId, to), parked.file);
    } catch (err) {
      parked.release();
      throw err;
    }
  }
  return { from, to, replaced: Boolean(existing), parked };
}

/** Runs `op` with the replaced item parked aside: discarded on success, put back on failure. */
async function replacing(
  ctx: MoveContext,
  projectId: string,
  to: string,
  parked: { file: string; release: () => void } | null,
  op: () => Promise<void>,
): Promise<void> {
  try {
    await op();
    if (parked) await fs.rm(parked.file, { recursive: true, force: true });
  } catch (err) {
    if (parked) await fs.rename(parked.file, ctx.tree.abs(projectId, to)).catch(() => undefined);
    throw err;
  } finally {
    parked?.release();
  }
}
