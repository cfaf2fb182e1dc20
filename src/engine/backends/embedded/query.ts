// Queries of an embedded project: DuckDB over the dataset versions current when the read
// starts (data/databases.ts), interrupted on abort.
import { formatCell } from '../../aql/format.js';
import { datasetTable, ident, type ProjectDatabases } from '../../data/databases.js';
import type { DataProfile, DatasetShape, QueryBackend, Rows, SqlParam } from '../backend.js';
import { EMBEDDED } from './target.js';

/** A statement DuckDB refused or failed: the user's to read (not a failure to open the data). */
class StatementError extends Error {}

export class EmbeddedQueries implements QueryBackend {
  readonly kind = 'embedded';
  /** A result holds while the data and model versions do: versions are immutable. */
  readonly resultTtlMs = null;
  readonly profileTtlMs = null;
  readonly jobParams = {};

  constructor(private readonly dbs: ProjectDatabases) {}

  target(): Promise<typeof EMBEDDED> {
    return Promise.resolve(EMBEDDED);
  }

  read(projectId: string, sql: string, params: SqlParam[], signal?: AbortSignal): Promise<Rows> {
    return this.dbs.read(projectId, async (c) => {
      const stop = () => c.interrupt();
      signal?.addEventListener('abort', stop);
      try {
        signal?.throwIfAborted();
        const reader = await c.runAndReadAll(sql, params);
        return {
          columns: reader.columnNames(),
          rows: reader.getRowsJson().map((r) => r.map(formatCell)),
        };
      } catch (err) {
        signal?.throwIfAborted();
        throw new StatementError(String((err as Error).message).split('\n')[0]);
      } finally {
        signal?.removeEventListener('abort', stop);
      }
    });
  }

  describeError(err: unknown): string | null {
    return err instanceof StatementError ? `the query failed while running: ${err.message}` : null;
  }

  /** One read over every dataset: the versions it profiles are one consistent set. */
  async profile(
    projectId: string,
    datasets: DatasetShape[],
    examples: number,
  ): Promise<DataProfile> {
    const rows = new Map<string, number>();
    const byColumn: DataProfile['byColumn'] = new Map();
    await this.dbs.read(projectId, async (c) => {
      for (const d of datasets) {
        const t = datasetTable(d.name);
        rows.set(
          d.name,
          Number((await c.runAndReadAll(`SELECT count(*) AS n FROM ${t}`)).getRowsJson()[0]![0]),
        );
        for (const col of d.columns) {
          const q = `SELECT count(DISTINCT ${ident(col)}) AS n, (SELECT list(v) FROM (SELECT CAST(${ident(col)} AS VARCHAR) AS v, count(*) AS k FROM ${t} WHERE ${ident(col)} IS NOT NULL GROUP BY 1 ORDER BY k DESC, v LIMIT ${examples})) AS ex FROM ${t}`;
          const [n, ex] = (await c.runAndReadAll(q)).getRowsJson()[0]! as [unknown, unknown];
          byColumn.set(`${d.name}.${col}`, {
            cardinality: Number(n),
            examples: (ex as string[] | null) ?? [],
          });
        }
      }
    });
    return { rows, byColumn, failed: new Map() };
  }
}
