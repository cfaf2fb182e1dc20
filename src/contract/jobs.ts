// Jobs as the API answers them (docs/api.md "Jobs"): types, statuses, the job itself, and
// what a load job reports while it runs and when it ends.
import type { Link } from './links.js';

export const JOB_TYPES = ['transform', 'flow', 'report', 'ai', 'delivery'] as const;
export type JobType = (typeof JOB_TYPES)[number];

// A job's status as the API answers it.
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

/**
 * A job (GET kodiak/scache/obj/{job}): flat, with its links. `result` and `progress` are the
 * job type's own (a load's: LoadJobResult, LoadProgress).
 */
export interface JobView<R = unknown, P = Record<string, unknown>> {
  id: string;
  type: JobType;
  status: JobStatus;
  message?: string;
  params: Record<string, unknown>;
  result?: R;
  progress?: P;
  createdBy: string;
  created: string;
  started?: string;
  finished?: string;
  link: Link[];
}

/** An answer that started a job (202, a flow run 201): its `scache` link. */
export interface JobStarted {
  link: Link[];
}

/**
 * One dataset of a load job's result. The counts are over every row, so a reader with a
 * row-level filter gets them as null; a warehouse mapping (mode "map") loads nothing and
 * has no `loaded`.
 */
export interface LoadedCluster {
  rows: number | null;
  loaded?: number | null;
  mode: string;
  source: string;
}

/** The result of a load job (type transform): each dataset it wrote. */
export interface LoadJobResult {
  clusters: Record<string, LoadedCluster>;
  dataVersion: number;
  /** A table mapping's proposed metrics (not created): create_metric / POST pmd/obj each. */
  suggestedMetrics?: SuggestedMetric[];
  /** A table mapping with `calendar: true` that loads the calendar: that load's job. */
  calendarJobId?: string;
}

/** A metric a table mapping proposes: the fields a metric object is created with. */
export interface SuggestedMetric {
  title: string;
  aql: string;
  description: string;
  format: string;
}

/** A load job's progress: the dataset being written, how far (rows null as above). */
export interface LoadProgress {
  cluster?: string;
  percentage?: number;
  rowsLoaded?: number | null;
}
