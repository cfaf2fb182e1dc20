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

/** A load refused by the plan's `datasetRows`: the total counts every row of the project. */
export const rowLimitMessage = (total: number, limit: number) =>
  `plan limit "datasetRows" exceeded: the project would hold ${total} rows, ${limit} allowed; nothing was loaded`;

/** A message (a job's, a flow run's) without the project's total of rowLimitMessage. */
export const withoutRowTotal = (message: string) =>
  message.replace(
    /the project would hold \d+ rows, (\d+) allowed/g,
    'the project would hold more than the $1 rows allowed',
  );

/** jobWithoutCounts, and a message that quotes the project's row total without it. */
export function loadJobWithoutCounts(job: Job, keys: ReadonlySet<string>): Job {
  const out = jobWithoutCounts(job, keys);
  return out.message ? { ...out, message: withoutRowTotal(out.message) } : out;
}
