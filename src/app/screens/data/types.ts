// The shapes the Data screen reads from the API (docs/api.md "Storage", "Loading data",
// "Jobs", "Data integration"; docs/loading.md for the prescription).

import { DATA_TYPE_NAMES, type DataType } from '../../../contract/data';
import { isFinal, type JobStatus } from '../../../contract/jobs';
import type { ColumnKind } from '../../../contract/guess';
import type { StorageItem } from '../../../contract/storage';

export { isFinal, type DataType, type JobStatus, type StorageItem };
export const DATA_TYPES: readonly DataType[] = DATA_TYPE_NAMES;

/** The column kinds as the form names them. */
export const OBJECT_TYPES: Array<[ColumnKind, string]> = [
  ['A', 'Attribute'],
  ['L', 'Label'],
  ['F', 'Fact'],
];

export interface Job {
  id: string;
  type: string;
  status: JobStatus;
  message?: string;
  progress?: { cluster?: string; percentage?: number; rowsLoaded?: number };
  result?: {
    clusters?: Record<string, { rows: number; loaded: number; mode: string; source: string }>;
    outputs?: Array<{ box: string; type: string; dataset?: string; path?: string; rows: number }>;
  };
}

/** A 201/202 answer that started a job: its `scache` link. */
export interface JobLink {
  link: Array<{ rel: string; id: string; href: string }>;
}

export interface Dataset {
  name: string;
  rows: number | null;
  /** A warehouse table's rows are PostgreSQL's estimate. */
  rowsEstimated?: boolean;
  columns: number;
  primaryKey: string;
  source: string;
  loaded: string;
  loadedBy: string;
  dataVersion: number;
}

export interface LoadEvent {
  id: number;
  time: string;
  user: string;
  message: string;
  // Row counts are null for a reader under a row-level filter.
  detail: {
    dataset: string;
    mode: string;
    source: string;
    rowsLoaded: number | null;
    rows: number | null;
  };
}

export interface Flow {
  id: string;
  name: string;
  inputs: Array<{ box: string; type: string; source: string }>;
  outputs: Array<{ box: string; type: string; target: string }>;
  running: boolean;
  lastRun: {
    job: string;
    status: JobStatus;
    started: string;
    finished?: string;
    message?: string;
  } | null;
}
