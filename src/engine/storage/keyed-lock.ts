// One-at-a-time sections per key (here: per upload), inside this process. The data
// directory is served by one process only (server-record.ts), so this is enough to keep
// two requests from deciding the same thing at once.

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
