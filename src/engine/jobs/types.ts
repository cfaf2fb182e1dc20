// What a job is (types, statuses, the record front doors see) and what a job type plugs in
// (a handler), with the row ↔ job mapping the queue and the runner share.
import type { Logger } from 'pino';
import type { ProjectActor } from '../access/actor.js';
import type { RowOf } from '../db/index.js';

// The types and statuses are the API's (one list, in the contract the app shares).
import {
  FINAL_STATUSES,
  JOB_STATUSES,
  JOB_TYPES,
  type JobStatus,
  type JobType,
} from '../../contract/jobs.js';
export { FINAL_STATUSES, JOB_STATUSES, JOB_TYPES, type JobStatus, type JobType };
/** Statuses of a job not finished yet: queued, planning, running. */
export const ACTIVE: JobStatus[] = ['PREPARED', 'EXPANDING', 'RUNNING'];

export interface Job {
  id: string;
  projectId: string;
  type: JobType;
  status: JobStatus;
  message?: string;
  params: Record<string, unknown>;
  result?: unknown;
  progress?: Record<string, unknown>;
  createdBy: string;
  created: string;
  started?: string;
  finished?: string;
}

export interface JobContext {
  job: Job;
  /** Aborted when the job is cancelled or the server stops; handlers must honour it. */
  signal: AbortSignal;
  log: Logger;
  progress(p: Record<string, unknown>): void;
}

export interface JobHandler {
  /** Planning phase (status EXPANDING): resolve inputs, fail early. */
  expand?(ctx: JobContext): Promise<void>;
  /** The work itself (status RUNNING); its return value is the job's result. */
  run(ctx: JobContext): Promise<unknown>;
}

/**
 * A job as a reader with a row-level filter may see it: counts made over every row (a load's
 * rows, a query result's row count computed under another filter) are withheld.
 */
export type RowFilteredView = (reader: ProjectActor, job: Job) => Job | Promise<Job>;

/** Thrown by a handler for an expected failure: its message becomes the job message. */
export class JobFailure extends Error {}

export interface JobRunnerOptions {
  /** Jobs of the common pool this process runs at once. */
  concurrency: number;
  /** Which types this process runs (URSA_ROLE); the others it only queues. Default: all. */
  runs?: (type: JobType) => boolean;
  /** How long a claim holds without a heartbeat (default 30 s). */
  leaseMs?: number;
  /** How often queued work, waits and dead processes' jobs are looked at (default 1 s). */
  pollMs?: number;
  /** Called with the process id of a job ended because its process died (its write locks go). */
  onDeadProcess?: (processId: string) => Promise<void>;
}

/** A job's row in the metadata database. */
export type JobRow = RowOf<'jobs'>;

export function toJob(r: JobRow): Job {
  return {
    id: r.id,
    projectId: r.projectId,
    type: r.type as JobType,
    status: r.status as JobStatus,
    ...(r.message ? { message: r.message } : {}),
    params: r.params,
    ...(r.result !== null && r.result !== undefined ? { result: r.result } : {}),
    ...(r.progress ? { progress: r.progress } : {}),
    createdBy: r.createdBy,
    created: r.created,
    ...(r.started ? { started: r.started } : {}),
    ...(r.finished ? { finished: r.finished } : {}),
  };
}
