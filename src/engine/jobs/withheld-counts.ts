// Row counts a reader with a row-level filter may not see: a load counts every row of its
// datasets, a flow every row it wrote, and those rows are not all theirs (docs/api.md,
// "Access"). Jobs show them as null to such a reader, as kodiak/dataload and the activity log do.
import type { Job } from './jobs.js';

/** `value` with every number under one of `keys`, at any depth, replaced by null. */
export function withoutCounts(value: unknown, keys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutCounts(v, keys));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      keys.has(k) && typeof v === 'number' ? null : withoutCounts(v, keys),
    ]),
  );
}

/** The job with the counts under `keys` withheld from its result and its progress. */
export function jobWithoutCounts(job: Job, keys: ReadonlySet<string>): Job {
  return {
    ...job,
    ...(job.result !== undefined ? { result: withoutCounts(job.result, keys) } : {}),
    ...(job.progress
      ? { progress: withoutCounts(job.progress, keys) as Record<string, unknown> }
      : {}),
  };
}
