// An object as the API shows it to one reader: its view (def without secrets, without
// identifiers the reader cannot see, below MD Admin without a flow's values), summaries, and
// the field selection of bulk reads.
import type { ModelObject, ObjectSummary, RevisionInfo, SearchHit } from '../../contract/model.js';
import { hasLevel } from '../access/actor.js';
import { redactFlowDef } from '../flows/redact.js';
import { showDef } from './saved-aql.js';
import type { ModelScope } from './scope.js';
import type { ObjectRow, RevisionRow } from './store.js';

export type ObjectView = ModelObject;
export type { ObjectSummary, RevisionInfo };

export const VIEW_KEYS = [
  'ident',
  'type',
  'name',
  'description',
  'def',
  'acl',
  'tag',
  'revision',
  'created',
  'createdBy',
  'updated',
  'updatedBy',
] as const;

export interface ObjectDetails {
  object: ObjectView;
  predecessors?: ObjectSummary[];
  successors?: ObjectSummary[];
  history?: RevisionInfo[];
}

export type SearchResult = SearchHit;

export const summary = (r: ObjectRow): ObjectSummary => ({
  ident: r.ident,
  type: r.type,
  name: r.name,
});

/** The object as the API shows it to the actor of `s`. */
/** The object as it was at revision `n` (its stored snapshot over the current row). */
export function rowAt(row: ObjectRow, rev: RevisionRow, n: number): ObjectRow {
  const snap = rev.snapshot as Partial<ObjectRow>;
  return {
    ...row,
    ...snap,
    acl: snap.acl ?? [],
    tags: snap.tags ?? [],
    revision: n,
    updated: String(snap.updated ?? rev.time),
    updatedBy: String(snap.updatedBy ?? rev.user),
  } as ObjectRow;
}

export function viewOf(row: ObjectRow, s: ModelScope): ObjectView {
  return {
    ident: row.ident,
    type: row.type,
    name: row.name,
    description: row.description,
    def: showDef(row.type, publicDef(row, s), s.index.names),
    acl: row.acl,
    tag: row.tags,
    revision: row.revision,
    created: row.created,
    createdBy: row.createdBy,
    updated: row.updated,
    updatedBy: row.updatedBy,
  };
}

/**
 * A def as shown: no secret, no identifiers of objects the reader cannot see, and below MD
 * Admin no value of a flow that may carry a secret (redact.ts) and only a credentials
 * object's kind. Every way a def is read
 * (pmd/obj in each format, revisions, flowlist, MCP) goes through here.
 */
function publicDef(row: ObjectRow, s: ModelScope): Record<string, unknown> {
  const def = row.def;
  switch (row.type) {
    case 'credentials': {
      // Where a login goes (server, replicas, user, database, key) is MD Admin's to know;
      // other members see only the kind a box may name. The secret is never shown.
      const { secretEnc, ...rest } = def;
      const shown = hasLevel(s.actor, 'mdadmin') ? rest : { kind: rest.kind };
      return { ...shown, secretSet: typeof secretEnc === 'string' };
    }
    case 'flow':
      return hasLevel(s.actor, 'mdadmin') ? def : redactFlowDef(def);
    case 'folder':
      return {
        ...def,
        content: ((def.content as string[] | undefined) ?? []).filter((c) => seen(s, c)),
      };
    case 'dashboard': {
      // A text item names nothing: everyone who reads the dashboard sees it.
      const items = (
        (def.items as Array<{ id: string; report?: string }> | undefined) ?? []
      ).filter((it) => it.report === undefined || seen(s, it.report));
      const ids = new Set(items.map((it) => it.id));
      return {
        ...def,
        items,
        layout: ((def.layout as Array<{ item: string }> | undefined) ?? []).filter((l) =>
          ids.has(l.item),
        ),
      };
    }
    default:
      return def;
  }
}

/** Readable by the scope's actor, or missing altogether (a dangling id reveals nothing). */
const seen = (s: ModelScope, ident: string) => !s.index.byIdent.has(ident) || !!s.get(ident);

/** The asked fields, in the view's order; `ident` always, so answers can be matched. */
export function pick(v: ObjectView, keys: string[]): Partial<ObjectView> {
  const out: Record<string, unknown> = { ident: v.ident };
  for (const k of VIEW_KEYS) if (keys.includes(k)) out[k] = v[k];
  return out as Partial<ObjectView>;
}
