// Plan limits. Usage is always counted from the real state (rows, files, jobs); each area
// that owns a countable thing registers how to count it. A limit nobody counts yet reads 0,
// which is the truth while that kind of thing cannot exist.
import { limitExceeded } from '../errors.js';
import { LIMIT_NAMES, type LimitName, type Plan } from './plans.js';

export type UsageCounter = (projectId: string) => number;

export class Limits {
  private counters = new Map<LimitName, UsageCounter>();

  constructor(private readonly planOf: (projectId: string) => Plan) {}

  registerUsage(name: LimitName, counter: UsageCounter): void {
    this.counters.set(name, counter);
  }

  usage(projectId: string, name: LimitName): number {
    return this.counters.get(name)?.(projectId) ?? 0;
  }

  limitOf(projectId: string, name: LimitName): number {
    return this.planOf(projectId).limits[name];
  }

  adherence(projectId: string): Record<LimitName, { limit: number; value: number }> {
    const plan = this.planOf(projectId);
    const out = {} as Record<LimitName, { limit: number; value: number }>;
    for (const name of LIMIT_NAMES)
      out[name] = { limit: plan.limits[name], value: this.usage(projectId, name) };
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
