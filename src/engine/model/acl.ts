// Object access (API-DECISIONS "Identities and levels"): `acl` entries give a user role five
// positions `rwdsa` (read, write, delete, share, administer the ACL), `-` denies a position.
// Admin and MD Admin hold every position on every object. An object without entries is
// readable by every member. Otherwise a member holds a position when any of their roles'
// entries grants it: grants add up, so `-` in one role's entry takes nothing another gives.
import type { ProjectActor } from '../access/actor.js';
import type { AclEntry } from './defs.js';

export type AclPosition = 'r' | 'w' | 'd' | 's' | 'a';
const INDEX: Record<AclPosition, number> = { r: 0, w: 1, d: 2, s: 3, a: 4 };

interface Guarded {
  acl: AclEntry[];
}

/**
 * The roles a member holds: those named in their project rights (`roles`), plus every
 * userrole object that lists them in `def.members`.
 */
export function effectiveRoles(
  actor: ProjectActor,
  userroles: Array<{ ident: string; def: Record<string, unknown> }>,
): Set<string> {
  const roles = new Set(actor.roles);
  const me = actor.email.toLowerCase();
  for (const r of userroles) {
    const members = r.def.members;
    if (Array.isArray(members) && members.some((m) => String(m).toLowerCase() === me))
      roles.add(r.ident);
  }
  return roles;
}

export const seesEverything = (actor: ProjectActor): boolean => actor.admin || actor.mdadmin;

export function allows(
  actor: ProjectActor,
  roles: ReadonlySet<string>,
  obj: Guarded,
  position: AclPosition,
): boolean {
  if (seesEverything(actor)) return true;
  if (obj.acl.length === 0) return position === 'r';
  const i = INDEX[position];
  return obj.acl.some((e) => roles.has(e.userrole) && e.acl[i] === position);
}

/** The one predicate every read path filters with: what this actor may see exists. */
export function visibility(
  actor: ProjectActor,
  roles: ReadonlySet<string>,
): (obj: Guarded) => boolean {
  if (seesEverything(actor)) return () => true;
  return (obj) => allows(actor, roles, obj, 'r');
}
