// One-at-a-time sections per key, inside this process only. Where several processes share
// the data directory, callers take the cluster-wide lock (Store.exclusive) inside it: this
// queue just keeps one process's requests from each holding a lock connection.

export class KeyedLock {
  private tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      // The last holder leaves no entry behind, so the map does not grow with every upload.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
