// The model a load would leave behind, computed before it runs: its titles must not clash
// with other objects' (AQL names objects by title), and it must not change what a member's
// row-level filter selects unless an Admin or User Admin loads it.
import { ModelSnapshot } from '../aql/model.js';
import { conflict } from '../errors.js';
import { TITLED_TYPES, titleKey } from '../model/defs.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import type { Datasets } from './datasets.js';
import type { Prescription } from './prescription.js';

export interface ProjectedModel {
  snap: ModelSnapshot;
  objects: ObjectRow[];
  /** The objects the loaded clusters' columns make. */
  loaded: ObjectRow[];
}

/** The model after loading `replacing` (cluster → prescription), nothing written. */
export async function projectLoad(
  model: ModelStore,
  datasets: Datasets,
  projectId: string,
  replacing: ReadonlyMap<string, Prescription>,
): Promise<ProjectedModel> {
  const before = new Map<string, Prescription | null>();
  for (const n of replacing.keys()) before.set(n, await datasets.prescriptionOf(projectId, n));
  const { wanted, stale } = await datasets.planModel(projectId, replacing, before);
  const gone = new Set(stale);
  const byIdent = new Map(
    (await model.all(projectId)).filter((o) => !gone.has(o.ident)).map((o) => [o.ident, o]),
  );
  const loaded: ObjectRow[] = [];
  for (const w of wanted) {
    const existing = byIdent.get(w.ident);
    const row: ObjectRow = {
      ...(existing ?? blankRow(projectId)),
      ident: w.ident,
      type: w.type,
      name: w.name,
      def: w.def,
    };
    byIdent.set(w.ident, row);
    if (replacing.has((w.def as { dataset: string }).dataset)) loaded.push(row);
  }
  const ds = (await datasets.rows(projectId))
    .map((d) => ({ name: d.name, prescription: d.prescription as unknown as Prescription }))
    .filter((d) => !replacing.has(d.name))
    .concat([...replacing].map(([name, prescription]) => ({ name, prescription })));
  const objects = [...byIdent.values()];
  return { snap: new ModelSnapshot(objects, ds), objects, loaded };
}

/**
 * A loaded column whose title is new (a new column, or a changed label) must not take the
 * title of another object: 409 naming the column and the object holding the title.
 */
export function assertTitlesFree(
  projected: ProjectedModel,
  current: ReadonlyMap<string, ObjectRow>,
): void {
  const owners = new Map<string, ObjectRow[]>();
  for (const o of projected.objects) {
    if (!TITLED_TYPES.includes(o.type)) continue;
    const key = titleKey(o.name);
    owners.set(key, [...(owners.get(key) ?? []), o]);
  }
  for (const o of projected.loaded) {
    const was = current.get(o.ident);
    if (was && titleKey(was.name) === titleKey(o.name)) continue; // a clash it already had
    const other = owners.get(titleKey(o.name))?.find((x) => x.ident !== o.ident);
    if (!other) continue;
    const { dataset, column } = o.def as { dataset: string; column: string };
    throw conflict(
      `cluster "${dataset}": column "${column}" would be titled "${o.name}", the title of ${other.type} "${other.ident}": AQL names objects by title in any case, so titles are unique; give the column another label in the prescription, or rename ${other.type} "${other.ident}" first`,
      {
        cluster: dataset,
        column,
        field: 'label',
        title: o.name,
        taken: { ident: other.ident, type: other.type, name: other.name },
      },
    );
  }
}

function blankRow(projectId: string): ObjectRow {
  return {
    projectId,
    ident: '',
    type: '',
    name: '',
    description: '',
    def: {},
    acl: [],
    tags: [],
    revision: 0,
    created: '',
    createdBy: '',
    updated: '',
    updatedBy: '',
  };
}
