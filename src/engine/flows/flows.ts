// Flows: model objects of type "flow" whose def is a graph of boxes; a run is a job of type
// "flow" (FLOWS.md). One run per flow at a time, claimed by a row in `flow_locks` (shared by
// every server process); outputs commit only when every box succeeded.
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FlowListItem } from '../../contract/flows.js';
import type { JobStatus } from '../../contract/jobs.js';
import { requireLevel, resolveActor, type ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { type Db, first, sqlOf, storeOf, tablesOf } from '../db/index.js';
import type { Datasets } from '../data/datasets.js';
import type { Loads, LoadTarget } from '../data/loads.js';
import { conflict, EngineError, forbidden, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { loadJobWithoutCounts } from '../jobs/withheld-counts.js';
import {
  FINAL_STATUSES,
  JobFailure,
  type Job,
  type JobContext,
  type JobRunner,
} from '../jobs/jobs.js';
import { titleKey } from '../model/defs.js';
import type { ModelObjects } from '../model/objects.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import type { Storage } from '../storage/storage.js';
import { BOX_TYPES, BOXES, boxView } from './boxes.js';
import type { Credentials, NetPolicy } from './connectors/types.js';
import { BoxError } from './errors.js';
import { checkFlowDef, type FlowGraph } from './flow-def.js';
import { runFlow, type FlowRunResult } from './run.js';
import { storageGlob } from './storage-glob.js';
import type { Chain } from './triggers/chains.js';

export interface FlowDeps {
  db: Db;
  model: ModelStore;
  objects: ModelObjects;
  jobs: JobRunner;
  loads: Loads;
  datasets: Datasets;
  storage: Storage;
  activity: ActivityLog;
  projectDir(projectId: string): string;
  today(): string;
  net: NetPolicy;
}

export type { FlowListItem };

const scratchRoot = (projectDir: string) => path.join(projectDir, 'flow-runs');

/** How long a flow lock may wait for its job's id before start-up takes it for a dead start. */
const START_GRACE_MS = 60_000;
/** A run's row counts (per box, per output, of the load it commits). */
const RUN_COUNTS = new Set(['rows', 'rowsLoaded', 'loaded']);

export class Flows {
  constructor(private readonly deps: FlowDeps) {
    // A run's rows (read, written into datasets) are counted over every row: a reader with a
    // row-level filter does not see them.
    deps.jobs.register(
      'flow',
      { run: (ctx) => this.execute(ctx) },
      { rowFiltered: (_reader, job) => loadJobWithoutCounts(job, RUN_COUNTS) },
    );
    // The lock goes with the run, however it ends (OK, ERROR, CANCELLED).
    deps.jobs.onFinish(async (job) => {
      if (job.type !== 'flow') return;
      const { flowLocks } = tablesOf(deps.db);
      await deps.db.delete(flowLocks).where(eq(flowLocks.jobId, job.id));
      await this.recordEnd(job);
    });
  }

  // ---- the box catalog ----

  boxes() {
    return { boxes: BOX_TYPES.map(boxView) };
  }

  box(id: string) {
    const b = BOXES.get(id);
    if (!b)
      throw notFound(`no box type "${id}"; box types: ${[...BOXES.keys()].join(', ')}`, {
        id,
        boxes: [...BOXES.keys()],
      });
    return boxView(b);
  }

  // ---- runs ----

  /**
   * Starts a run as `a` (MD Admin): 404 for an unknown flow, 403 while it runs. A run a trigger
   * started because another run ended or wrote a file carries that chain (triggers/chains.ts).
   */
  async start(
    a: ProjectActor,
    flow: string,
    origin: { trigger?: string; chain?: Chain } = {},
  ): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const row = await this.flowRow(a, flow);
    // Checked again now: a credentials object may have gone since the flow was saved.
    const graph = await this.graphOf(a, row);
    // The datasets it loads, as a file load would be refused (403; in a warehouse project
    // 400 or 409 for the tables); checked again at commit.
    const outputs: LoadTarget[] = [...graph.boxes.values()]
      .filter((b) => b.type === 'output.dataset')
      .map((b) => ({
        name: String(b.dataset),
        mode: b.mode === 'incremental' ? 'incremental' : 'full',
      }));
    await this.deps.loads.checkOwnRows(
      a,
      outputs.map((o) => o.name),
    );
    await this.deps.loads.checkTargets(a.projectId, outputs);
    const { db, jobs } = this.deps;
    const { flowLocks } = tablesOf(db);
    const since = nowIso();
    const claimed = (
      await db
        .insert(flowLocks)
        .values({ projectId: a.projectId, flow: row.ident, jobId: '', since })
        .onConflictDoNothing()
        .returning({ flow: flowLocks.flow })
    ).length;
    if (!claimed) throw alreadyRunning(row.ident, await this.lockOf(a.projectId, row.ident));
    let job: Job;
    try {
      job = await jobs.submit(a, 'flow', {
        id: row.ident,
        ...(origin.trigger ? { trigger: origin.trigger } : {}),
        ...(origin.chain ? { depth: origin.chain.depth, cause: origin.chain.cause } : {}),
      });
    } catch (err) {
      await db
        .delete(flowLocks)
        .where(and(eq(flowLocks.projectId, a.projectId), eq(flowLocks.flow, row.ident)));
      throw err;
    }
    await db
      .update(flowLocks)
      .set({ jobId: job.id })
      .where(and(eq(flowLocks.projectId, a.projectId), eq(flowLocks.flow, row.ident)));
    await this.deps.activity.record(a.projectId, 'flow_run', {
      user: a.email,
      object: row.ident,
      message: `started flow "${row.name}" (${row.ident})${origin.trigger ? ` by trigger ${origin.trigger}` : ''}`,
      detail: {
        flow: row.ident,
        jobId: job.id,
        phase: 'start',
        ...(origin.trigger ? { trigger: origin.trigger } : {}),
        ...(origin.chain ? { depth: origin.chain.depth, cause: origin.chain.cause } : {}),
      },
    });
    return job;
  }

  /** Stops the flow's running run: it ends CANCELLED and no output changes. */
  async stop(a: ProjectActor, body: unknown): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const flow = flowIdOf(body);
    const row = await this.flowRow(a, flow);
    const lock = await this.lockOf(a.projectId, row.ident);
    if (!lock?.jobId)
      throw conflict(`flow ${row.ident} is not running`, { id: row.ident, running: false });
    return this.deps.jobs.cancel(a, lock.jobId);
  }

  async isRunning(projectId: string, flow: string): Promise<boolean> {
    return (await this.lockOf(projectId, flow)) !== undefined;
  }

  /**
   * At start-up, after unfinished jobs were ended: locks of runs that ended with the last
   * process go, and so do their scratch folders.
   */
  async recover(projectDirs: Array<{ projectId: string; dir: string }>): Promise<number> {
    const { db } = this.deps;
    const { flowLocks, jobs: jobsTable } = tablesOf(db);
    // A lock with no job yet is a start under way (start() claims the lock, then submits the
    // job): in a cluster another process may be in that moment, so only an old one is stale.
    // A store no other process shares has nothing under way while this one starts.
    const starting = storeOf(db).shared
      ? sql`${flowLocks.since} < ${new Date(Date.now() - START_GRACE_MS).toISOString()}`
      : sql`true`;
    const stale = await db
      .select({ jobId: flowLocks.jobId, projectId: flowLocks.projectId, flow: flowLocks.flow })
      .from(flowLocks)
      .leftJoin(jobsTable, eq(jobsTable.id, flowLocks.jobId))
      .where(
        sql`(${jobsTable.status} IS NULL AND (${flowLocks.jobId} <> '' OR ${starting})) OR ${inArray(jobsTable.status, [...FINAL_STATUSES])}`,
      );
    for (const l of stale) {
      await db
        .delete(flowLocks)
        .where(and(eq(flowLocks.projectId, l.projectId), eq(flowLocks.flow, l.flow)));
      const job = l.jobId ? await this.deps.jobs.peek(l.jobId) : undefined;
      if (job) await this.recordEnd(job);
    }
    // Scratch folders are named by job: those of runs still going (in another process of a
    // cluster) stay.
    for (const p of projectDirs) {
      let names: string[];
      try {
        names = await fs.readdir(scratchRoot(p.dir));
      } catch {
        continue;
      }
      for (const name of names) {
        const job = await this.deps.jobs.peek(name);
        if (job && !FINAL_STATUSES.includes(job.status)) continue;
        await fs
          .rm(path.join(scratchRoot(p.dir), name), { recursive: true, force: true })
          .catch(() => undefined);
      }
    }
    return stale.length;
  }

  // ---- the flow list ----

  async list(a: ProjectActor, fullLoad: boolean): Promise<{ flows: FlowListItem[] }> {
    const scope = await this.deps.objects.scope(a);
    const rows = scope.rows().filter((r) => r.type === 'flow');
    const triggers = fullLoad ? scope.rows().filter((r) => r.type === 'trigger') : [];
    const flows: FlowListItem[] = [];
    for (const r of rows) {
      {
        const def = this.deps.objects.view(r, scope).def as {
          boxes?: Array<Record<string, unknown>>;
        };
        const boxes = Array.isArray(def.boxes) ? def.boxes : [];
        const kind = (b: Record<string, unknown>) => BOXES.get(String(b.type))?.kind;
        const item: FlowListItem = {
          id: r.ident,
          name: r.name,
          inputs: boxes
            .filter((b) => kind(b) === 'input')
            .map((b) => ({ box: String(b.id), type: String(b.type), source: sourceOf(b) })),
          outputs: boxes
            .filter((b) => kind(b) === 'output')
            .map((b) => ({ box: String(b.id), type: String(b.type), target: targetOf(b) })),
          running: await this.isRunning(a.projectId, r.ident),
          lastRun: await this.lastRun(a.projectId, r.ident),
        };
        if (fullLoad) {
          item.def = def;
          item.triggers = triggers
            .filter((t) => t.def.flow === r.ident)
            .map((t) => ({
              id: t.ident,
              name: t.name,
              type: String(t.def.type),
              enabled: t.def.enabled === true,
            }));
        }
        flows.push(item);
      }
    }
    return { flows };
  }

  private async lastRun(projectId: string, flow: string): Promise<FlowListItem['lastRun']> {
    const { jobs: jobsTable } = tablesOf(this.deps.db);
    const { jsonText } = sqlOf(this.deps.db);
    const j = await this.deps.db
      .select()
      .from(jobsTable)
      .where(
        and(
          eq(jobsTable.projectId, projectId),
          eq(jobsTable.type, 'flow'),
          eq(jsonText(jobsTable.params, 'id'), flow),
        ),
      )
      .orderBy(desc(jobsTable.created), desc(jobsTable.id))
      .limit(1)
      .then(first);
    if (!j) return null;
    return {
      job: j.id,
      status: j.status as JobStatus,
      started: j.started ?? null,
      finished: j.finished ?? null,
      ...(j.message ? { message: j.message } : {}),
    };
  }

  // ---- inside the job ----

  private async execute(ctx: JobContext): Promise<FlowRunResult> {
    const { projectId, createdBy } = ctx.job;
    const flow = String(ctx.job.params.id);
    // The run acts as the member who started it, with their rights as they are now.
    let a: ProjectActor;
    try {
      a = await resolveActor(this.deps.db, { email: createdBy }, projectId, {
        ignoreMaintenance: true,
      });
      requireLevel(a, 'mdadmin');
    } catch (err) {
      throw new JobFailure(`the run cannot act as ${createdBy}: ${(err as Error).message}`);
    }
    const row = await this.flowRow(a, flow);
    const graph = await this.graphOf(a, row);
    const { deps } = this;
    const dir = path.join(scratchRoot(deps.projectDir(projectId)), ctx.job.id);
    return runFlow(ctx, {
      flow,
      user: createdBy,
      graph,
      scratchDir: dir,
      readable: [deps.storage.root(projectId)],
      today: deps.today(),
      net: deps.net,
      localFile: (p) => deps.storage.localFile(projectId, p),
      matchFiles: (pattern, box) => storageGlob(deps.storage, projectId, pattern, box),
      credentials: (id) => this.credentials(a, id),
      dataset: async (name) => ({
        existing: await deps.datasets.prescriptionOf(projectId, name),
        titlesOutside: await this.titlesOutside(projectId, name),
      }),
      load: (c, clusters, beforeCommit) =>
        deps.loads.loadClusters(c, createdBy, clusters, beforeCommit),
      checkLoads: async (loads) => {
        for (const l of loads) {
          if (l.mode !== 'incremental') continue;
          try {
            await deps.loads.checkIncremental(projectId, l.prescription);
          } catch (err) {
            if (err instanceof EngineError) {
              const box = graph.order.find((id) => graph.boxes.get(id)!.dataset === l.name)!;
              throw new BoxError(box, 'mode', err.message);
            }
            throw err;
          }
        }
        // As the member the run acts as (a trigger's: its last editor), with their rights now.
        await deps.loads.checkAs(projectId, createdBy, loads);
      },
      checkRoom: async (files) => {
        let growth = 0;
        for (const f of files) {
          const before = await deps.storage.stat(projectId, f.path).catch(() => null);
          growth += (await fs.stat(f.file)).size - (before?.type === 'file' ? before.size : 0);
        }
        const quota = await deps.storage.quota(projectId);
        if (quota.used + growth > quota.limit) {
          const box = graph.order.find((id) => graph.boxes.get(id)!.path === files[0]!.path)!;
          throw new BoxError(
            box,
            'path',
            `plan limit "storageBytes" exceeded: the files would take ${growth} more bytes, ${Math.max(0, quota.limit - quota.used)} are free; nothing was written`,
          );
        }
      },
      writeFile: async (p, file) => {
        // Storage borrows the stream: closed here, or a refused write keeps the file open.
        const source = createReadStream(file);
        try {
          const { item } = await deps.storage.writeFile(projectId, p, source, {
            user: createdBy,
            job: ctx.job.id,
            createParents: true,
          });
          return item;
        } finally {
          source.destroy();
        }
      },
    });
  }

  /** Titles of every object outside the dataset (its own columns may keep theirs). */
  private async titlesOutside(projectId: string, dataset: string): Promise<Set<string>> {
    const out = new Set<string>();
    for (const o of await this.deps.model.all(projectId)) {
      if (!['attribute', 'label', 'fact', 'metric', 'filter'].includes(o.type)) continue;
      if ((o.def as { dataset?: string }).dataset === dataset) continue;
      out.add(titleKey(o.name));
    }
    return out;
  }

  /**
   * A credentials object for engine work without a request (a trigger's SFTP watch): read with
   * the rights of the member who last wrote it; null when it is gone or they lost MD Admin.
   */
  async credentialsOf(projectId: string, ident: string): Promise<Credentials | null> {
    const row = await this.deps.model.get(projectId, ident);
    if (!row || row.type !== 'credentials') return null;
    try {
      const a = await resolveActor(this.deps.db, { email: row.updatedBy }, projectId, {
        ignoreMaintenance: true,
      });
      requireLevel(a, 'mdadmin');
      return await this.credentials(a, ident);
    } catch {
      return null;
    }
  }

  private async credentials(a: ProjectActor, ident: string): Promise<Credentials> {
    const row = (await this.deps.objects.scope(a)).get(ident);
    if (!row || row.type !== 'credentials')
      throw new JobFailure(`credentials "${ident}" do not exist or are not readable by ${a.email}`);
    const def = row.def as Omit<Credentials, 'ident' | 'secret'>;
    return {
      ident,
      kind: def.kind,
      ...(def.host !== undefined ? { host: def.host } : {}),
      ...(def.port !== undefined ? { port: def.port } : {}),
      ...(def.user !== undefined ? { user: def.user } : {}),
      ...(def.database !== undefined ? { database: def.database } : {}),
      ...(def.hostKey !== undefined ? { hostKey: def.hostKey } : {}),
      ...(def.apiKey !== undefined ? { apiKey: def.apiKey } : {}),
      ...(def.replicas !== undefined ? { replicas: def.replicas } : {}),
      ...(def.sslmode !== undefined ? { sslmode: def.sslmode } : {}),
      secret: await this.deps.objects.secretOf(a, ident),
    };
  }

  private async flowRow(a: ProjectActor, flow: string): Promise<ObjectRow> {
    const row = (await this.deps.objects.scope(a)).get(flow);
    if (!row || row.type !== 'flow')
      throw notFound(`flow "${flow}" not found in project "${a.projectId}"`, { id: flow });
    return row;
  }

  private async graphOf(a: ProjectActor, row: ObjectRow): Promise<FlowGraph> {
    const scope = await this.deps.objects.scope(a);
    return checkFlowDef(row.def, (id) => {
      const c = scope.get(id);
      return c && c.type === 'credentials' ? c.def : null;
    });
  }

  private async lockOf(projectId: string, flow: string) {
    const { flowLocks } = tablesOf(this.deps.db);
    return this.deps.db
      .select()
      .from(flowLocks)
      .where(and(eq(flowLocks.projectId, projectId), eq(flowLocks.flow, flow)))
      .then(first);
  }

  /** Activity `flow_run` for the end of a run: status, rows, what it wrote. */
  private async recordEnd(job: Job): Promise<void> {
    const flow = String(job.params.id);
    const result = job.result as FlowRunResult | undefined;
    const rows = result?.outputs?.reduce((n, o) => n + o.rows, 0);
    await this.deps.activity.record(job.projectId, 'flow_run', {
      user: job.createdBy,
      object: flow,
      message: `flow ${flow} ended ${job.status}${rows !== undefined ? `: ${rows} rows written` : ''}${job.message ? `: ${job.message}` : ''}`,
      detail: {
        flow,
        jobId: job.id,
        phase: 'end',
        status: job.status,
        ...(job.message ? { message: job.message } : {}),
        ...(result?.outputs ? { outputs: result.outputs } : {}),
        ...(job.params.trigger ? { trigger: job.params.trigger } : {}),
        started: job.started ?? null,
        finished: job.finished ?? null,
      },
    });
  }
}

function alreadyRunning(flow: string, lock: { jobId: string; since: string } | undefined) {
  return forbidden(`flow ${flow} is already running`, {
    id: flow,
    running: true,
    ...(lock?.jobId ? { job: lock.jobId, since: lock.since } : {}),
  });
}

function flowIdOf(body: unknown): string {
  const id = (body as { id?: unknown } | undefined)?.id;
  if (typeof id !== 'string' || !id)
    throw invalid('name the flow to stop: { "id": <flow id> }', { field: 'id' });
  return id;
}

function sourceOf(b: Record<string, unknown>): string {
  switch (b.type) {
    case 'input.http':
      return String(b.url ?? '');
    case 'input.postgres':
      return `postgres ${String(b.credentials ?? '')}`;
    case 'input.sftp':
      return `sftp ${String(b.credentials ?? '')}:${String(b.path ?? '')}`;
    default:
      return String(b.path ?? '');
  }
}

function targetOf(b: Record<string, unknown>): string {
  return b.type === 'output.dataset' ? String(b.dataset ?? '') : String(b.path ?? '');
}
