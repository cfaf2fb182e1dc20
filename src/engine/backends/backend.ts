// The execution seam beside the SQL dialect (in the manner of Malloy's `Connection` beside its
// `Dialect`): where a project's data lives. A QueryBackend runs the SQL the engine compiled
// (permissions, row filters and SQL stay in the engine; a backend only executes) and a
// DatasetSink writes what loads and flow outputs produce. The engine picks a project's
// backend once (registry.ts) and never asks which database it is.
import type { SqlTarget } from '../aql/dialect/dialect.js';
import type { ClusterLoad, LoadResult, LoadSteps, LoadTarget } from '../data/load-types.js';
import type { JobContext } from '../jobs/jobs.js';

export type SqlParam = string | number | boolean | null;

/** An answer: its columns' names and its cells as result text (aql/format.ts). */
export interface Rows {
  columns: string[];
  rows: string[][];
}

/** A dataset as the catalog profiles it: its name and its columns' ids. */
export interface DatasetShape {
  name: string;
  columns: string[];
}

/** What the catalog shows of the data: row counts, distinct counts and frequent values. */
export interface DataProfile {
  rows: Map<string, number>;
  /** By `dataset.column`. */
  byColumn: Map<string, { cardinality: number; examples: string[] }>;
  /** Datasets that could not be read, and why (their rows are then unknown). */
  failed: Map<string, string>;
}

export interface QueryBackend {
  /** The project kind it serves ("embedded", "warehouse"): for messages and logs only. */
  readonly kind: string;
  /** What a project's AQL compiles for: the SQL dialect and the relations of its datasets. */
  target(projectId: string): Promise<SqlTarget>;
  /**
   * Runs compiled SQL with its bound values; aborting `signal` interrupts it. Fails with the
   * database's own error: describeError says what it means to the user.
   */
  read(projectId: string, sql: string, params: SqlParam[], signal?: AbortSignal): Promise<Rows>;
  /**
   * What a failed read tells its user (the job ends ERROR with it, a direct read is a 400),
   * naming the datasets it read when that helps; null for an error that is not the
   * database's answer (a bug: thrown on).
   */
  describeError(err: unknown, datasets: string[]): string | null;
  /**
   * How long a result it computed is served: null while the data and model versions hold
   * (by any process: the result files are shared); else ms, and only by the process that
   * computed it (the data changes outside Ursa, and only that process knows when it read).
   */
  readonly resultTtlMs: number | null;
  /** What a query job records of where it ran (part of the job's params, as the API shows them). */
  readonly jobParams: Readonly<Record<string, unknown>>;
  /** Row counts, distinct counts and the `examples` most frequent values of every column. */
  profile(projectId: string, datasets: DatasetShape[], examples: number): Promise<DataProfile>;
  /** How long a profile stays fresh within a data version (null: for the whole version). */
  readonly profileTtlMs: number | null;
}

export interface DatasetSink {
  readonly kind: string;
  /** A load's checks before its job starts (rights, the tables it would replace): 400/409 now. */
  check(projectId: string, targets: LoadTarget[]): Promise<void>;
  /**
   * Writes every cluster as the project's only writer, all or nothing: each is staged with
   * `steps.stage`, then `steps.beforeCommit`, then published inside `steps.record`. A failure
   * or a cancel leaves every dataset as it was.
   */
  write(ctx: JobContext, plan: ClusterLoad[], steps: LoadSteps): Promise<LoadResult>;
  /** Why data packages cannot be loaded here, or null when they can. */
  readonly packageRefusal: string | null;
}

/** One kind of project: how its queries run and where its loads go. */
export interface ProjectBackend {
  readonly kind: string;
  readonly query: QueryBackend;
  readonly sink: DatasetSink;
}
