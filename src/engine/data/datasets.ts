// Loaded datasets (clusters) and the model objects a load creates for them: one attribute,
// label or fact per column with stable ids (attr.<cluster>.<column>, label.…, fact.…), and
// many-to-one references between datasets.
import { and, eq, sql } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { type Db, first, tablesOf } from '../db/index.js';
import { TITLED_TYPES, titleKey } from '../model/defs.js';
import { ModelScope } from '../model/scope.js';
import type { ModelStore, ObjectInput } from '../model/store.js';
import type { Column, Prescription } from './prescription.js';
import type { Dataset, DataLoadStatus } from '../../contract/data.js';

/** A dataset as recorded: the answer's fields, its row count always known. */
export type DatasetInfo = Omit<Dataset, 'rows' | 'rowsEstimated'> & { rows: number };

/** A dataset as a member sees it (kodiak/dataload): rows null under a row-level filter. */
export type DatasetView = Dataset;

export const attrId = (cluster: string, column: string) => `attr.${cluster}.${column}`;
export const labelId = (cluster: string, column: string) => `label.${cluster}.${column}`;
export const factId = (cluster: string, column: string) => `fact.${cluster}.${column}`;

export function objectIdOf(cluster: string, c: Column): string {
  if (c.objectType === 'F') return factId(cluster, c.id);
  if (c.objectType === 'L') return labelId(cluster, c.id);
  return attrId(cluster, c.id);
}

export class Datasets {
  constructor(
    private readonly db: Db,
    private readonly model: ModelStore,
  ) {}

  async get(projectId: string, name: string) {
    const { datasets } = tablesOf(this.db);
    return this.db
      .select()
      .from(datasets)
      .where(and(eq(datasets.projectId, projectId), eq(datasets.name, name)))
      .then(first);
  }

  async prescriptionOf(projectId: string, name: string): Promise<Prescription | null> {
    return ((await this.get(projectId, name))?.prescription as Prescription | undefined) ?? null;
  }

  /**
   * The datasets the reader can see (a readable column), `columns` counting the readable
   * ones; row counts are withheld from a reader with a row-level filter (they count every row).
   */
  async list(a: ProjectActor): Promise<DatasetView[]> {
    const scope = new ModelScope(a, await this.model.all(a.projectId));
    const visible = scope.visibleDatasets();
    const readable = new Map<string, number>();
    for (const row of scope.rows()) {
      const ds = (row.def as { dataset?: unknown }).dataset;
      if (['attribute', 'label', 'fact'].includes(row.type) && typeof ds === 'string')
        readable.set(ds, (readable.get(ds) ?? 0) + 1);
    }
    return (await this.infos(a.projectId))
      .filter((d) => visible.has(d.name))
      .map((d) => ({
        ...d,
        rows: a.filter ? null : d.rows,
        columns: readable.get(d.name) ?? 0,
      }));
  }

  /** Titles (titleKey) held by objects other than the columns of dataset `cluster`. */
  async titlesOutside(projectId: string, cluster: string): Promise<Set<string>> {
    const own = (o: { type: string; def: Record<string, unknown> }) =>
      ['attribute', 'label', 'fact'].includes(o.type) && o.def.dataset === cluster;
    return new Set(
      (await this.model.all(projectId))
        .filter((o) => TITLED_TYPES.includes(o.type) && !own(o))
        .map((o) => titleKey(o.name)),
    );
  }

  /** kodiak/dataload: the data and model versions and the datasets the reader can see. */
  async status(a: ProjectActor): Promise<DataLoadStatus> {
    return { ...(await this.model.versions(a.projectId)), datasets: await this.list(a) };
  }

  /** Every dataset of a project with its full row count (engine-internal: limits, checks). */
  async infos(projectId: string): Promise<DatasetInfo[]> {
    const { datasets } = tablesOf(this.db);
    return (
      await this.db
        .select()
        .from(datasets)
        .where(eq(datasets.projectId, projectId))
        .orderBy(datasets.name)
    ).map((d) => {
      const p = d.prescription as Prescription;
      return {
        name: d.name,
        rows: d.rows,
        columns: p.columns.length,
        primaryKey: p.primarykey || null,
        source: d.source,
        loaded: d.loaded,
        loadedBy: d.loadedBy,
        dataVersion: d.dataVersion,
      };
    });
  }

  /** Every dataset record of a project (with its prescription). */
  async rows(projectId: string) {
    const { datasets } = tablesOf(this.db);
    return this.db
      .select()
      .from(datasets)
      .where(eq(datasets.projectId, projectId))
      .orderBy(datasets.name);
  }

  async totalRows(projectId: string): Promise<number> {
    const { datasets } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ n: sql<number>`coalesce(sum(${datasets.rows}), 0)`.mapWith(Number) })
          .from(datasets)
          .where(eq(datasets.projectId, projectId))
          .then(first)
      )?.n ?? 0
    );
  }

  /** Records a finished load (call inside the caller's transaction). */
  async record(
    projectId: string,
    p: Prescription,
    rows: number,
    source: string | null,
    user: string,
    dataVersion: number,
  ): Promise<void> {
    const { datasets } = tablesOf(this.db);
    const row = {
      projectId,
      name: p.clustername,
      prescription: p as unknown as Record<string, unknown>,
      rows,
      source,
      loadedBy: user,
      loaded: new Date().toISOString(),
      dataVersion,
    };
    await this.db
      .insert(datasets)
      .values(row)
      .onConflictDoUpdate({ target: [datasets.projectId, datasets.name], set: row });
  }

  /** Replaces a dataset's prescription, leaving its rows and load record alone (a new reference). */
  async setPrescription(projectId: string, name: string, p: Prescription): Promise<void> {
    const { datasets } = tablesOf(this.db);
    await this.db
      .update(datasets)
      .set({ prescription: p as unknown as Record<string, unknown> })
      .where(and(eq(datasets.projectId, projectId), eq(datasets.name, name)));
  }

  /**
   * Brings the model objects of every dataset in line with its prescription: creates and
   * updates attributes, labels and facts, removes those of dropped columns, and resolves
   * references (explicit `reference`, or a column id equal to another dataset's primary key).
   */
  async syncModel(
    projectId: string,
    user: string,
    before: Map<string, Prescription | null> = new Map(),
  ): Promise<void> {
    const { wanted, stale } = await this.planModel(projectId, new Map(), before);
    await this.model.remove(projectId, stale);
    await this.model.upsert(projectId, wanted, user);
  }

  /**
   * The model objects syncModel would write (`wanted`) and remove (`stale`), without writing:
   * `replacing` stands in for the stored prescriptions of those datasets (a load about to run).
   */
  async planModel(
    projectId: string,
    replacing: ReadonlyMap<string, Prescription> = new Map(),
    before: Map<string, Prescription | null> = new Map(),
  ): Promise<{ wanted: ObjectInput[]; stale: string[] }> {
    const { datasets } = tablesOf(this.db);
    const all = await this.db.select().from(datasets).where(eq(datasets.projectId, projectId));
    const byName = new Map(all.map((d) => [d.name, d.prescription as Prescription]));
    for (const [name, p] of replacing) byName.set(name, p);
    // Primary-key column id → its dataset. An id that is the key of two datasets is no
    // connection point: linking to either would be a guess, so such columns link to none.
    const pkOwners = new Map<string, string | null>();
    for (const [name, p] of byName) {
      if (p.primarykey) pkOwners.set(p.primarykey, pkOwners.has(p.primarykey) ? null : name);
    }

    const wanted: ObjectInput[] = [];
    for (const [cluster, p] of byName) {
      for (const c of p.columns) wanted.push(objectFor(cluster, p, c, byName, pkOwners));
    }
    // A title set through the model API survives reloads, unless the load's own label for
    // that column changed (then the new label is the newer word on it).
    for (const o of wanted) {
      const existing = await this.model.get(projectId, o.ident);
      if (!existing || existing.name === o.name) continue;
      const def = o.def as { dataset: string; column: string };
      const prev = before.has(def.dataset) ? before.get(def.dataset) : byName.get(def.dataset);
      const prevLabel = prev?.columns.find((c) => c.id === def.column)?.label;
      if (
        prevLabel === undefined ||
        prevLabel ===
          (byName.get(def.dataset)?.columns.find((c) => c.id === def.column)?.label ?? null)
      ) {
        o.name = existing.name;
      }
    }
    // So does a description set through the model API, unless the load's own changed.
    for (const o of wanted) {
      const existing = await this.model.get(projectId, o.ident);
      if (!existing || o.description === undefined || existing.description === o.description)
        continue;
      const def = o.def as { dataset: string; column: string };
      const prev = before.has(def.dataset) ? before.get(def.dataset) : byName.get(def.dataset);
      if (!prev || prev.columns.find((c) => c.id === def.column)?.description === o.description)
        delete o.description;
    }
    const wantedIds = new Set(wanted.map((o) => o.ident));
    const stale = (await this.model.listByType(projectId, ['attribute', 'label', 'fact']))
      .filter((o) => (o.def as { source?: string }).source === 'load' && !wantedIds.has(o.ident))
      .map((o) => o.ident);
    return { wanted, stale };
  }
}

function objectFor(
  cluster: string,
  p: Prescription,
  c: Column,
  all: Map<string, Prescription>,
  pkOwners: Map<string, string | null>,
): ObjectInput {
  const base = { dataset: cluster, column: c.id, dataType: c.dataType, source: 'load' };
  const name = c.label || c.id;
  const described = c.description ? { description: c.description } : {};
  if (c.objectType === 'F')
    return { ident: factId(cluster, c.id), type: 'fact', name, ...described, def: base };
  if (c.objectType === 'L') {
    return {
      ident: labelId(cluster, c.id),
      type: 'label',
      name,
      ...described,
      def: { ...base, attribute: attrId(cluster, c.labelOf ?? p.primarykey) },
    };
  }
  const def: Record<string, unknown> = { ...base, primaryKey: c.id === p.primarykey };
  const target =
    c.reference ?? (c.id !== p.primarykey ? (pkOwners.get(c.id) ?? undefined) : undefined);
  if (target && target !== cluster) {
    const tp = all.get(target);
    // A declared reference to a dataset not loaded yet is kept: pmd/check/model reports it.
    def.reference = {
      dataset: target,
      attribute: tp?.primarykey ? attrId(target, tp.primarykey) : null,
    };
  }
  return { ident: attrId(cluster, c.id), type: 'attribute', name, ...described, def };
}
