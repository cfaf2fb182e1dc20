// A small seeded pseudo-random generator (mulberry32), so the demo data is the same on
// every first start, with the few distributions the flight generator needs.
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.next();
  }

  /** Whole number in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Exponential with the given mean (right-skewed, like flight delays). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** Normal (Box–Muller). */
  normal(mean: number, sd: number): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** One item of the table, with probability proportional to its weight. */
  pick<T>(t: WeightedTable<T>): T {
    const r = this.next() * t.total;
    let i = 0;
    while (i < t.cumulative.length - 1 && t.cumulative[i]! <= r) i++;
    return t.items[i]!;
  }
}

/** Items with their running weight totals, for repeated weighted choices. */
export class WeightedTable<T> {
  readonly items: readonly T[];
  readonly cumulative: number[] = [];
  readonly total: number;

  constructor(items: readonly T[], weight: (t: T) => number) {
    this.items = items.filter((t) => weight(t) > 0);
    let sum = 0;
    for (const t of this.items) this.cumulative.push((sum += weight(t)));
    this.total = sum;
  }

  get empty(): boolean {
    return this.items.length === 0;
  }
}
