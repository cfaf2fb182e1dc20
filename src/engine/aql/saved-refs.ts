// Saved AQL names objects by identifier once stored (ref-rewrite.ts): the glue for members'
// row-level filters, and the start-up migration of definitions stored before that rule.
import { sameJson } from '../same-json.js';
import type { ProjectActor } from '../access/actor.js';
import type { Logger } from '../logger.js';
import { AQL_KIND } from '../model/defs.js';
import { migrateDef } from '../model/saved-aql.js';
import type { ModelStore } from '../model/store.js';
import type { Members } from '../users/members.js';
import type { FilterRefs } from '../users/row-filter.js';
import type { ModelSnapshot } from './model.js';
import { positions, refModel, showRefs, storeRefs, type RefModel } from './ref-rewrite.js';

const names = new WeakMap<ModelSnapshot, RefModel>();

/** Resolution by name on a snapshot, built once per snapshot (one per model version). */
export function snapshotNames(snap: ModelSnapshot): RefModel {
  let m = names.get(snap);
  if (!m) names.set(snap, (m = refModel(snap.byIdent.values())));
  return m;
}

/** The actor's own row-level filter as shown to them (explain, project access, prompts). */
export function shownFilter(snap: ModelSnapshot, a: ProjectActor): string | null {
  return a.filter === null ? null : showRefs(a.filter, a.filterByTitle ?? [], snapshotNames(snap));
}

/** Members' filters stored and shown on the project's current model. */
export function filterRefs(snapshot: (projectId: string) => Promise<ModelSnapshot>): FilterRefs {
  return {
    store: async (filter, projectId) => {
      const s = storeRefs(filter, snapshotNames(await snapshot(projectId)));
      return { filter: s.aql, byTitle: s.byTitle };
    },
    show: async (filter, byTitle, projectId) =>
      showRefs(filter, byTitle ?? [], snapshotNames(await snapshot(projectId))),
  };
}

/**
 * Definitions and filters stored before references were kept as identifiers: titles that
 * resolve become identifiers (remembered as written by title, so they read the same); what
 * resolves to nothing stays as written. Idempotent, so it runs at every start-up.
 */
export async function migrateSavedAql(
  store: ModelStore,
  members: Members,
  log: Logger,
): Promise<void> {
  const models = new Map<string, RefModel>();
  const model = async (projectId: string) => {
    let m = models.get(projectId);
    if (!m) models.set(projectId, (m = refModel(await store.all(projectId))));
    return m;
  };
  let changed = 0;
  for (const row of await store.allOfTypes(Object.keys(AQL_KIND))) {
    const def = migrateDef(row.type, row.def, await model(row.projectId));
    if (sameJson(def, row.def)) continue;
    await store.rewriteDef(row.projectId, row.ident, def);
    changed++;
  }
  for (const m of await members.allFilters()) {
    const s = storeRefs(m.filter!, await model(m.projectId), positions(m.filterByTitle));
    if (s.aql === m.filter && s.byTitle.length === positions(m.filterByTitle).length) continue;
    await members.restoreFilter(m.projectId, m.email, s.aql, s.byTitle);
    changed++;
  }
  if (changed) log.info({ changed }, 'saved AQL: references stored as identifiers');
}
