// Project storage from the browser: file ids (base64url of `<name>|<parentPath>`), paths, and
// making sure an upload's target folder exists (asked with GETs, created with one POST).
import { api, get, projectApi } from '../../api';
import type { StorageItem } from './types';

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  bytes.forEach((b) => (bin += String.fromCharCode(b)));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unbase64url(id: string): string {
  const bin = atob(id.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** A folder path made absolute and tidy: ' uploads/ ' → '/uploads'; '' → '/'. */
export function normalizeFolder(path: string): string {
  const parts = path.trim().split('/').filter(Boolean);
  return `/${parts.join('/')}`;
}

/** The fileId of a path: '/in/a.csv' → base64url('a.csv|/in'), '/' → base64url('|/'). */
export function fileIdOf(path: string): string {
  const parts = normalizeFolder(path).split('/').filter(Boolean);
  const name = parts.pop() ?? '';
  return base64url(`${name}|/${parts.join('/')}`);
}

/** The path a fileId names, or null when it is no fileId (e.g. an upload identifier). */
export function pathOfFileId(id: string): string | null {
  try {
    const text = unbase64url(id);
    const bar = text.lastIndexOf('|');
    if (bar < 1) return null;
    const parent = text.slice(bar + 1);
    if (!parent.startsWith('/')) return null;
    return `${parent === '/' ? '' : parent}/${text.slice(0, bar)}`;
  } catch {
    return null;
  }
}

export const joinPath = (folder: string, name: string) => `${folder === '/' ? '' : folder}/${name}`;

export interface Listing {
  item: StorageItem;
  items: StorageItem[];
}

export const listFolder = (project: string, folder: string) =>
  get<Listing>(
    folder === '/'
      ? `${projectApi(project)}/storage/list`
      : `${projectApi(project)}/storage/list/${fileIdOf(folder)}`,
  );

/** The listing of `folder`, or null when it is not there (looked up level by level). */
export async function findFolder(project: string, folder: string): Promise<Listing | null> {
  const parts = normalizeFolder(folder).split('/').filter(Boolean);
  let listing = await listFolder(project, '/');
  let parent = '/';
  for (const part of parts) {
    const here = joinPath(parent, part);
    if (!listing.items.some((i) => i.type === 'folder' && i.path === here)) return null;
    listing = await listFolder(project, here);
    parent = here;
  }
  return listing;
}

/**
 * Creates `folder` unless it is there: each level is looked up in its parent's listing, and
 * the first missing one is created with its children in one POST (missing parents are made).
 */
export async function ensureFolder(project: string, folder: string): Promise<void> {
  const parts = normalizeFolder(folder).split('/').filter(Boolean);
  let parent = '/';
  for (const part of parts) {
    const listing = await listFolder(project, parent);
    const here = joinPath(parent, part);
    if (!listing.items.some((i) => i.type === 'folder' && i.path === here)) {
      await api('POST', `${projectApi(project)}/storage/list`, { folder: normalizeFolder(folder) });
      return;
    }
    parent = here;
  }
}

/** Files the structure guess can read. */
export const isTabular = (name: string) => /\.(csv|tsv|txt)$/i.test(name);
