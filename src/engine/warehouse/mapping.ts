// Mapping warehouse tables and views as datasets (`transform/execute` with source_type
// "table"): the request is checked completely first (400s now, not failed jobs), then a job
// checks the tables again and records the datasets and their model objects in one
// transaction. Nothing is written to the warehouse.
import type { LoadDetail } from '../../contract/activity.js';
import type { LoadJobResult } from '../../contract/jobs.js';
import type { ProjectActor } from '../access/actor.js';
import { requireLevel } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { type Db, tx } from '../db/index.js';
import type { Datasets } from '../data/datasets.js';
import type { Loads, PlannedCluster } from '../data/loads.js';
import { CSV_FORMAT, validatePrescription, type Prescription } from '../data/prescription.js';
import { uniqueLabels } from '../data/prescriptions.js';
import { EngineError, invalid } from '../errors.js';
import { JobFailure, type Job, type JobContext, type JobRunner } from '../jobs/jobs.js';
import { titleKey } from '../model/defs.js';
import type { ModelStore } from '../model/store.js';
import type { TableGuess } from './catalog.js';
import { rowFilterRefusal, sourceTable, tableSource, type Warehouse } from './warehouse.js';

export interface TableCluster {
  source_type: string;
  source: string;
  mode?: string;
  prescription?: unknown;
}

interface PlannedTable extends PlannedCluster {
  schema: string;
  table: string;
}

/** Types a mapped column may be read as, given the type its table column has. */
const COMPATIBLE: Record<string, string[]> = {
  integer: ['integer', 'number'],
  number: ['number'],
  string: ['string'],
  date: ['date'],
  datetime: ['datetime'],
  boolean: ['boolean'],
};

export class TableMapping {
  constructor(
    private readonly deps: {
      db: Db;
      warehouse: Warehouse;
      loads: Loads;
      datasets: Datasets;
      model: ModelStore;
      activity: ActivityLog;
      jobs: JobRunner;
    },
  ) {}

  /** `schema.table` → dataset name, of mapped datasets and of this request's clusters. */
  private async mappedNames(
    projectId: string,
    clusters: Record<string, TableCluster>,
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const d of await this.deps.datasets.rows(projectId)) {
      const t = sourceTable(d.source);
      if (t) out.set(`${t.schema}.${t.table}`, d.name);
    }
    // A table named without its schema is in the bound one: a foreign key onto it must find it.
    for (const [name, c] of Object.entries(clusters))
      out.set(await this.deps.warehouse.qualify(projectId, c.source), name);
    return out;
  }

  async start(a: ProjectActor, clusters: Record<string, TableCluster>): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const first = Object.values(clusters)[0];
    if (a.filter && first) throw rowFilterRefusal(a, first.source, 'map');
    const planned = await this.plan(a, clusters);
    await this.deps.loads.checkAs(a.projectId, a.email, planned).catch((err: unknown) => {
      // Refused now as the 4xx it is, not as a failed job.
      if (err instanceof JobFailure)
        throw invalid(err.message.replace(/; nothing was loaded$/, ''));
      throw err;
    });
    return this.deps.jobs.submit(a, 'transform', {
      type: 'cluster',
      source_type: 'table',
      clusters: planned as unknown as Record<string, unknown>[],
    });
  }

  private async plan(
    a: ProjectActor,
    clusters: Record<string, TableCluster>,
  ): Promise<PlannedTable[]> {
    const names = await this.mappedNames(a.projectId, clusters);
    const planned: PlannedTable[] = [];
    const taken = new Set<string>();
    for (const [name, c] of Object.entries(clusters)) {
      if (c.mode !== undefined && c.mode !== 'full')
        throw invalid(
          `cluster "${name}": a mapped table is read where it lives; it has no load mode`,
          {
            cluster: name,
            field: 'mode',
          },
        );
      // The structure only: no row of the table is read (none is kept in the plan).
      const guess = await this.deps.warehouse.guess(a, c.source, names, { sample: false });
      const edited = c.prescription !== undefined;
      let p = edited
        ? this.edited(name, c.prescription, guess)
        : { ...guess.prescription, clustername: name };
      // References onto datasets that are neither mapped nor mapped now are left out.
      if (!edited) {
        const known = new Set(names.values());
        p = {
          ...p,
          columns: p.columns.map((col) => {
            if (!col.reference || known.has(col.reference)) return col;
            const { reference: _drop, ...rest } = col;
            return rest;
          }),
        };
        const titles = await this.deps.datasets.titlesOutside(a.projectId, name);
        p = uniqueLabels(p, new Set([...titles, ...taken]));
      }
      delete p.data;
      for (const col of p.columns) taken.add(titleKey(col.label || col.id));
      const [schema, table] = [
        guess.ident.split('.')[0]!,
        guess.ident.slice(guess.ident.indexOf('.') + 1),
      ];
      planned.push({
        name,
        source: tableSource(schema, table),
        mode: 'full',
        prescription: p,
        edited,
        schema,
        table,
      });
    }
    return planned;
  }

  /** An edited prescription: valid, and naming only columns the table has, readable as typed. */
  private edited(name: string, raw: unknown, guess: TableGuess): Prescription {
    const obj =
      raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const p = validatePrescription({ format: { ...CSV_FORMAT }, ...obj, clustername: name });
    const byName = new Map(guess.prescription.columns.map((c) => [c.originalheader, c]));
    p.columns.forEach((col, i) => {
      const source = byName.get(col.originalheader);
      if (!source)
        throw invalid(
          `cluster "${name}": column ${i} reads "${col.originalheader}", which ${guess.ident} does not have (or of a type AQL does not read); columns: ${[...byName.keys()].join(', ')}`,
          { cluster: name, field: `prescription.columns.${i}.originalheader` },
        );
      if (!COMPATIBLE[source.dataType]!.includes(col.dataType))
        throw invalid(
          `cluster "${name}": column "${col.originalheader}" is ${source.dataType} in ${guess.ident}; it cannot be read as ${col.dataType}`,
          { cluster: name, field: `prescription.columns.${i}.dataType` },
        );
    });
    return p;
  }

  /** The job: the tables checked once more, then datasets and model recorded together. */
  async run(ctx: JobContext): Promise<unknown> {
    const { job } = ctx;
    const plan = (job.params as { clusters: PlannedTable[] }).clusters;
    const rows: Record<string, number> = {};
    for (const cl of plan) {
      ctx.signal.throwIfAborted();
      try {
        rows[cl.name] = await this.deps.warehouse.estimatedRows(job.projectId, cl.schema, cl.table);
      } catch (err) {
        if (err instanceof EngineError || err instanceof Error)
          throw new JobFailure(`dataset "${cl.name}" (${cl.schema}.${cl.table}): ${err.message}`);
        throw err;
      }
    }
    await this.deps.loads.checkAs(job.projectId, job.createdBy, plan);
    let dataVersion = 0;
    await tx(this.deps.db, async () => {
      const before = new Map<string, Prescription | null>();
      for (const cl of plan)
        before.set(cl.name, await this.deps.datasets.prescriptionOf(job.projectId, cl.name));
      dataVersion = await this.deps.model.bumpDataVersion(job.projectId);
      for (const cl of plan)
        await this.deps.datasets.record(
          job.projectId,
          cl.prescription,
          rows[cl.name]!,
          cl.source,
          job.createdBy,
          dataVersion,
        );
      await this.deps.datasets.syncModel(job.projectId, job.createdBy, before);
      for (const cl of plan)
        await this.deps.activity.record(job.projectId, 'data_load', {
          user: job.createdBy,
          object: cl.name,
          message: `mapped ${cl.schema}.${cl.table} of the warehouse as dataset "${cl.name}"`,
          detail: {
            dataset: cl.name,
            mode: 'map',
            source: cl.source,
            jobId: job.id,
            dataVersion,
          } satisfies LoadDetail,
        });
    });
    return {
      clusters: Object.fromEntries(
        plan.map((cl) => [cl.name, { rows: rows[cl.name]!, mode: 'map', source: cl.source }]),
      ),
      dataVersion,
    } satisfies LoadJobResult;
  }
}
