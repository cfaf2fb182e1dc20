// How many rows a warehouse table holds, as kodiak/dataload and the mapping job say it: a
// table's rows change outside Ursa, so they are read from PostgreSQL when asked. A small table
// (or view) is counted exactly; the count stops after EXACT_UP_TO rows, so it costs little
// whatever the size, and a larger table answers the planner's estimate (pg_class.reltuples,
// kept by VACUUM and ANALYZE), marked as one; so does a view too slow to count.
import { WarehouseError, type Server } from './connection.js';
import { relationSql } from './catalog.js';

/** Tables up to this many rows are counted exactly. */
export const EXACT_UP_TO = 100_000;

export interface RowCount {
  rows: number;
  /** True when `rows` is PostgreSQL's estimate (or, for a large view, a lower bound). */
  estimated: boolean;
}

export async function countRows(server: Server, schema: string, table: string): Promise<RowCount> {
  // A slow view is not counted (a request waits on this): its estimate is what is known.
  const counted = await server
    .query(
      `SELECT count(*) FROM (SELECT 1 FROM ${relationSql(schema, table)} LIMIT ${EXACT_UP_TO + 1}) t`,
      [],
      undefined,
      server.sampleTimeoutMs,
    )
    .catch((err: unknown) => {
      if (err instanceof WarehouseError && err.sqlState === '57014') return null;
      throw err;
    });
  const n = counted ? Number(counted.rows[0]?.[0] ?? 0) : 0;
  if (counted && n <= EXACT_UP_TO) return { rows: n, estimated: false };
  // -1: never analyzed; a view has no estimate of its own. Then the bound is what is known.
  const est = await server.query(
    `SELECT c.reltuples::float8 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1::text AND c.relname = $2::text`,
    [schema, table],
  );
  const reltuples = Number(est.rows[0]?.[0] ?? -1);
  return { rows: Math.max(n, Math.round(reltuples)), estimated: true };
}
