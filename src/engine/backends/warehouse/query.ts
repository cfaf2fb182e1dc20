// Queries of a warehouse project: PostgreSQL on the customer's tables, on a replica or the
// primary (warehouse/connection.ts). Its data changes outside Ursa, so answers and profiles
// expire.
import type { SqlTarget } from '../../aql/dialect/dialect.js';
import type { Datasets } from '../../data/datasets.js';
import { EngineError } from '../../errors.js';
import { WarehouseError, type Warehouse } from '../../warehouse/warehouse.js';
import type { DataProfile, DatasetShape, QueryBackend, Rows, SqlParam } from '../backend.js';

/** A profile is read again after the result cache's expiry, and never sooner than this. */
const MIN_PROFILE_MS = 60_000;

export class WarehouseQueries implements QueryBackend {
  readonly kind = 'warehouse';
  /** The API shows it in a query job's params: the answer expires. */
  readonly jobParams = { warehouse: true };

  constructor(
    private readonly warehouse: Warehouse,
    private readonly datasets: Datasets,
  ) {}

  get resultTtlMs(): number {
    return this.warehouse.cacheMs;
  }

  get profileTtlMs(): number {
    return Math.max(this.warehouse.cacheMs, MIN_PROFILE_MS);
  }

  async target(projectId: string): Promise<SqlTarget> {
    return this.warehouse.target(await this.datasets.rows(projectId));
  }

  /** On a replica (or the primary): cells as result text. */
  read(projectId: string, sql: string, params: SqlParam[], signal?: AbortSignal): Promise<Rows> {
    return this.warehouse.answer(projectId, sql, params, signal);
  }

  /** Its errors end the job ERROR naming the datasets, never a 500. */
  describeError(err: unknown, datasets: string[]): string | null {
    if (!(err instanceof WarehouseError) && !(err instanceof EngineError)) return null;
    const ds = datasets.length
      ? ` reading dataset${datasets.length > 1 ? 's' : ''} ${datasets.join(', ')}`
      : '';
    return `the warehouse (PostgreSQL) could not answer${ds}: ${err.message}`;
  }

  /**
   * Table by table: one changed or dropped outside Ursa is reported in `failed` and the rest
   * still described (a server that cannot be reached is not asked again for each table).
   */
  async profile(
    projectId: string,
    datasets: DatasetShape[],
    examples: number,
  ): Promise<DataProfile> {
    const { table, column } = (await this.target(projectId)).relations;
    const rows = new Map<string, number>();
    const byColumn: DataProfile['byColumn'] = new Map();
    const failed = new Map<string, string>();
    const read = (sql: string) => this.warehouse.read(projectId, sql, []);
    let unreachable: string | null = null;
    for (const d of datasets) {
      const t = table(d.name);
      if (unreachable) {
        failed.set(d.name, unreachable);
        continue;
      }
      try {
        rows.set(d.name, Number((await read(`SELECT count(*) FROM ${t}`))[0]![0]));
        for (const col of d.columns) {
          const c = column(d.name, col);
          const [n, ex] = (
            await read(
              `SELECT count(DISTINCT ${c}), (SELECT json_agg(v) FROM (SELECT CAST(${c} AS TEXT) AS v, count(*) AS k FROM ${t} WHERE ${c} IS NOT NULL GROUP BY 1 ORDER BY k DESC, v LIMIT ${examples}) e) FROM ${t}`,
            )
          )[0]!;
          byColumn.set(`${d.name}.${col}`, {
            cardinality: Number(n),
            examples: ex ? (JSON.parse(ex) as string[]) : [],
          });
        }
      } catch (err) {
        if (!(err instanceof WarehouseError)) throw err;
        rows.delete(d.name);
        const why = `the warehouse (PostgreSQL) ${err.phase === 'connect' ? 'could not be reached' : 'could not read it'}: ${err.message}`;
        if (err.phase === 'connect') unreachable = why;
        failed.set(d.name, why);
      }
    }
    return { rows, byColumn, failed };
  }
}
