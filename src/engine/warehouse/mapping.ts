// Mapping warehouse tables and views as datasets (`transform/execute` with source_type
// "table"): the request is checked completely first (400s now, not failed jobs), then a job
// checks the tables again and records the datasets and their model objects in one
// transaction, and proposes metrics (suggestions.ts). Titles are the catalog's words made
// unique in the project (guess/titles.ts); a caller's titles and descriptions win. Nothing is
// written to the warehouse, except the calendar when the caller asks for it (`calendar`).
import type { LoadDetail } from '../../contract/activity.js';
import type { LoadJobResult } from '../../contract/jobs.js';
import type { ProjectActor } from '../access/actor.js';
import { requireLevel } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { type Db, tx } from '../db/index.js';
import type { Datasets } from '../data/datasets.js';
import type { Loads, PlannedCluster } from '../data/loads.js';
import { uniqueTitles } from '../data/guess/titles.js';
import { calendarPackage } from '../data/packages/calendar.js';
import { packagePrescription } from '../data/packages/package.js';
import { packageSource } from '../data/packages/packages.js';
import { CSV_FORMAT, validatePrescription, type Prescription } from '../data/prescription.js';
import { EngineError, invalid } from '../errors.js';
import { JobFailure, type Job, type JobContext, type JobRunner } from '../jobs/jobs.js';
import { titleKey } from '../model/defs.js';
import type { ModelStore } from '../model/store.js';
import type { Storage } from '../storage/storage.js';
import type { TableGuess } from './catalog.js';
import { suggestMetrics } from './suggestions.js';
import { rowFilterRefusal, sourceTable, tableSource, type Warehouse } from './warehouse.js';

/** A caller's words for a mapped column: its title and description win over the catalog's. */
export interface ColumnWords {
  title?: string;
  description?: string;
}

export interface TableCluster {
  source_type: string;
  source: string;
  mode?: string;
  prescription?: unknown;
  /** The dataset's description (else the table's COMMENT ON). */
  description?: string;
  /** Per column name of the table. */
  columns?: Record<string, ColumnWords>;
}

export interface MappingOptions {
  /** Date columns reference the `calendar` dataset, which is loaded when the project has none. */
  calendar?: boolean;
}

interface PlannedTable extends PlannedCluster {
  schema: string;
  table: string;
}

/** The dataset date columns are linked to with `calendar: true`. */
const CALENDAR = calendarPackage.dataset;

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
      storage: Storage;
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

  async start(
    a: ProjectActor,
    clusters: Record<string, TableCluster>,
    options: MappingOptions = {},
  ): Promise<Job> {
    requireLevel(a, 'mdadmin');
    const first = Object.values(clusters)[0];
    if (a.filter && first) throw rowFilterRefusal(a, first.source, 'map');
    // The calendar is loaded (into the warehouse) only when neither the project nor this
    // request has a dataset of that name; its titles are kept free for it.
    const loadCalendar =
      options.calendar === true &&
      !clusters[CALENDAR] &&
      !(await this.deps.datasets.get(a.projectId, CALENDAR));
    const reserved = new Set(
      loadCalendar ? calendarPackage.columns.map((c) => titleKey(c.title)) : [],
    );
    const planned = await this.plan(a, clusters, options, reserved);
    await this.deps.loads.checkAs(a.projectId, a.email, planned).catch((err: unknown) => {
      // Refused now as the 4xx it is, not as a failed job.
      if (err instanceof JobFailure)
        throw invalid(err.message.replace(/; nothing was loaded$/, ''));
      throw err;
    });
    const calendarJob = loadCalendar ? await this.startCalendar(a) : null;
    return this.deps.jobs.submit(a, 'transform', {
      type: 'cluster',
      source_type: 'table',
      clusters: planned as unknown as Record<string, unknown>[],
      ...(calendarJob ? { calendarJobId: calendarJob.id } : {}),
    });
  }

  /**
   * The calendar package's rows loaded as a file (a warehouse project takes no package load):
   * a load job of its own, into `<schema>.calendar`, which the mapped date columns reference.
   */
  private async startCalendar(a: ProjectActor): Promise<Job> {
    const source = packageSource(calendarPackage);
    const csv = calendarPackage.csv(calendarPackage.resolve({}));
    await this.deps.storage.writeFile(a.projectId, source, Buffer.from(csv, 'utf8'), {
      createParents: true,
      user: a.email,
    });
    return this.deps.loads.start(a, {
      type: 'cluster',
      clusters: {
        [CALENDAR]: {
          source_type: 'webdav',
          source,
          prescription: packagePrescription(calendarPackage),
        },
      },
    });
  }

  private async plan(
    a: ProjectActor,
    clusters: Record<string, TableCluster>,
    options: MappingOptions,
    reserved: ReadonlySet<string>,
  ): Promise<PlannedTable[]> {
    const names = await this.mappedNames(a.projectId, clusters);
    const planned: PlannedTable[] = [];
    // Titles the caller wrote are theirs: guessed ones avoid them.
    const taken = new Set<string>(reserved);
    for (const c of Object.values(clusters))
      for (const w of Object.values(c.columns ?? {}))
        if (w.title !== undefined) taken.add(titleKey(w.title));
    const drafts: { name: string; c: TableCluster; guess: TableGuess; p: Prescription }[] = [];
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
      let p =
        c.prescription !== undefined
          ? this.edited(name, c.prescription, guess)
          : { ...guess.prescription, clustername: name };
      // References onto datasets that are neither mapped nor mapped now are left out.
      if (c.prescription === undefined) {
        const known = new Set(names.values());
        p = {
          ...p,
          columns: p.columns.map((col) => {
            if (!col.reference || known.has(col.reference)) return col;
            const { reference: _drop, ...rest } = col;
            return rest;
          }),
        };
      }
      drafts.push({ name, c, guess, p });
    }
    // Titles are given referenced tables first: a key keeps its plain title ("Customer ID")
    // and the columns referencing it are qualified ("Order Customer ID"), whatever the order.
    const titled = new Map<string, Prescription>();
    const byName = new Map(drafts.map((d) => [d.name, d]));
    const visit = async (d: (typeof drafts)[number]) => {
      if (titled.has(d.name)) return;
      titled.set(d.name, d.p); // a reference cycle ends here
      for (const col of d.p.columns) {
        const target = col.reference ? byName.get(col.reference) : undefined;
        if (target) await visit(target);
      }
      const table = tableOf(d.guess);
      let p = d.p;
      if (d.c.prescription === undefined) {
        const titles = await this.deps.datasets.titlesOutside(a.projectId, d.name);
        p = uniqueTitles(p, new Set([...titles, ...taken]), table);
      }
      p = withWords(d.name, p, d.c, d.guess);
      if (options.calendar) p = linkDates(p);
      delete p.data;
      for (const col of p.columns) taken.add(titleKey(col.label || col.id));
      titled.set(d.name, p);
    };
    for (const d of drafts) await visit(d);
    for (const d of drafts) {
      const table = tableOf(d.guess);
      planned.push({
        name: d.name,
        source: tableSource(d.guess.ident.slice(0, d.guess.ident.indexOf('.')), table),
        mode: 'full',
        prescription: titled.get(d.name)!,
        edited: d.c.prescription !== undefined,
        schema: d.guess.ident.slice(0, d.guess.ident.indexOf('.')),
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
    const datasets = new Map(
      (await this.deps.datasets.rows(job.projectId)).map((d) => [
        d.name,
        d.prescription as unknown as Prescription,
      ]),
    );
    const suggestedMetrics = suggestMetrics(
      plan.map((cl) => cl.name),
      datasets,
      await this.deps.model.all(job.projectId),
    );
    const calendarJobId = (job.params as { calendarJobId?: string }).calendarJobId;
    return {
      clusters: Object.fromEntries(
        plan.map((cl) => [cl.name, { rows: rows[cl.name]!, mode: 'map', source: cl.source }]),
      ),
      dataVersion,
      suggestedMetrics,
      ...(calendarJobId ? { calendarJobId } : {}),
    } satisfies LoadJobResult;
  }
}

const tableOf = (g: TableGuess) => g.ident.slice(g.ident.indexOf('.') + 1);

/** The caller's titles and descriptions, each naming a column the table has (else 400). */
function withWords(name: string, p: Prescription, c: TableCluster, guess: TableGuess) {
  const words = c.columns ?? {};
  const byName = new Map(p.columns.map((col) => [col.originalheader, col]));
  for (const column of Object.keys(words))
    if (!byName.has(column))
      throw invalid(
        `cluster "${name}": columns names "${column}", which ${guess.ident} does not have (or of a type AQL does not read); columns: ${[...byName.keys()].join(', ')}`,
        { cluster: name, field: `columns.${column}` },
      );
  return {
    ...p,
    ...(c.description !== undefined ? { description: c.description } : {}),
    columns: p.columns.map((col) => {
      const w = words[col.originalheader];
      if (!w) return col;
      return {
        ...col,
        ...(w.title !== undefined ? { label: w.title } : {}),
        ...(w.description !== undefined ? { description: w.description } : {}),
      };
    }),
  };
}

/** Date attributes that reference nothing (and are not the key) reference the calendar. */
function linkDates(p: Prescription): Prescription {
  return {
    ...p,
    columns: p.columns.map((col) =>
      col.dataType === 'date' && col.objectType === 'A' && !col.reference && col.id !== p.primarykey
        ? { ...col, reference: CALENDAR }
        : col,
    ),
  };
}
