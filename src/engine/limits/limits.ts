// Plan limits. Usage is always counted from the real state (rows, files, jobs); each area
// that owns a countable thing registers how to count it. A limit nobody counts yet reads 0,
// which is the truth while that kind of thing cannot exist.
import { limitExceeded } from '../errors.js';
import { LIMIT_NAMES, type LimitName, type Plan } from './plans.js';

/**
 * Counts one kind of usage. A counter that must read many things (storage walks the files)
 * is asynchronous: it never blocks the event loop, and `check` cannot use it.
 */
export type UsageCounter = (projectId: string) => number | Promise<number>;

export class Limits {
  private counters = new Map<LimitName, UsageCounter>();

  constructor(private readonly planOf: (projectId: string) => Plan) {}

  registerUsage(name: LimitName, counter: UsageCounter): void {
    this.counters.set(name, counter);
  }

  /** Current usage; for a synchronous counter (a guard inside a transaction). */
  usage(projectId: string, name: LimitName): number {
    const v = this.counters.get(name)?.(projectId) ?? 0;
    if (typeof v !== 'number')
      throw new Error(`the usage of "${name}" is counted asynchronously; read it with adherence()`);
    return v;
  }

  limitOf(projectId: string, name: LimitName): number {
    return this.planOf(projectId).limits[name];
  }

  async adherence(projectId: string): Promise<Record<LimitName, { limit: number; value: number }>> {
    const plan = this.planOf(projectId);
    const values = await Promise.all(
      LIMIT_NAMES.map((name) => this.counters.get(name)?.(projectId) ?? 0),
    );
    const out = {} as Record<LimitName, { limit: number; value: number }>;
    LIMIT_NAMES.forEach((name, i) => {
      out[name] = { limit: plan.limits[name], value: values[i]! };
    });
    return out;
  }

  /** Throws a 402-kind error when adding `extra` would go over the plan's limit. */
  check(projectId: string, name: LimitName, extra: number): void {
    assertWithin(name, this.planOf(projectId).limits[name], this.usage(projectId, name), extra);
  }
}

export function assertWithin(name: LimitName, limit: number, used: number, extra: number): void {
  if (used + extra > limit) {
    throw limitExceeded(
      `plan limit "${name}" exceeded: ${used} used + ${extra} requested > ${limit} allowed`,
      {
        limit: name,
        allowed: limit,
        used,
        requested: extra,
      },
    );
  }
}
