// Running a query (docs/api.md "Queries"): POST app/aql/execute, GET app/aql/data/{job} and
// the plan of POST app/aql/explain.
import type { QueryWarning } from './dashboards.js';
import type { JobStatus } from './jobs.js';
import type { Link } from './links.js';

/** A query's result: `values` rows joined by newlines, cells by tabs (docs/aql.md §9). */
export interface QueryData {
  values: string;
  visual: { column: Array<{ title: string }> };
  /** Only on 0-row answers: text values in WHERE that match no member, and the closest. */
  warnings?: QueryWarning[];
}

/**
 * What execute and the data link answer: `data` once the job ended OK; while it runs, its
 * status and links (`scache`/`scache.created` the job, `data.created` the data link).
 */
export interface QueryAnswer {
  data?: QueryData;
  status?: JobStatus;
  link?: Link[];
}

/** A result column as the plan tells it (explain's `columns`). */
export interface PlannedColumn {
  title: string;
  kind: 'dimension' | 'measure';
  /** `nested` for NEST(SELECT …): each cell is a list of rows with `columns`. */
  dataType: string;
  columns?: PlannedColumn[];
}
