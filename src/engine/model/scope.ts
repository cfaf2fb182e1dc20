// What one actor sees of a project's model: every object (for resolving dependencies
// truthfully) and the one visibility predicate every read path filters with.
import type { ProjectActor } from '../access/actor.js';
import { allows, effectiveRoles, visibility, type AclPosition } from './acl.js';
import { ModelIndex } from './dependencies.js';
import type { ObjectRow } from './store.js';

export class ModelScope {
  readonly index: ModelIndex;
  readonly roles: ReadonlySet<string>;
  readonly visible: (row: ObjectRow) => boolean;

  constructor(
    readonly actor: ProjectActor,
    /** The project's objects, or their index when the caller keeps one (not changed here). */
    rows: ObjectRow[] | ModelIndex,
  ) {
    this.index = rows instanceof ModelIndex ? rows : new ModelIndex(rows);
    this.roles = effectiveRoles(
      actor,
      this.index.rows.filter((r) => r.type === 'userrole'),
    );
    this.visible = visibility(actor, this.roles);
  }

  /** The object if it exists and the actor may read it; otherwise it does not exist for them. */
  get(ident: string): ObjectRow | undefined {
    const row = this.index.byIdent.get(ident);
    return row && this.visible(row) ? row : undefined;
  }

  rows(): ObjectRow[] {
    return this.index.rows.filter(this.visible);
  }

  allows(row: ObjectRow, position: AclPosition): boolean {
    return allows(this.actor, this.roles, row, position);
  }

  /** Whether the actor may read an object that no longer exists, by its last ACL. */
  allowedGone(acl: ObjectRow['acl']): boolean {
    return allows(this.actor, this.roles, { acl }, 'r');
  }

  /**
   * Datasets the actor can see: those with at least one readable column (attribute, label or
   * fact). A dataset whose every column is hidden does not exist for them, as in pmd/graph/ldm.
   */
  visibleDatasets(): Set<string> {
    const out = new Set<string>();
    for (const row of this.index.rows) {
      if (!COLUMN_TYPES.has(row.type) || !this.visible(row)) continue;
      const ds = (row.def as { dataset?: unknown }).dataset;
      if (typeof ds === 'string') out.add(ds);
    }
    return out;
  }
}

const COLUMN_TYPES = new Set(['attribute', 'label', 'fact']);
