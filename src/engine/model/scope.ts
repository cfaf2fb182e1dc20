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
    rows: ObjectRow[],
  ) {
    this.index = new ModelIndex(rows);
    this.roles = effectiveRoles(
      actor,
      rows.filter((r) => r.type === 'userrole'),
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
}
