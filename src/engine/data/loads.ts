// Data loads: `transform/execute` with type "cluster" starts one job that loads every named
// cluster from project storage into new dataset versions, all or nothing: they are published
// together, so a failed or cancelled load leaves the previous data intact. Where the rows go
// is the project's dataset sink (backends/): new DuckDB versions, or a warehouse's tables.
import type { LoadDetail } from '../../contract/activity.js';
import { createReadStream } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { requireLevel, resolveActor, type ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { and, eq, inArray } from 'drizzle-orm';
import { type Db, tx, tablesOf } from '../db/index.js';
import { EngineError, invalid } from '../errors.js';
import { JobFailure, type Job, type JobContext, type JobRunner } from '../jobs/jobs.js';
import { loadJobWithoutCounts, rowLimitMessage } from '../jobs/withheld-counts.js';
import type { Limits } from '../limits/limits.js';
import { titleKey } from '../model/defs.js';
import type { ModelStore } from '../model/store.js';
import type { Storage } from '../storage/storage.js';
import type { RowFilterGuard } from '../users/row-filter-guard.js';
import { parseInput } from '../validate.js';
import type { Backends, DatasetSink } from '../backends/create.js';
import type { Datasets } from './datasets.js';
import { assertTitlesFree, projectLoad } from './load-model.js';
import {
  badBooleansSql,
  duplicateKeysSql,
  nullKeysSql,
  rejectsTable,
  stageSql,
  stagingTable,
} from './load-sql.js';
import type { ClusterLoad, LoadResult, LoadTarget, PlannedCluster } from './load-types.js';
import type { Prescription } from './prescription.js';
import { uniqueLabels, type Prescriptions } from './prescriptions.js';

const CLUSTER = /^[a-z][a-z0-9_]{0,62}$/;

/** A mapped table's description, and its columns' titles and descriptions (REST and MCP). */
export const MAPPED_DESCRIPTION = z.string().max(10_000);
export const MAPPED_COLUMNS = z.record(
  z.string(),
  z
    .object({
      title: z.string().trim().min(1).max(255).optional(),
      description: MAPPED_DESCRIPTION.optional(),
    })
    .strict(),
);

const clusterSchema = z
  .object({
    source_type: z.string(),
    source: z.string().min(1),
    mode: z.enum(['full', 'incremental']).default('full'),
    prescription: z.unknown().optional(),
    // A mapped table's (source_type "table") words: its description and columns' titles.
    description: MAPPED_DESCRIPTION.optional(),
    columns: MAPPED_COLUMNS.optional(),
  })
  .strict();
const bodySchema = z.object({
  type: z.literal('cluster'),
  /** Mapping tables: link date columns to the calendar (warehouse/mapping.ts). */
  calendar: z.boolean().optional(),
  clusters: z.record(
    z
      .string()
      .regex(
        CLUSTER,
        'cluster names are 1-63 lowercase letters, digits or "_", starting with a letter',
      ),
    clusterSchema,
  ),
});

export const SOURCE_TYPES = ['webdav'] as const;

export type { ClusterLoad, LoadResult, LoadTarget, PlannedCluster };

/** A load's (or a mapping's) counts of its datasets' rows: over every row, not a reader's. */
const LOAD_COUNTS = new Set(['rows', 'loaded', 'rowsLoaded']);

export class Loads {
  private rowFilterGuard: RowFilterGuard | null = null;

  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    /** Where each project's loads are written. */
    private readonly backends: Backends,
    private readonly prescriptions: Prescriptions,
    private readonly datasets: Datasets,
    private readonly model: ModelStore,
    private readonly limits: Limits,
    private readonly activity: ActivityLog,
    private readonly jobs: JobRunner,
  ) {
    jobs.register(
      'transform',
      {
        expand: async (ctx) => {
          if (isTableMap(ctx.job)) return; // mapped warehouse tables: checked by their job
          // The files may have changed since the request: check them again before any work.
          for (const c of planOf(ctx.job)) await this.storage.require(ctx.job.projectId, c.source);
        },
        run: (ctx) => (isTableMap(ctx.job) ? this.tableMapper!.run(ctx) : this.run(ctx)),
      },
      { rowFiltered: (_reader, job) => loadJobWithoutCounts(job, LOAD_COUNTS) },
    );
  }

  /** Maps warehouse tables (source_type "table"), in a warehouse project. */
  private tableMapper: TableMapper | null = null;

  setTableMapper(mapper: TableMapper): void {
    this.tableMapper = mapper;
  }

  /** A load that changes what a member's row-level filter selects needs a User Admin. */
  setRowFilterGuard(guard: RowFilterGuard | null): void {
    this.rowFilterGuard = guard;
  }

  /**
   * Whether `a` may load `plan`, the rule of every load (files, flow outputs): its new titles
   * must be free (409), members' row filters must select what they did (403 below User
   * Admin), and the loaded datasets must not be ones the actor's own row filter reads (403:
   * they would pick the rows it lets them see).
   */
  private async checkModel(a: ProjectActor, plan: PlannedCluster[]): Promise<void> {
    const replacing = new Map(plan.map((c) => [c.prescription.clustername, c.prescription]));
    const current = new Map((await this.model.all(a.projectId)).map((o) => [o.ident, o]));
    const projected = await projectLoad(this.model, this.datasets, a.projectId, replacing);
    assertTitlesFree(projected, current);
    const guard = this.rowFilterGuard;
    await guard?.assertKept(a, await guard.before(a), projected.snap);
    await guard?.assertOwnRowsKept(a, replacing.keys(), projected.snap);
  }

  /**
   * 403 when `a`'s own row filter reads one of `datasets` (see checkModel): a flow run that
   * would load them is refused when it is started, not only when it commits.
   */
  async checkOwnRows(a: ProjectActor, datasets: string[]): Promise<void> {
    await this.rowFilterGuard?.assertOwnRowsKept(a, datasets);
  }

  /** Where the project's loads go now. */
  async sink(projectId: string): Promise<DatasetSink> {
    return (await this.backends.of(projectId)).sink;
  }

  /**
   * Whether `targets` may be written where the project's loads go (in a warehouse: the role
   * may create tables, each table is Ursa's): a flow run is refused when it is started.
   */
  async checkTargets(projectId: string, targets: LoadTarget[]): Promise<void> {
    if (targets.length) await (await this.sink(projectId)).check(projectId, targets);
  }

  /** Validates the request completely (400s come now, not as failed jobs) and starts the job. */
  async start(a: ProjectActor, body: unknown): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const input = parseInput(bodySchema, body, 'load request');
    const names = Object.keys(input.clusters);
    if (!names.length) throw invalid('name at least one cluster to load', { field: 'clusters' });
    const tables = names.filter((n) => input.clusters[n]!.source_type === 'table');
    if (tables.length && this.tableMapper) {
      if (tables.length < names.length)
        throw invalid('map tables (source_type "table") and load files in separate requests', {
          field: 'clusters',
        });
      return this.tableMapper.start(a, input.clusters, { calendar: input.calendar });
    }
    // What only a mapping takes: a file's titles and descriptions are its prescription's.
    const only = names.find(
      (n) => input.clusters[n]!.description !== undefined || input.clusters[n]!.columns,
    );
    if (only || input.calendar !== undefined)
      throw invalid(
        `${only ? `cluster "${only}": description and columns` : 'calendar'} are for mapping tables (source_type "table"); a file's titles and descriptions are set in its prescription`,
        { field: only ? `clusters.${only}` : 'calendar' },
      );
    const planned: PlannedCluster[] = [];
    // Titles of the clusters planned so far: guessed labels of the next ones avoid them.
    const taken = new Set<string>();
    for (const name of names) {
      const c = input.clusters[name]!;
      if (!(SOURCE_TYPES as readonly string[]).includes(c.source_type)) {
        throw invalid(`source_type "${c.source_type}" of cluster "${name}" is not supported`, {
          cluster: name,
          allowed: [...SOURCE_TYPES],
        });
      }
      const resolved = await this.prescriptions.forLoad(a, name, c.source, c.prescription, taken);
      for (const col of resolved.prescription.columns) taken.add(titleKey(col.label || col.id));
      if (c.mode === 'incremental') await this.checkIncremental(a.projectId, resolved.prescription);
      planned.push({
        name,
        source: resolved.source,
        mode: c.mode,
        prescription: resolved.prescription,
        edited: resolved.edited,
      });
    }
    // Guessed labels are made unique once more, with no wait before the check and the submit:
    // a load that committed while the files were read may have taken one, and loads still
    // running hold theirs.
    const inFlight = await this.titlesInFlight(a.projectId, new Set(names));
    const mine = new Set<string>();
    for (const cl of planned) {
      if (cl.edited === false) {
        const titles = await this.datasets.titlesOutside(a.projectId, cl.name);
        cl.prescription = uniqueLabels(cl.prescription, new Set([...titles, ...inFlight, ...mine]));
      }
      for (const col of cl.prescription.columns) mine.add(titleKey(col.label || col.id));
    }
    await this.checkModel(a, planned);
    // Where the rows go is checked now too (in a warehouse: the role's rights, the tables).
    await this.checkTargets(a.projectId, planned);
    return this.jobs.submit(a, 'transform', {
      type: 'cluster',
      clusters: planned as unknown as Record<string, unknown>[],
    });
  }

  /** Column titles that file loads queued or running will give (other clusters than `except`). */
  private async titlesInFlight(projectId: string, except: Set<string>): Promise<Set<string>> {
    const { jobs } = tablesOf(this.db);
    const out = new Set<string>();
    const rows = await this.db
      .select({ params: jobs.params })
      .from(jobs)
      .where(
        and(
          eq(jobs.projectId, projectId),
          eq(jobs.type, 'transform'),
          inArray(jobs.status, ['PREPARED', 'EXPANDING', 'RUNNING']),
        ),
      );
    for (const r of rows)
      for (const cl of (r.params as { clusters?: PlannedCluster[] }).clusters ?? [])
        if (!except.has(cl.name))
          for (const col of cl.prescription.columns) out.add(titleKey(col.label || col.id));
    return out;
  }

  async checkIncremental(projectId: string, p: Prescription): Promise<void> {
    if (!p.primarykey)
      throw invalid(`incremental load of "${p.clustername}" needs a primary key`, {
        cluster: p.clustername,
      });
    const existing = await this.datasets.prescriptionOf(projectId, p.clustername);
    if (!existing)
      throw invalid(
        `incremental load of "${p.clustername}" needs the dataset loaded once in full`,
        { cluster: p.clustername },
      );
    const shape = (x: Prescription) => x.columns.map((c) => `${c.id}:${c.dataType}`).join(',');
    if (shape(existing) !== shape(p) || existing.primarykey !== p.primarykey) {
      throw invalid(
        `incremental load of "${p.clustername}" needs the same columns, types and primary key as the loaded dataset; run a full load to change them`,
        {
          cluster: p.clustername,
          loaded: shape(existing),
          requested: shape(p),
        },
      );
    }
  }

  private async run(ctx: JobContext): Promise<LoadResult> {
    const clusters = planOf(ctx.job).map((cl): ClusterLoad => ({
      ...cl,
      remember: true,
      stage: (c) => this.stageFile(c, ctx, cl),
    }));
    return this.loadClusters(ctx, ctx.job.createdBy, clusters);
  }

  /**
   * Loads every cluster into new dataset versions and publishes them together: a failure or
   * a cancel publishes none and leaves every dataset as it was. Queries keep reading the
   * current versions meanwhile. `beforeCommit` runs last before publishing (a flow writes its
   * storage outputs there).
   */
  async loadClusters(
    ctx: JobContext,
    user: string,
    plan: ClusterLoad[],
    beforeCommit?: () => Promise<void>,
  ): Promise<LoadResult> {
    const { projectId } = ctx.job;
    const sink = await this.sink(projectId);
    return sink.write(ctx, plan, {
      stage: (c, cl) => this.stageChecked(c, ctx, cl),
      beforeCommit: async (totals) => {
        await this.checkRowLimit(projectId, totals);
        // The model may have changed since the request: checked again before publishing.
        await this.checkAs(projectId, user, plan);
        ctx.signal.throwIfAborted();
        await beforeCommit?.();
      },
      // Published and recorded in one transaction (the new data, the datasets' rows and model,
      // the activity), before the lock is released: the next load sees all of it.
      record: (loaded, totals, sources, commit) =>
        tx(this.db, async () => {
          const r = await this.recordLoaded(
            projectId,
            user,
            ctx.job.id,
            plan,
            loaded,
            totals,
            sources,
          );
          await commit();
          return r;
        }),
    });
  }

  /**
   * checkModel as `user` with their rights as they are now (a job, a flow run): refused →
   * JobFailure. A flow run calls it before it writes anything; the loader again before it
   * commits.
   */
  async checkAs(projectId: string, user: string, plan: PlannedCluster[]): Promise<void> {
    try {
      await this.checkModel(
        await resolveActor(this.db, { email: user }, projectId, { ignoreMaintenance: true }),
        plan,
      );
    } catch (err) {
      if (err instanceof EngineError) throw new JobFailure(`${err.message}; nothing was loaded`);
      throw err;
    }
  }

  /** Stages a file's rows (read by its prescription) and checks every value. */
  private async stageFile(c: DuckDBConnection, ctx: JobContext, cl: PlannedCluster): Promise<void> {
    const p = cl.prescription;
    // Checked again here (no links on the way): DuckDB opens the path itself.
    const file = await this.storage.localFile(ctx.job.projectId, cl.source);
    const poll = setInterval(() => {
      const pr = c.progress;
      // DuckDB's rows_processed counts its own work units (CSV buffers), not rows: only the share is reported.
      if (pr.percentage >= 0)
        ctx.progress({ cluster: cl.name, percentage: Math.round(pr.percentage * 10) / 10 });
    }, 250);
    try {
      await c.run(stageSql(p, file));
    } catch (err) {
      ctx.signal.throwIfAborted();
      throw new JobFailure(`cluster "${cl.name}": loading ${cl.source} failed: ${firstLine(err)}`);
    } finally {
      clearInterval(poll);
    }
    ctx.signal.throwIfAborted();
    await this.checkRejects(c, cl, file);
    const bools = badBooleansSql(p, file);
    if (bools) {
      const bad = (await c.runAndReadAll(bools)).getRowObjectsJson();
      if (bad.length) {
        throw new JobFailure(
          `cluster "${cl.name}": values that are not booleans: ${bad.map((b) => `${b.column_name}="${b.value}"`).join(', ')}`,
        );
      }
    }
  }

  /** Stages one cluster (its staging table) and checks its keys; returns the rows staged. */
  private async stageChecked(
    c: DuckDBConnection,
    ctx: JobContext,
    cl: ClusterLoad,
  ): Promise<number> {
    await cl.stage(c);
    ctx.signal.throwIfAborted();
    const rows = Number(
      (
        await c.runAndReadAll(`SELECT count(*) AS n FROM ${stagingTable(cl.name)}`)
      ).getRowObjectsJson()[0]!.n,
    );
    if (cl.prescription.primarykey) await this.checkKeys(c, cl);
    ctx.progress({ cluster: cl.name, rowsLoaded: rows, percentage: 100 });
    return rows;
  }

  private async checkRejects(c: DuckDBConnection, cl: PlannedCluster, file: string): Promise<void> {
    const table = rejectsTable(cl.name);
    // One reject per bad value: a row with two bad cells is still one row.
    const total = Number(
      (
        await c.runAndReadAll(`SELECT count(DISTINCT line) AS n FROM ${table}`)
      ).getRowObjectsJson()[0]!.n,
    );
    if (!total) return;
    const first = (
      await c.runAndReadAll(
        `SELECT DISTINCT ON (line) line, line_byte_position, column_name, error_message FROM ${table} ORDER BY line, column_idx LIMIT 10`,
      )
    ).getRowObjectsJson();
    // DuckDB numbers records, not lines: a quoted field holding line breaks shifts every later
    // number. The byte offset of each rejected row is exact, so count the lines before it.
    const lineNo = await physicalLines(
      file,
      first.map((r) => Number(r.line_byte_position)),
    );
    const lines = first.map(
      (r, i) =>
        `line ${lineNo[i]}${r.column_name ? ` column ${r.column_name}` : ''}: ${String(r.error_message).split('\n')[0]}`,
    );
    throw new JobFailure(
      `cluster "${cl.name}": ${total} row(s) of ${cl.source} do not match the prescription; first ${first.length}: ${lines.join('; ')}`,
    );
  }

  private async checkKeys(c: DuckDBConnection, cl: PlannedCluster): Promise<void> {
    const p = cl.prescription;
    const nulls = Number((await c.runAndReadAll(nullKeysSql(p))).getRowObjectsJson()[0]!.n);
    if (nulls)
      throw new JobFailure(
        `cluster "${cl.name}": ${nulls} row(s) have no value in primary key "${p.primarykey}"`,
      );
    const dups = (await c.runAndReadAll(duplicateKeysSql(p))).getRowObjectsJson();
    if (dups.length) {
      throw new JobFailure(
        `cluster "${cl.name}": primary key "${p.primarykey}" is not unique; repeated values: ${dups.map((d) => `"${d.key}" (${d.n}×)`).join(', ')}`,
      );
    }
  }

  /** The project's rows once `totals` (rows of the new versions) replace their datasets. */
  private async checkRowLimit(projectId: string, totals: Record<string, number>): Promise<void> {
    let after = 0;
    for (const d of await this.datasets.infos(projectId)) if (!(d.name in totals)) after += d.rows;
    for (const n of Object.values(totals)) after += n;
    const limit = await this.limits.limitOf(projectId, 'datasetRows');
    if (after > limit) throw new JobFailure(rowLimitMessage(after, limit));
  }

  private async recordLoaded(
    projectId: string,
    user: string,
    jobId: string,
    plan: ClusterLoad[],
    loaded: Record<string, number>,
    totals: Record<string, number>,
    /** What each dataset records as its source when not its file (a warehouse's table). */
    sources: Record<string, string> = {},
  ): Promise<LoadResult> {
    let dataVersion = 0;
    // Prescriptions before this load: a column whose label did not change keeps its title.
    const before = new Map<string, Prescription | null>();
    let moved = false;
    for (const cl of plan) {
      const row = await this.datasets.get(projectId, cl.name);
      before.set(cl.name, (row?.prescription as Prescription | undefined) ?? null);
      moved ||= cl.name in sources && row?.source !== sources[cl.name];
    }
    await tx(this.db, async () => {
      dataVersion = await this.model.bumpDataVersion(projectId);
      // A warehouse dataset now read from another table: queries compiled for the old one
      // (keyed by the model version) are stale.
      if (moved) await this.model.bumpModelVersion(projectId);
      for (const cl of plan) {
        await this.datasets.record(
          projectId,
          cl.prescription,
          totals[cl.name]!,
          sources[cl.name] ?? cl.source,
          user,
          dataVersion,
        );
        if (cl.remember)
          await this.prescriptions.remember(
            projectId,
            cl.source,
            cl.prescription,
            cl.edited !== false,
          );
      }
      await this.datasets.syncModel(projectId, user, before);
      for (const cl of plan) {
        await this.activity.record(projectId, 'data_load', {
          user,
          object: cl.name,
          message: `loaded ${loaded[cl.name]} rows into dataset "${cl.name}" (${cl.mode}) from ${cl.source}`,
          detail: {
            dataset: cl.name,
            mode: cl.mode,
            source: cl.source,
            rowsLoaded: loaded[cl.name]!,
            rows: totals[cl.name]!,
            jobId,
            dataVersion,
          } satisfies LoadDetail,
        });
      }
    });
    const clusters: LoadResult['clusters'] = {};
    for (const cl of plan)
      clusters[cl.name] = {
        rows: totals[cl.name]!,
        loaded: loaded[cl.name]!,
        mode: cl.mode,
        source: cl.source,
      };
    return { clusters, dataVersion };
  }
}

/** What maps warehouse tables (warehouse/mapping.ts). */
export interface TableMapper {
  start(
    a: ProjectActor,
    clusters: Record<string, { source_type: string; source: string; prescription?: unknown }>,
    options: { calendar?: boolean },
  ): Promise<Job>;
  run(ctx: JobContext): Promise<unknown>;
}

const isTableMap = (job: Job) => (job.params as { source_type?: string }).source_type === 'table';

function planOf(job: Job): PlannedCluster[] {
  return (job.params as { clusters: PlannedCluster[] }).clusters;
}

/** 1-based line numbers of the given byte offsets (ascending) in a file. */
async function physicalLines(file: string, offsets: number[]): Promise<number[]> {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  let next = 0;
  const stream = createReadStream(file, { end: Math.max(0, ...offsets) });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    while (next < offsets.length && offsets[next]! < pos + chunk.length) {
      const upto = offsets[next]! - pos;
      for (let i = chunk.indexOf(10, from); i !== -1 && i < upto; i = chunk.indexOf(10, i + 1))
        line++;
      from = upto;
      out.push(line);
      next++;
    }
    for (let i = chunk.indexOf(10, from); i !== -1; i = chunk.indexOf(10, i + 1)) line++;
    pos += chunk.length;
  }
  while (out.length < offsets.length) out.push(line);
  return out;
}

function firstLine(err: unknown): string {
  return String((err as Error).message ?? err)
    .split('\n')[0]!
    .slice(0, 500);
}
