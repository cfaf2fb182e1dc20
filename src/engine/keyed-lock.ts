// One-at-a-time sections per key inside this process, in the order they were asked for: the
// one in-process lock (uploads per target path, the SQLite store's writer and named locks, a
// DuckDB instance's ATTACH/DETACH). Across processes, callers take the store's cluster-wide
// lock (Store.exclusive) inside it, so one process's waiters do not each hold a connection.

export class KeyedLock {
  private tails = new Map<string, Promise<void>>();

  /**
   * Waits for every earlier holder of `key`; resolves with the function that releases it.
   * A waiter whose `signal` aborts is refused at once with its reason and holds nothing (its
   * place stays in the queue, so the others keep their order).
   */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    const prev = this.tails.get(key) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    const release = () => {
      done();
      // The last holder leaves no entry behind: keys may be per upload, the map must not grow.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
    try {
      await (signal ? untilAborted(prev, signal) : prev);
      signal?.throwIfAborted();
    } catch (e) {
      release();
      throw e;
    }
    return release;
  }

  /** Runs `fn` holding `key` (see acquire); once started, `fn` is not interrupted. */
  async run<T>(key: string, fn: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(key, signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/** `p`, or the signal's reason as soon as it aborts. */
function untilAborted(p: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
