// What a public share computes, pinned (SHARING.md "Shares"). A public share computes with an
// unfiltered Admin's rights, so whoever may change what it computes could read every row
// through its URL. When an unfiltered Admin makes or changes the share, the revision of every
// object it computes is stored with it (`shares.pinned`, in the metadata DB); the URL is
// served only while each of those objects is at its pinned revision or was changed since
// only by members who are unfiltered Admins now. Anything else (an MD Admin's new report
// AQL, a metric changed by a member with a row filter, an object new to what it reads and
// written by one) stops the URL, 404, until an unfiltered Admin changes the share again.
import type { ProjectActor } from '../access/actor.js';
import type { ModelIndex } from '../model/dependencies.js';
import type { ModelStore, ObjectRow } from '../model/store.js';

/** Object identifier → its revision when the share was pinned. */
export type Pin = Record<string, number>;

/** Who may make a share public, see its URL and have it computed with their rights. */
export const publishes = (a: ProjectActor): boolean => a.admin && a.filter === null;

/**
 * Every object a dashboard's computation reads: the dashboard, its reports, the metrics,
 * filters, attributes, labels and facts they name (through one another), the labels of
 * those attributes, and the reference attributes of every dataset reached (the join paths).
 */
export function computedObjects(index: ModelIndex, dashboard: ObjectRow): ObjectRow[] {
  const out = new Map(index.withAncestors(dashboard).map((r) => [r.ident, r]));
  const datasetOf = (r: ObjectRow) => (r.def as { dataset?: unknown }).dataset;
  const datasets = new Set<unknown>();
  for (const r of out.values()) if (datasetOf(r) !== undefined) datasets.add(datasetOf(r));
  for (let grew = true; grew;) {
    grew = false;
    for (const r of index.rows) {
      if (out.has(r.ident)) continue;
      const def = r.def as { attribute?: unknown; reference?: { dataset?: unknown } };
      const labelOfOne = r.type === 'label' && out.has(String(def.attribute));
      const joinEdge = r.type === 'attribute' && def.reference && datasets.has(datasetOf(r));
      if (!labelOfOne && !joinEdge) continue;
      out.set(r.ident, r);
      if (joinEdge && !datasets.has(def.reference!.dataset)) {
        datasets.add(def.reference!.dataset);
        grew = true;
      }
    }
  }
  return [...out.values()];
}

export const pinOf = (rows: ObjectRow[]): Pin =>
  Object.fromEntries(rows.map((r) => [r.ident, r.revision]));

/**
 * Whether the objects computed now are the pinned ones, or changed since only by members who
 * are unfiltered Admins now. An object missing from the pin counts from revision 0: all of
 * its revisions must be theirs.
 */
export async function pinHolds(
  store: ModelStore,
  projectId: string,
  pin: Pin,
  rows: ObjectRow[],
  isPublisher: (email: string) => Promise<boolean>,
): Promise<boolean> {
  for (const r of rows) {
    const pinned = pin[r.ident] ?? 0;
    if (r.revision === pinned) continue;
    if (r.revision < pinned) return false;
    const since = (await store.revisions(projectId, r.ident)).filter((v) => v.revision > pinned);
    // Every revision since the pin must be on record, each by an unfiltered Admin.
    if (since.length !== r.revision - pinned) return false;
    for (const v of since) if (!(await isPublisher(v.user))) return false;
  }
  return true;
}
