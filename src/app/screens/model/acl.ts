// The access entries an edit of the Model screen gives an object (pure: tests import it).
import type { ModelObject } from '../../../contract/model.js';

export type Acl = ModelObject['acl'];

/** The entries after ticking `roles` to read: kept as they were, reading given or taken away. */
export function aclFor(acl: Acl, everyone: boolean, roles: string[]): Acl {
  if (everyone) return [];
  const out: Acl = [];
  for (const role of new Set([...acl.map((e) => e.userrole), ...roles])) {
    const was = acl.find((e) => e.userrole === role)?.acl ?? '-----';
    const now = (roles.includes(role) ? 'r' : '-') + was.slice(1);
    if (now !== '-----') out.push({ userrole: role, acl: now });
  }
  return out;
}
