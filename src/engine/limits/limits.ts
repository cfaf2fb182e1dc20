// Plan limits. Usage is always counted from the real state (rows, files, jobs); each area
// that owns a countable thing registers how to count it. A limit nobody counts yet reads 0,
// which is the truth while that kind of thing cannot exist.
import { limitExceeded } from '../errors.js';
import { LIMIT_NAMES, type LimitName, type Plan } from './plans.js';

/** Counts one kind of usage (from the metadata store or the files: asynchronous). */
export type UsageCounter = (projectId: string) => number | Promise<number>;

export class Limits {
  private counters = new Map<LimitName, UsageCounter>();

  constructor(private readonly planOf: (projectId: string) => Promise<Plan>) {}

  registerUsage(name: LimitName, counter: UsageCounter): void {
    this.counters.set(name, counter);
  }

  /** Current usage (inside a transaction: as that transaction sees it). */
  async usage(projectId: string, name: LimitName): Promise<number> {
    return (await this.counters.get(name)?.(projectId)) ?? 0;
  }

  async limitOf(projectId: string, name: LimitName): Promise<number> {
    return (await this.planOf(projectId)).limits[name];
  }

  async adherence(projectId: string): Promise<Record<LimitName, { limit: number; value: number }>> {
    const plan = await this.planOf(projectId);
    const values = await Promise.all(
      LIMIT_NAMES.map(async (name) => (await this.counters.get(name)?.(projectId)) ?? 0),
    );
    const out = {} as Record<LimitName, { limit: number; value: number }>;
    LIMIT_NAMES.forEach((name, i) => {
      out[name] = { limit: plan.limits[name], value: values[i]! };
    });
    return out;
  }

  /** Throws a 402-kind error when adding `extra` would go over the plan's limit. */
  async check(projectId: string, name: LimitName, extra: number): Promise<void> {
    const limit = (await this.planOf(projectId)).limits[name];
    assertWithin(name, limit, await this.usage(projectId, name), extra);
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
