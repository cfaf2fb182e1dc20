// One writer of a project's data at a time, across every process on the data directory: the
// lock row of VersionStore, with a lease its holder renews while it works (a holder killed
// with -9 loses it when the lease runs out). Writers wait their turn in one queue for the
// project, whatever process they run in (VersionStore.inTurn): two full loads submitted one
// after the other publish in that order, so the later one's data is what stays. The row is
// still taken in turn: a dead process's lease is waited out, and the lease proves at publish
// that no other writer took over.
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomId } from '../ids.js';
import { PROCESS_ID } from '../process-id.js';
import type { VersionStore } from './versions.js';

const LEASE_MS = 60_000;

/** This process, in lock rows (a lock names who holds it): host, pid, a random part. */
const PROCESS = PROCESS_ID;

export class WriteLocks {
  constructor(
    private readonly store: VersionStore,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /**
   * Runs `fn` holding the project's write lock. `fn` calls `confirm()` right before it
   * publishes: it throws if the lease was lost meanwhile (another process took it over).
   */
  async with<T>(
    projectId: string,
    signal: AbortSignal | undefined,
    fn: (confirm: () => Promise<void>) => Promise<T>,
  ): Promise<T> {
    return this.store.inTurn(projectId, signal, (held) =>
      this.holding(projectId, signal, held, fn),
    );
  }

  /**
   * Releases the locks of processes of this host that are gone (killed while they loaded),
   * at start-up: their writes are over, and nobody should wait for their leases to run out.
   */
  async releaseDead(): Promise<number> {
    let released = 0;
    for (const l of await this.store.lockHolders()) {
      const [host, pid] = l.holder.split(':');
      if (host !== os.hostname() || Number(pid) === process.pid || alive(Number(pid))) continue;
      await this.store.unlock(l.projectId, l.holder);
      released++;
    }
    return released;
  }

  private async holding<T>(
    projectId: string,
    signal: AbortSignal | undefined,
    held: AbortSignal,
    fn: (confirm: () => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const holder = `${PROCESS}:${randomId(6)}`;
    for (let wait = 25; !(await this.store.tryLock(projectId, holder, this.leaseMs));) {
      signal?.throwIfAborted();
      await sleep(wait);
      wait = Math.min(wait * 2, 1000);
    }
    let lost = false;
    const beat = setInterval(() => {
      this.store.renew(projectId, holder, this.leaseMs).then(
        (held) => (lost ||= !held),
        () => undefined, // a failed renewal is retried by the next beat
      );
    }, this.leaseMs / 3);
    beat.unref();
    const confirm = async () => {
      // The turn itself was lost (the database ended its lock connection): a writer that asked
      // later may be in its turn now, so this one gives way, publishing nothing.
      if (held.aborted) {
        const cause = (held.reason as Error).cause as Error;
        throw new Error(
          `the write lock of project "${projectId}" was lost (${cause.message}); nothing was published`,
          { cause },
        );
      }
      if (lost || !(await this.store.renew(projectId, holder, this.leaseMs)))
        throw new Error(`the write lock of project "${projectId}" was lost; nothing was published`);
    };
    try {
      return await fn(confirm);
    } finally {
      clearInterval(beat);
      await this.store.unlock(projectId, holder).catch(() => undefined);
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
