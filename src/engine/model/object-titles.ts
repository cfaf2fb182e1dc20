// Titles AQL resolves: an object of an AQL-named type holds its title alone (in any case), a
// report its title among reports. A write that would take a held title is refused (409).
import { conflict } from '../errors.js';
import { TITLED_TYPES, titleKey } from './defs.js';
import { where } from './object-input.js';
import type { ObjectRow } from './store.js';

/** Who holds each title AQL resolves (`titleKey` → the object). */
export type TitleOwners = Map<string, { ident: string; type: string; name: string }>;

export function titleOwners(rows: ObjectRow[]): TitleOwners {
  const out: TitleOwners = new Map();
  for (const r of rows) {
    const key = ownedTitle(r);
    if (key) out.set(key, r);
  }
  return out;
}

/**
 * The title an object holds alone: AQL's titles among themselves; a report's among reports
 * (people open, add and share reports by their title, so two alike cannot be told apart).
 */
const ownedTitle = (o: { type: string; name: string }): string | null =>
  TITLED_TYPES.includes(o.type)
    ? titleKey(o.name)
    : o.type === 'report'
      ? `report\u0000${titleKey(o.name)}`
      : null;

/**
 * AQL names objects by title in any case (`[Revenue]`): a second object with a title taken
 * would make every saved definition using it ambiguous, so it is refused (409).
 */
export function claimTitle(
  owners: TitleOwners,
  o: { ident: string; type: string; name: string },
  at: number | undefined,
): void {
  const key = ownedTitle(o);
  if (!key) return;
  const owner = owners.get(key);
  if (owner && owner.ident !== o.ident && o.type === 'report')
    throw conflict(
      `${where(at)}the title "${o.name}" is taken by report "${owner.ident}": report titles are unique, in any case; choose another`,
      {
        field: 'name',
        title: o.name,
        taken: { ident: owner.ident, type: owner.type, name: owner.name },
        ...(at !== undefined ? { index: at } : {}),
      },
    );
  if (owner && owner.ident !== o.ident)
    throw conflict(
      `${where(at)}the title "${o.name}" is taken by ${owner.type} "${owner.ident}" ("${owner.name}"): AQL names objects by title in any case ([${o.name.trim()}]), so ${TITLED_TYPES.join(', ')} titles are unique; choose another`,
      {
        field: 'name',
        title: o.name,
        taken: { ident: owner.ident, type: owner.type, name: owner.name },
        ...(at !== undefined ? { index: at } : {}),
      },
    );
  owners.set(key, o);
}
