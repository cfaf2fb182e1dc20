// A credentials object's secret: sealed (encrypted, bound to its project and identifier)
// when written, kept only while the def still points where it was set for, opened only for
// engine code that connects. It is never shown (object-view.ts).
import { invalid } from '../errors.js';
import { DEF_SCHEMAS, secretRouteChanges, type ObjectType } from './defs.js';
import { parseAt, where } from './object-input.js';
import type { SecretBox } from './secrets.js';
import type { ObjectRow } from './store.js';

/** What a sealed secret is bound to: it opens only for the same object of the same project. */
const bound = (o: { projectId: string; ident: string }) => `${o.projectId}/${o.ident}`;

/** The stored def: validated by its type's schema; a credentials secret sealed. */
export function sealDef(
  secrets: SecretBox,
  projectId: string,
  ident: string,
  type: ObjectType,
  raw: Record<string, unknown>,
  previous: Record<string, unknown> | undefined,
  at: number | undefined,
): Record<string, unknown> {
  const def = parseAt(
    DEF_SCHEMAS[type],
    raw,
    [...(at !== undefined ? [at] : []), 'def'],
    at,
  ) as Record<string, unknown>;
  if (type !== 'credentials') return def;
  const { secret, secretSet: _ignored, ...rest } = def;
  if (typeof secret === 'string')
    return {
      ...rest,
      secretEnc: secrets.encrypt(secret, bound({ projectId, ident })),
    };
  // A stored secret goes only where it was set for: a write that points it elsewhere (another
  // host, port, user, kind…) must send it again, so it cannot be sent to a server of one's own.
  const moved = previous ? secretRouteChanges(previous, rest) : [];
  if (typeof previous?.secretEnc === 'string' && !moved.length)
    return { ...rest, secretEnc: previous.secretEnc };
  throw invalid(
    moved.length
      ? `${where(at)}def.secret: required: the change of ${moved.join(', ')} changes where the secret goes, and a stored secret goes only where it was set for; send it again`
      : `${where(at)}def.secret: required (it is stored encrypted, never returned)`,
    {
      field: 'def.secret',
      ...(moved.length ? { changed: moved } : {}),
      ...(at !== undefined ? { index: at } : {}),
    },
  );
}

/** The secret of a credentials object (null: none, or not credentials). */
export function openSecret(secrets: SecretBox, row: ObjectRow | undefined): string | null {
  const sealed = row?.type === 'credentials' ? row.def.secretEnc : undefined;
  return typeof sealed === 'string' ? secrets.decrypt(sealed, bound(row!)) : null;
}
