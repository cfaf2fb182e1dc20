// Batch access (SHARING.md "Batch access"): one role's access string set on many objects at
// once. The input and the ACL arithmetic live here; ModelObjects.setRoleAcl applies them in one
// transaction, with the checks and records of every model write.
import { z } from 'zod';
import { invalid } from '../errors.js';
import { ACL_RE, aclEntry, type AclEntry } from './defs.js';
import { MAX_BATCH } from './object-input.js';

/** Objects per call: as many as one create. */
export const MAX_ACL_BATCH = MAX_BATCH;

const ACL_TEXT =
  'five positions "rwdsa" (read, write, delete, share, administer), "-" denies; null removes the role\'s entry';

const batchSchema = z
  .object({
    // A role name, as in every ACL entry.
    userrole: aclEntry.shape.userrole,
    acl: z
      .string({ error: `must be ${ACL_TEXT}` })
      .regex(ACL_RE, { error: `must be ${ACL_TEXT}` })
      .nullable(),
    objects: z
      .array(z.string().min(1, { error: 'an object identifier is empty' }).max(1000), {
        error: 'must be an array of object identifiers',
      })
      .min(1, { error: 'must name at least one object' })
      .max(MAX_ACL_BATCH, { error: `at most ${MAX_ACL_BATCH} objects per call; split the list` }),
  })
  .strict();

export interface RoleAclInput {
  userrole: string;
  /** `rwdsa` positions or `-`; null removes the role's entry. */
  acl: string | null;
  objects: string[];
}

/** The body of POST app/obj/batch; 400 naming the field (`context.field`) otherwise. */
export function parseRoleAcl(body: unknown): RoleAclInput {
  const r = batchSchema.safeParse(body);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({
      path: i.path.map(String).join('.') || '(body)',
      message: i.message,
    }));
    const first = issues[0]!;
    const field = r.error.issues[0]!.path[0];
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    throw invalid(`invalid batch access: ${first.path}: ${first.message}${more}`, {
      ...(field !== undefined ? { field: String(field) } : {}),
      issues,
    });
  }
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const ident of r.data.objects) (seen.has(ident) ? duplicates : seen).add(ident);
  if (duplicates.size)
    throw invalid(
      `invalid batch access: objects: ${[...duplicates].map((d) => `"${d}"`).join(', ')} listed more than once`,
      { field: 'objects', duplicates: [...duplicates] },
    );
  return r.data;
}

/**
 * The ACL with `userrole`'s entry set to `acl`, where it was (else appended), or removed when
 * `acl` is null; other roles' entries stay as they are, in their order. `-----` is kept as an
 * entry: it grants nothing, but an object with entries is no longer readable by every member.
 */
export function withRoleAcl(
  current: readonly AclEntry[],
  userrole: string,
  acl: string | null,
): AclEntry[] {
  const out: AclEntry[] = [];
  let placed = false;
  for (const e of current) {
    if (e.userrole !== userrole) out.push(e);
    else if (acl !== null && !placed) {
      out.push({ userrole, acl });
      placed = true;
    }
  }
  if (acl !== null && !placed) out.push({ userrole, acl });
  return out;
}
