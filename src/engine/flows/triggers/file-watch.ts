// Storage changes for flowWebdavFilechange triggers: which triggers a changed file concerns
// (a picomatch glob on the storage path), and the debounce that turns a burst of changes into
// one run: a run starts once no matching change came for `quietMs` (2 s), or at the latest
// `maxWaitMs` after the first one, so a steady stream of uploads still starts runs. A change
// written by a run carries that run's chain (chains.ts); the run of a burst is as deep as the
// deepest of its changes.
import picomatch from 'picomatch';
import type { StorageChange } from '../../storage/storage.js';
import type { Chain } from './chains.js';

const matchers = new Map<string, (p: string) => boolean>();

/** Whether a storage path (`/drop/sales.csv`) matches a trigger's glob (`/drop/*.csv`). */
export function pathMatches(glob: string, path: string): boolean {
  let m = matchers.get(glob);
  if (!m) {
    m = picomatch(glob, { dot: true });
    if (matchers.size > 10_000) matchers.clear();
    matchers.set(glob, m);
  }
  return m(path);
}

/** A file written into place: created, replaced, moved or copied there (not folders, not deletes). */
export function isFileArrival(change: StorageChange): boolean {
  return change.type === 'file' && change.kind !== 'deleted';
}

interface Pending {
  first: number;
  timer: NodeJS.Timeout;
  changes: number;
  chain: Chain | null;
}

/**
 * One debounce per key (project + trigger); `fire` gets the time of the first change and the
 * deepest chain among the changes (null when no run wrote them).
 */
export class Debouncer {
  private pending = new Map<string, Pending>();

  constructor(
    private readonly fire: (
      key: string,
      first: number,
      changes: number,
      chain: Chain | null,
    ) => void,
    private readonly quietMs = 2000,
    private readonly maxWaitMs = 30_000,
  ) {}

  /** A change for `key` at `now` (written by a run: its chain): starts or extends the quiet period. */
  touch(key: string, now: number, chain: Chain | null = null): void {
    const p = this.pending.get(key);
    if (p) {
      clearTimeout(p.timer);
      p.changes++;
    }
    const first = p?.first ?? now;
    const deepest = !p?.chain || (chain && chain.depth > p.chain.depth) ? chain : p.chain;
    const wait = Math.max(0, Math.min(this.quietMs, first + this.maxWaitMs - now));
    const timer = setTimeout(() => {
      const done = this.pending.get(key);
      this.pending.delete(key);
      if (done) this.fire(key, done.first, done.changes, done.chain);
    }, wait);
    timer.unref();
    this.pending.set(key, { first, timer, changes: p ? p.changes : 1, chain: deepest });
  }

  /** Keys waiting for their quiet period to end. */
  waiting(): string[] {
    return [...this.pending.keys()];
  }

  /** Drops every waiting change (stop()). */
  clear(): void {
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
  }
}
