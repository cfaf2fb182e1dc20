// What a load is made of, shared by the loader (loads.ts), the dataset sinks that write it
// (backends/*/sink.ts) and flows: kept apart so none of them imports another's module.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LoadedCluster, LoadJobResult } from '../../contract/jobs.js';
import type { Prescription } from './prescription.js';

export interface PlannedCluster {
  name: string;
  source: string;
  mode: 'full' | 'incremental';
  prescription: Prescription;
  /** Written by someone (inline, edited, the dataset's own), not a guess nobody edited. */
  edited?: boolean;
}

/**
 * One dataset to load, however its rows arrive: `stage` creates the staging table (every
 * column in its final type) on the load's connection; the loader does the rest (keys, row
 * limit, model checks, swap or upsert, records), all or nothing with the other clusters.
 */
export interface ClusterLoad extends PlannedCluster {
  /** Remember the prescription for `source` (a storage path): file loads only. */
  remember: boolean;
  stage(c: DuckDBConnection): Promise<void>;
}

/** A load's result (the API's LoadJobResult) as the loader makes it: every count known. */
export interface LoadResult extends LoadJobResult {
  clusters: Record<string, { [K in keyof LoadedCluster]-?: NonNullable<LoadedCluster[K]> }>;
}

/** A dataset a load writes, and how. */
export interface LoadTarget {
  name: string;
  mode: 'full' | 'incremental';
}

/** What the loader does around a sink's writes (the sink decides where the rows go). */
export interface LoadSteps {
  /** Stages one cluster on the sink's DuckDB connection, typed and checked; answers its rows. */
  stage(c: DuckDBConnection, cl: ClusterLoad): Promise<number>;
  /** Every dataset written, nothing published: the last checks (row limit, rights), a flow's files. */
  beforeCommit(totals: Record<string, number>): Promise<void>;
  /** Records the load in the metadata, in one transaction; `commit` (the sink's publish) runs last in it. */
  record(
    loaded: Record<string, number>,
    totals: Record<string, number>,
    /** What each dataset records as its source when not its file (a warehouse's table). */
    sources: Record<string, string>,
    commit: () => Promise<void>,
  ): Promise<LoadResult>;
}
