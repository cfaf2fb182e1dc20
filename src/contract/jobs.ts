// A job's status as the API answers it (docs/api.md "Jobs").
export const JOB_STATUSES = [
  'PREPARED',
  'EXPANDING',
  'RUNNING',
  'OK',
  'ERROR',
  'CANCELLED',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: readonly JobStatus[] = ['OK', 'ERROR', 'CANCELLED'];
export const isFinal = (s: JobStatus | undefined): boolean =>
  s !== undefined && FINAL_STATUSES.includes(s);
