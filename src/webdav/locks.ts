// WebDAV write locks (exclusive and shared, depth 0 or infinity). The records live in the
// metadata (engine.davLocks), so a lock taken through one process of a cluster holds on all:
// each request works on the project's live locks as read when it arrived, and every change
// is written through at once. A lock is on a path, like a URL: it does not follow a MOVE or a
// COPY, and it ends when its resource is deleted or moved away.
import { randomUUID } from 'node:crypto';
import type { DavLockStore } from '../engine/storage/dav-locks.js';
import { isWithin, parentOf } from '../engine/storage/paths.js';
import { HttpError } from '../http/errors.js';

export type LockScope = 'exclusive' | 'shared';
export type LockDepth = '0' | 'infinity';

export interface DavLock {
  token: string;
  root: string;
  /** URL of the root, as shown in lock discovery. */
  href: string;
  depth: LockDepth;
  scope: LockScope;
  /** Content of the client's DAV:owner element (XML), echoed in lock discovery. */
  owner: string;
  /** E-mail of the user who took the lock: only they can use or remove it. */
  principal: string;
  timeoutSeconds: number;
  expires: number;
}

/** Lock timeouts: what clients ask for, capped, so a forgotten lock ends on its own. */
export const DEFAULT_TIMEOUT = 3600;
export const MAX_TIMEOUT = 7 * 24 * 3600;

/** The first timeout of a Timeout header we can honour ("Second-n" or "Infinite"), capped. */
export function parseTimeout(header: string | undefined): number {
  for (const part of (header ?? '').split(',')) {
    const t = part.trim();
    if (/^infinite$/i.test(t)) return MAX_TIMEOUT;
    const m = /^second-(\d{1,12})$/i.exec(t);
    if (m) return Math.min(Math.max(Number(m[1]), 1), MAX_TIMEOUT);
  }
  return DEFAULT_TIMEOUT;
}

/** A write that needs the lock tokens of the locks protecting a path. */
export interface WriteScope {
  path: string;
  /** The whole subtree changes (DELETE, MOVE's source, an overwritten destination). */
  tree?: boolean;
  /** A member is added to or removed from the parent collection. */
  membership?: boolean;
}

export class LockManager {
  private readonly locks = new Map<string, DavLock>();

  constructor(
    live: DavLock[],
    private readonly store?: { records: DavLockStore; project: string },
  ) {
    for (const l of live) this.locks.set(l.token, l);
  }

  private live(): DavLock[] {
    const now = Date.now();
    for (const [t, l] of this.locks) if (l.expires <= now) this.locks.delete(t);
    return [...this.locks.values()];
  }

  get(token: string): DavLock | undefined {
    return this.live().find((l) => l.token === token);
  }

  /** Locks that apply to `path`: on it, or depth-infinity locks on a collection above it. */
  covering(path: string): DavLock[] {
    return this.live().filter(
      (l) => l.root === path || (l.depth === 'infinity' && isWithin(path, l.root)),
    );
  }

  /** Locks on resources strictly below `path`. */
  below(path: string): DavLock[] {
    return this.live().filter((l) => l.root !== path && isWithin(l.root, path));
  }

  /** Locks a new lock on `path` would conflict with. */
  conflicts(path: string, depth: LockDepth, scope: LockScope): DavLock[] {
    const near = [...this.covering(path), ...(depth === 'infinity' ? this.below(path) : [])];
    return scope === 'exclusive' ? near : near.filter((l) => l.scope === 'exclusive');
  }

  /** Takes a new lock; 423 when one taken meanwhile (through any process) conflicts. */
  async create(l: Omit<DavLock, 'token' | 'expires'>): Promise<DavLock> {
    const lock: DavLock = {
      ...l,
      token: `urn:uuid:${randomUUID()}`,
      expires: Date.now() + l.timeoutSeconds * 1000,
    };
    const check = (live: DavLock[]) => {
      const conflict = new LockManager(live).conflicts(lock.root, lock.depth, lock.scope)[0];
      if (conflict) throw new LockedError(conflict, 'no-conflicting-lock');
    };
    if (this.store) await this.store.records.create(this.store.project, lock, check);
    else check(this.live());
    this.locks.set(lock.token, lock);
    return lock;
  }

  async refresh(lock: DavLock, timeoutSeconds: number): Promise<void> {
    lock.timeoutSeconds = timeoutSeconds;
    lock.expires = Date.now() + timeoutSeconds * 1000;
    await this.store?.records.refresh(lock.token, timeoutSeconds, lock.expires);
  }

  async remove(token: string): Promise<void> {
    this.locks.delete(token);
    await this.store?.records.remove([token]);
  }

  /** Ends the locks on `path` and below (the resource is gone from that URL). */
  async removeTree(path: string): Promise<void> {
    const gone = this.live().filter((l) => isWithin(l.root, path));
    for (const l of gone) this.locks.delete(l.token);
    await this.store?.records.remove(gone.map((l) => l.token));
  }

  /**
   * Refuses (423) a write unless the caller submitted, in the If header, a token of every
   * exclusive lock and of at least one shared lock that protects what the write changes.
   */
  requireTokens(principal: string, submitted: Set<string>, scopes: WriteScope[]): void {
    for (const s of scopes) {
      const relevant = new Map<string, DavLock>();
      const add = (ls: DavLock[]) => ls.forEach((l) => relevant.set(l.token, l));
      add(this.covering(s.path));
      if (s.tree) add(this.below(s.path));
      if (s.membership && s.path !== '/')
        add(this.live().filter((l) => l.root === parentOf(s.path)));
      const held = (l: DavLock) => submitted.has(l.token) && l.principal === principal;
      const all = [...relevant.values()];
      const missing = all.find((l) => l.scope === 'exclusive' && !held(l));
      const shared = all.filter((l) => l.scope === 'shared');
      const blocking = missing ?? (shared.length && !shared.some(held) ? shared[0] : undefined);
      if (blocking) throw new LockedError(blocking);
    }
  }
}

/** 423 Locked, with the RFC 4918 precondition that failed and the lock root it is about. */
export class LockedError extends HttpError {
  constructor(
    readonly lock: DavLock,
    readonly condition: 'lock-token-submitted' | 'no-conflicting-lock' = 'lock-token-submitted',
  ) {
    super(
      423,
      condition === 'lock-token-submitted'
        ? `"${lock.root}" is locked; submit its lock token in the If header`
        : `"${lock.root}" is already locked in a way that conflicts with this lock`,
      { lockRoot: lock.root, condition },
    );
  }
}

/** The project's locks as they are now, for one request (any process may have taken them). */
export async function locksOf(
  engine: { davLocks: DavLockStore },
  project: string,
): Promise<LockManager> {
  const live = await engine.davLocks.live(project);
  return new LockManager(live, { records: engine.davLocks, project });
}
