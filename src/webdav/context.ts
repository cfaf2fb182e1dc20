// What every WebDAV method handler gets, and the preconditions they share: the If header
// (412 when false) and the lock tokens a write must submit (423 when missing).
import type { Request, Response } from 'express';
import type { ProjectActor } from '../engine/access/actor.js';
import type { Engine } from '../engine/engine.js';
import type { StorageItem } from '../engine/storage/project-files.js';
import { HttpError } from '../http/errors.js';
import { evaluateIf, submittedTokens, type IfList, type ResourceState } from './if-header.js';
import { etagOf } from '../http/file-response.js';
import type { LockManager, WriteScope } from './locks.js';
import { hrefOf, storagePathOfUrl } from './urls.js';

export interface Dav {
  engine: Engine;
  req: Request;
  res: Response;
  actor: ProjectActor;
  project: string;
  /** The storage path the request URL names. */
  path: string;
  /** What is at `path` as the request arrived (looked up with the caller's rights). */
  item: StorageItem | null;
  locks: LockManager;
  /** The parsed If header, or null when there is none. */
  ifLists: IfList[] | null;
}

export function href(dav: Dav, path: string, folder: boolean): string {
  return hrefOf(dav.project, path, folder);
}

async function stateOf(dav: Dav, path: string | null): Promise<ResourceState> {
  if (path === null) return { etag: null, tokens: [] };
  const item = path === dav.path ? dav.item : await dav.engine.files.stat(dav.actor, path);
  return {
    etag: item ? etagOf(item) : null,
    tokens: dav.locks.covering(path).map((l) => l.token),
  };
}

/** Evaluates the If header, if any, against the current state: false → 412. */
export async function checkIf(dav: Dav): Promise<void> {
  if (!dav.ifLists) return;
  const ok = await evaluateIf(dav.ifLists, (resource) => {
    if (resource === null) return stateOf(dav, dav.path);
    let path: string | null;
    try {
      path = storagePathOfUrl(resource, dav.req, dav.project, dav.engine.config.siteUrl);
    } catch {
      path = null; // a tag we cannot map names nothing here: its conditions are about nothing
    }
    return stateOf(dav, path);
  });
  if (!ok)
    throw new HttpError(412, 'the If header conditions do not hold', {
      if: String(dav.req.headers.if ?? '').slice(0, 300),
    });
}

/** A write must hold (submit) the tokens of the locks that protect what it changes. */
export function requireTokens(dav: Dav, scopes: WriteScope[]): void {
  dav.locks.requireTokens(dav.actor.email, submittedTokens(dav.ifLists), scopes);
}
