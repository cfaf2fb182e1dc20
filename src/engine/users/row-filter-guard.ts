// Only Admins and User Admins change what a member may see, and nobody their own. A member's
// row-level filter is an AQL condition on the model, so a model change (editing or deleting a
// saved filter it names, renaming an attribute it names by title, a load that changes the
// columns or the references it relies on) can change which rows it selects. Model writes and
// loads are checked here: the meaning of the filters the actor may not change, before and
// after. The rows a filter selects also depend on data: whoever holds a filter may not load
// the datasets it reads, or they would pick the rows it lets them see.
import { hasLevel, type ProjectActor } from '../access/actor.js';
import type { ModelSnapshot } from '../aql/model.js';
import {
  filterMeaning,
  filterReads,
  meaningChanged,
  type FilterMeaning,
} from '../aql/row-filter.js';
import { forbidden } from '../errors.js';
import type { Members } from './members.js';

export type FilterMeanings = Map<string, FilterMeaning>;

export class RowFilterGuard {
  constructor(
    private readonly members: Members,
    /** The project's model as AQL sees it now (inside a transaction: with its writes). */
    readonly current: (projectId: string) => Promise<ModelSnapshot>,
  ) {}

  /**
   * What the filters the actor may not change mean on `snap` (default: the current model):
   * every member's below User Admin, else only their own (nobody changes their own rights);
   * null when there are none.
   */
  async before(a: ProjectActor, snap?: ModelSnapshot): Promise<FilterMeanings | null> {
    const filters = hasLevel(a, 'useradmin')
      ? a.filter
        ? [a.filter]
        : []
      : await this.members.rowFilters(a.projectId);
    if (!filters.length) return null;
    const s = snap ?? (await this.current(a.projectId));
    return new Map(filters.map((f) => [f, filterMeaning(s, f)]));
  }

  /** 403 when `after` (default: the current model) changes what one of those filters selects. */
  async assertKept(
    a: ProjectActor,
    before: FilterMeanings | null,
    after?: ModelSnapshot,
  ): Promise<void> {
    if (!before) return;
    const snap = after ?? (await this.current(a.projectId));
    const datasets = new Set(snap.datasets.keys());
    const changed = [...before]
      .filter(([text, m]) => meaningChanged(m, filterMeaning(snap, text), datasets))
      .map(([text]) => text);
    if (!changed.length) return;
    if (a.filter && changed.includes(a.filter))
      throw forbidden(
        'this change alters which rows your own row-level filter selects; nobody changes their own rights: another Admin or User Admin must make it',
        { project: a.projectId, field: 'filter' },
      );
    const members = await this.members.countWithFilters(a.projectId, changed);
    throw forbidden(
      `this change alters which rows the row-level filter of ${members} member(s) selects; only an Admin or a User Admin may change what members may see (or they change those filters first)`,
      { project: a.projectId, members, required: 'useradmin' },
    );
  }

  /**
   * 403 when the actor's own row filter reads one of the `loading` datasets, on the model now
   * or on `after` (the model the load leaves): loading it would decide which rows the filter
   * lets them see (the rows of other datasets that reach the loaded ones). Nobody changes their
   * own rights, so such a load is left to a member whose filter does not read it.
   */
  async assertOwnRowsKept(
    a: ProjectActor,
    loading: Iterable<string>,
    after?: ModelSnapshot,
  ): Promise<void> {
    if (!a.filter) return;
    const reads = new Set(filterReads(await this.current(a.projectId), a.filter));
    if (after) for (const d of filterReads(after, a.filter)) reads.add(d);
    const hit = [...new Set(loading)].filter((d) => reads.has(d)).sort();
    if (!hit.length) return;
    throw forbidden(
      `cluster "${hit[0]}": your own row-level filter reads this dataset; loading it would decide which rows the filter lets you see, and nobody changes their own rights: a member whose filter does not read it must load it`,
      { project: a.projectId, field: 'filter', cluster: hit[0], datasets: hit },
    );
  }
}
