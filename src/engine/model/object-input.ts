// What a write of model objects takes in: the body parsed by its type's schema (errors name
// the item of a batch and the field), identifiers checked or generated, list parameters, and
// who may change a user role's members.
import type { z } from 'zod';
import { hasLevel, type ProjectActor } from '../access/actor.js';
import { forbidden, invalid } from '../errors.js';
import {
  LOAD_TYPES,
  OBJECT_TYPES,
  READ_ONLY_FIELDS,
  isObjectType,
  objectInput,
  objectReplace,
  type ObjectType,
} from './defs.js';
import { VIEW_KEYS } from './object-view.js';

export const MAX_BATCH = 1000;
/**
 * Identifiers the loads own: an API object there would be overwritten by the next load, and
 * `dataset.<name>` names a loaded dataset in AQL (COUNT([dataset.flights])).
 */
const RESERVED_PREFIXES = ['attr.', 'label.', 'fact.', 'dataset.'];

export const isLoadType = (t: string) => (LOAD_TYPES as readonly string[]).includes(t);

/** Where in a batch an error is: `3.` for item 3, nothing for a single object. */
export const where = (at: number | undefined) => (at === undefined ? '' : `${at}.`);

/**
 * `userrole.members` says who holds a role: user administration. Changing it needs the User
 * Admin level, and nobody adds or removes themselves.
 */
export function checkMembership(
  actor: ProjectActor,
  before: unknown,
  after: unknown,
  at: number | undefined,
  selfCheck = true,
): void {
  const set = (v: unknown) =>
    new Set((Array.isArray(v) ? v : []).map((m) => String(m).trim().toLowerCase()));
  const b = set(before);
  const a = set(after);
  const changed = [...b].filter((m) => !a.has(m)).concat([...a].filter((m) => !b.has(m)));
  if (!changed.length) return;
  const field = `${where(at)}def.members`;
  if (!hasLevel(actor, 'useradmin'))
    throw forbidden(
      `${field}: who holds a user role is user administration; it needs the User Admin permission level`,
      { field: 'def.members', required: 'useradmin', ...(at !== undefined ? { index: at } : {}) },
    );
  if (selfCheck && changed.includes(actor.email.toLowerCase()))
    throw forbidden(
      `${field}: you cannot add yourself to or remove yourself from a user role; another Admin or User Admin must`,
      { field: 'def.members', ...(at !== undefined ? { index: at } : {}) },
    );
}

export function parseAt<S extends z.ZodType>(
  schema: S,
  value: unknown,
  prefix: Array<string | number>,
  at: number | undefined,
): z.infer<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({
    path: [...prefix, ...i.path].map(String).join('.') || '(body)',
    message: i.message,
  }));
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  throw invalid(`invalid object: ${first.path}: ${first.message}${more}`, {
    issues,
    ...(at !== undefined ? { index: at } : {}),
  });
}

function withoutReadOnly(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const out = { ...(raw as Record<string, unknown>) };
  for (const k of READ_ONLY_FIELDS) delete out[k];
  return out;
}

export function parseNew(raw: unknown, at: number | undefined) {
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && isLoadType(type))
    throw invalid(
      `invalid object: ${where(at)}type: objects of type "${type}" are created by data loads; load a file with that column instead`,
      { field: 'type', value: type, ...(at !== undefined ? { index: at } : {}) },
    );
  if (typeof type !== 'string' || !isObjectType(type))
    throw invalid(
      `invalid object: ${where(at)}type: must be one of ${OBJECT_TYPES.filter((t) => !isLoadType(t)).join(', ')}`,
      { field: 'type', value: type ?? null, ...(at !== undefined ? { index: at } : {}) },
    );
  return parseAt(objectInput, withoutReadOnly(raw), at !== undefined ? [at] : [], at);
}

export function parseReplace(raw: unknown) {
  return parseAt(objectReplace, withoutReadOnly(raw), [], undefined);
}

export function checkReserved(ident: string, at: number | undefined): void {
  const prefix = RESERVED_PREFIXES.find((p) => ident.startsWith(p));
  if (prefix)
    throw invalid(
      `invalid object: ${where(at)}ident: "${prefix}…" identifiers belong to data loads`,
      { field: 'ident', value: ident, ...(at !== undefined ? { index: at } : {}) },
    );
}

/** `<type>.<slug of the name>`, with `_2`, `_3`… when taken. */
export function generateIdent(type: string, name: string, taken: Set<string>): string {
  const slug =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 60) || 'object';
  const base = `${type}.${slug}`;
  let ident = base;
  for (let n = 2; taken.has(ident); n++) ident = `${base}_${n}`;
  return ident;
}

export function parseRel(rel: unknown): ObjectType[] | null {
  const values = (Array.isArray(rel) ? rel : rel === undefined ? [] : [rel])
    .flatMap((v) => String(v).split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (!values.length) return null;
  const types = values.map((v) => v.replace(/^object\./, ''));
  const bad = values.filter((v, i) => !v.startsWith('object.') || !isObjectType(types[i]!));
  if (bad.length)
    throw invalid(
      `unknown rel ${bad.map((b) => `"${b}"`).join(', ')}; allowed: ${OBJECT_TYPES.map((t) => `object.${t}`).join(', ')}`,
      { field: 'rel', invalid: bad, allowed: OBJECT_TYPES.map((t) => `object.${t}`) },
    );
  return types as ObjectType[];
}

export function commaList(v: unknown, field: string): string[] {
  if (v === undefined) return [];
  if (typeof v !== 'string' && !Array.isArray(v))
    throw invalid(`${field} must be a comma list`, { field });
  return (Array.isArray(v) ? v : [v])
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The identifiers and view keys a bulk read asks for. */
export function parseBulk(q: { idents?: unknown; keys?: unknown }): {
  idents: string[];
  keys: string[];
} {
  const idents = commaList(q.idents, 'idents');
  if (!idents.length)
    throw invalid('idents is required: a comma list of object identifiers', {
      field: 'idents',
    });
  if (idents.length > MAX_BATCH)
    throw invalid(`at most ${MAX_BATCH} idents per call, got ${idents.length}`, {
      field: 'idents',
      count: idents.length,
    });
  const keys = commaList(q.keys, 'keys');
  const unknown = keys.filter((k) => !(VIEW_KEYS as readonly string[]).includes(k));
  if (unknown.length)
    throw invalid(
      `unknown key ${unknown.map((k) => `"${k}"`).join(', ')}; allowed: ${VIEW_KEYS.join(', ')}`,
      { field: 'keys', invalid: unknown, allowed: [...VIEW_KEYS] },
    );
  return { idents, keys };
}

/** A folder change: `add` or `remove` these identifiers to or from folder `ident`. */
export function parseFolderChange(body: unknown): {
  op: 'add' | 'remove';
  ident: string;
  content: string[];
} {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const OPS = ['add', 'remove'];
  if (!OPS.includes(b.op as string))
    throw invalid(`op must be one of ${OPS.map((o) => `"${o}"`).join(', ')}`, {
      field: 'op',
      value: b.op ?? null,
      allowed: OPS,
    });
  const ident = typeof b.ident === 'string' ? b.ident : '';
  if (!ident) throw invalid('ident is required: the folder to change', { field: 'ident' });
  const content = b.content;
  if (!Array.isArray(content) || content.some((c) => typeof c !== 'string'))
    throw invalid('content must be an array of object identifiers', { field: 'content' });
  return { op: b.op as 'add' | 'remove', ident, content: content as string[] };
}

/** A revision number as asked for (a path segment). */
export function parseRevision(revision: string): number {
  const n = Number(revision);
  if (!Number.isInteger(n) || n < 1)
    throw invalid(`revision must be a whole number ≥ 1, got "${revision}"`, {
      field: 'revision',
      value: revision,
    });
  return n;
}
