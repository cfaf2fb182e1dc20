// Loads into a warehouse project (SCALE.md "Data where it already lives"): files and flow
// outputs are read and checked exactly as for an embedded project (loads.ts stages them in a
// scratch DuckDB: the same prescription, rejects, messages and key checks), then written to
// the bound schema in ONE transaction on the primary: a table per dataset created, filled by
// COPY … FROM STDIN, typed and keyed; a full load swaps it in for the dataset's table, an
// incremental one merges it by primary key. A table others' views or foreign keys depend on
// is refilled in place instead of swapped (its columns and key unchanged). The metadata (datasets, model, data version) is
// recorded with the warehouse's COMMIT as its last step, so a failure anywhere leaves both as
// they were. Only tables Ursa created (their comment carries its marker) are ever replaced.
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { lit } from '../data/databases.js';
import type { Datasets } from '../data/datasets.js';
import type { Prescription } from '../data/prescription.js';
import { stagingTable } from '../data/load-sql.js';
import type { ClusterLoad, LoadResult, LoadSteps, LoadTarget } from '../data/load-types.js';
import { conflict, EngineError, invalid } from '../errors.js';
import { JobFailure, type JobContext } from '../jobs/jobs.js';
import type { Checkout } from '../db/checkout.js';
import { WarehouseError, type Server } from './connection.js';
import {
  commentSql,
  copySql,
  createTableSql,
  DEPENDENTS_SQL,
  GRANTS_SQL,
  grantSql,
  marker,
  primaryKeySql,
  PRIVILEGES_SQL,
  refillSql,
  RELATION_SQL,
  relation,
  replaceSql,
  SHAPE_SQL,
  shapeOf,
  stagingName,
  tableOf,
  upsertSql,
} from './load-sql.js';
import { loadedSource, sourceTable, type Warehouse } from './warehouse.js';

/** What a run's scratch DuckDB may hold in memory before it spills to its folder. */
const MEMORY_LIMIT = '512MB';

/** A relation named like the dataset's table, as the catalog has it. */
interface Existing {
  kind: string;
  ours: boolean;
}

export class WarehouseLoads {
  constructor(
    private readonly deps: {
      warehouse: Warehouse;
      datasets: Datasets;
      /** Where a load keeps its scratch files (the project's folder). */
      scratchDir: (projectId: string) => string;
    },
  ) {}

  /**
   * The request's checks, before a job is started: the role may create tables in the bound
   * schema (400 naming the privilege), and each dataset's table is absent or one Ursa created
   * for it (409); an incremental load needs the table a full load made.
   */
  async check(projectId: string, plan: LoadTarget[]): Promise<void> {
    const { b, set } = await this.deps.warehouse.servers(projectId);
    const server = set.primary;
    try {
      const why = await privilegeProblem(
        (sql, params) => server.query(sql, params).then((r) => r.rows),
        b.schema,
      );
      if (why) throw invalid(why, { field: 'warehouse.schema', schema: b.schema });
      for (const cl of plan) {
        const table = tableOf(cl.name);
        const rows = (await server.query(RELATION_SQL, [b.schema, table])).rows;
        const existing = rows[0] ? existingOf(rows[0], projectId, cl.name) : null;
        const problem = tableProblem(projectId, b.schema, cl, existing);
        if (problem) throw conflict(problem, { cluster: cl.name, table: `${b.schema}.${table}` });
        if (cl.mode === 'incremental') {
          const source = (await this.deps.datasets.get(projectId, cl.name))?.source ?? null;
          const now = sourceTable(source);
          if (!existing || !now?.loaded || now.schema !== b.schema || now.table !== table)
            throw invalid(fullFirst(cl.name, b.schema, now), { cluster: cl.name });
        }
      }
    } catch (err) {
      if (err instanceof WarehouseError)
        throw invalid(
          `the warehouse (PostgreSQL ${server.where}) cannot be loaded: ${err.message}`,
        );
      throw err;
    }
  }

  /** The job's part: stage every cluster, then write them all in one transaction. */
  async write(ctx: JobContext, plan: ClusterLoad[], steps: LoadSteps): Promise<LoadResult> {
    const { projectId } = ctx.job;
    let b, set;
    try {
      ({ b, set } = await this.deps.warehouse.servers(projectId));
    } catch (err) {
      if (err instanceof EngineError) throw new JobFailure(`${err.message}; nothing was loaded`);
      throw err;
    }
    const schema = b.schema;
    const server = set.writer;
    const root = this.deps.scratchDir(projectId);
    const dir = path.join(root, ctx.job.id);
    // This runs as the project's only writer: any other folder is a dead load's leftovers.
    for (const name of await fs.readdir(root).catch(() => [] as string[]))
      await fs.rm(path.join(root, name), { recursive: true, force: true }).catch(() => undefined);
    await fs.mkdir(dir, { recursive: true });
    const duck = await DuckDBInstance.create(':memory:', {
      threads: '2',
      memory_limit: MEMORY_LIMIT,
      temp_directory: path.join(dir, 'spill'),
    });
    let c: DuckDBConnection | null = null;
    let held: Checkout | null = null;
    let client: pg.PoolClient | null = null;
    let broken = false;
    let committed = false;
    let current = '';
    const stop = () => {
      c?.interrupt();
      if (client) {
        broken = true;
        void server.cancel(client);
      }
    };
    ctx.signal.addEventListener('abort', stop);
    try {
      c = await duck.connect();
      await c.run("SET TimeZone = 'UTC'"); // datetimes are read as UTC (data/load-sql.ts)
      await c.run('SET enable_progress_bar = true');
      await c.run('SET enable_progress_bar_print = false');
      // Every file is read and checked before the warehouse is touched.
      const loaded: Record<string, number> = {};
      const files = new Map<string, string>();
      for (const cl of plan) {
        loaded[cl.name] = await steps.stage(c, cl);
        const file = path.join(dir, `${cl.name}.csv`);
        await c.run(`COPY ${stagingTable(cl.name)} TO ${lit(file)} (FORMAT csv, HEADER false)`);
        await c.run(`DROP TABLE ${stagingTable(cl.name)}`);
        files.set(cl.name, file);
      }
      ctx.signal.throwIfAborted();

      held = await server.session();
      client = held.client;
      ctx.signal.throwIfAborted();
      const session = client;
      const run = async (sql: string, params: unknown[] = []): Promise<unknown[][]> => {
        try {
          return (await session.query({ text: sql, values: params, rowMode: 'array' }))
            .rows as unknown[][];
        } catch (err) {
          throw server.describe(err, 'query');
        }
      };
      await run('BEGIN');
      const why = await privilegeProblem(run, schema);
      if (why) throw new JobFailure(`${why}; nothing was loaded`);
      const totals: Record<string, number> = {};
      for (const cl of plan) {
        current = cl.name;
        totals[cl.name] = await this.writeOne(run, session, server, projectId, schema, cl, {
          file: files.get(cl.name)!,
          rows: loaded[cl.name]!,
        });
        ctx.signal.throwIfAborted();
      }
      current = '';
      await steps.beforeCommit(totals);
      ctx.signal.throwIfAborted();
      const sources = Object.fromEntries(
        plan.map((cl) => [cl.name, loadedSource(schema, tableOf(cl.name))]),
      );
      return await steps.record(loaded, totals, sources, async () => {
        ctx.signal.throwIfAborted();
        await run('COMMIT');
        committed = true;
      });
    } catch (err) {
      if (client && !committed && !broken)
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
      ctx.signal.throwIfAborted();
      if (err instanceof WarehouseError) {
        broken ||= err.phase === 'connect';
        const what = current ? ` of dataset "${current}"` : '';
        // The message names the server already: not again in PostgreSQL's reason.
        const reason = err.message.replace(`PostgreSQL server ${server.where}: `, '');
        throw new JobFailure(
          `the warehouse (PostgreSQL ${server.where}) refused the load${what} into schema "${schema}": ${reason}; nothing was loaded`,
        );
      }
      throw err;
    } finally {
      ctx.signal.removeEventListener('abort', stop);
      held?.release(broken);
      c?.closeSync();
      duck.closeSync();
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Writes one dataset's table in the open transaction; answers its rows after the load. */
  private async writeOne(
    run: (sql: string, params?: unknown[]) => Promise<unknown[][]>,
    session: pg.PoolClient,
    server: Server,
    projectId: string,
    schema: string,
    cl: ClusterLoad,
    staged: { file: string; rows: number },
  ): Promise<number> {
    const p = cl.prescription;
    const table = tableOf(cl.name);
    const rows = await run(RELATION_SQL, [schema, table]);
    const existing = rows[0] ? existingOf(rows[0], projectId, cl.name) : null;
    const problem = tableProblem(projectId, schema, cl, existing);
    if (problem) throw new JobFailure(`${problem}; nothing was loaded`);
    if (cl.mode === 'incremental' && !existing)
      throw new JobFailure(`${fullFirst(cl.name, schema, null)}; nothing was loaded`);
    // Objects of others on the table (views, foreign keys onto it) would stop a DROP: such a
    // table is refilled in place, which needs it to keep its columns and key.
    const dependents =
      cl.mode === 'full' && existing
        ? (await run(DEPENDENTS_SQL, [relation(schema, table)])).map((r) => String(r[0]))
        : [];
    if (dependents.length) {
      const problem = shapeProblem(
        schema,
        table,
        p,
        dependents,
        await run(SHAPE_SQL, [relation(schema, table)]),
      );
      if (problem) throw new JobFailure(`${problem}; nothing was loaded`);
    }
    const fill = stagingName();
    await run(createTableSql(schema, fill, p));
    try {
      const copy = session.query(copyFrom(copySql(schema, fill, p)));
      // The pipeline hears the stream's errors while it runs; one after (a connection lost as
      // the COPY ends) must not end the process.
      copy.on('error', () => undefined);
      await pipeline(createReadStream(staged.file), copy);
    } catch (err) {
      throw server.describe(err, 'query');
    }
    if (cl.mode === 'incremental') {
      for (const sql of upsertSql(schema, fill, table, p)) await run(sql);
      return Number((await run(`SELECT count(*) FROM ${relation(schema, table)}`))[0]![0]);
    }
    if (dependents.length) {
      for (const sql of refillSql(schema, fill, table, p)) await run(sql);
      return staged.rows;
    }
    const pk = primaryKeySql(schema, fill, p);
    if (pk) await run(pk);
    // Who could read the old table can read the new one.
    const grants = existing ? await run(GRANTS_SQL, [schema, table]) : [];
    for (const sql of replaceSql(schema, fill, table, existing !== null)) await run(sql);
    await run(commentSql(schema, table, projectId, cl.name));
    for (const [grantee, privilege, grantable] of grants) {
      const sql =
        typeof grantee === 'string'
          ? grantSql(schema, table, grantee, String(privilege), grantable === true)
          : null;
      if (sql) await run(sql);
    }
    return staged.rows;
  }
}

function existingOf(row: unknown[], projectId: string, dataset: string): Existing {
  return {
    kind: String(row[0]),
    ours: String(row[1]).includes(marker(projectId, dataset)),
  };
}

/** Why the dataset's table cannot be written (a 409's message), or null. */
function tableProblem(
  projectId: string,
  schema: string,
  cl: LoadTarget,
  existing: Existing | null,
): string | null {
  const name = `${schema}.${tableOf(cl.name)}`;
  if (!existing) return null;
  if ((existing.kind === 'r' || existing.kind === 'p') && existing.ours) return null;
  return `${name} exists and was not created by Ursa for dataset "${cl.name}" of project "${projectId}"; Ursa never replaces or changes a table it did not create: map it with source_type "table", or load into another dataset name`;
}

/** Why a table others depend on cannot be refilled in place by this load, or null. */
function shapeProblem(
  schema: string,
  table: string,
  p: Prescription,
  dependents: string[],
  rows: unknown[][],
): string | null {
  const [columns = [], key = []] = (rows[0] ?? []).map((v) => JSON.parse(String(v)) as string[]);
  const want = shapeOf(p);
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  if (same(columns, want.columns) && same(key, want.key)) return null;
  const shape = (cols: string[], k: string[]) =>
    `(${cols.join(', ')}${k.length ? `; primary key ${k.join(', ')}` : '; no primary key'})`;
  return `${schema}.${table} has objects depending on it (${dependents.join(', ')}), so a full load keeps the table and replaces its rows, which needs the same columns, types and primary key: the table has ${shape(columns, key)}, the load makes ${shape(want.columns, want.key)}; load those columns, or drop or change the objects first`;
}

function fullFirst(
  dataset: string,
  schema: string,
  now: { schema: string; table: string; loaded: boolean } | null,
): string {
  const where =
    now && !now.loaded
      ? `mapped from ${now.schema}.${now.table}`
      : `not in table ${schema}.${tableOf(dataset)}`;
  return `incremental load of "${dataset}" needs the dataset loaded into the warehouse in full first (it is ${where})`;
}

/** Why the role cannot create tables in the schema, or null. */
async function privilegeProblem(
  run: (sql: string, params: unknown[]) => Promise<unknown[][]>,
  schema: string,
): Promise<string | null> {
  const [exists, usage, create, user] = (await run(PRIVILEGES_SQL, [schema]))[0]!;
  if (!exists) return `schema "${schema}" does not exist in the warehouse`;
  if (!usage || !create)
    return `role "${String(user)}" lacks the ${usage ? 'CREATE' : 'USAGE and CREATE'} privilege on schema "${schema}", which loading into the warehouse needs (GRANT CREATE ON SCHEMA ${schema} TO ${String(user)})`;
  return null;
}
