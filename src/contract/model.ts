// Model objects (attributes, labels, facts, metrics, reports, dashboards…) as the API shows
// them to one reader (docs/api.md "Model objects"): whole, as summaries, their revisions and
// search hits.

/** One entry of an object's ACL: five positions "rwdsa", "-" denies. */
export type AclEntry = { userrole: string; acl: string };

export interface ModelObject {
  ident: string;
  type: string;
  name: string;
  description: string;
  /** Its definition, by type (without secrets or identifiers the reader cannot see). */
  def: Record<string, unknown>;
  acl: AclEntry[];
  tag: string[];
  revision: number;
  created: string;
  createdBy: string;
  updated: string;
  updatedBy: string;
}

/** An object named by another (predecessors, successors, lists). */
export interface ObjectSummary {
  ident: string;
  type: string;
  name: string;
}

export interface RevisionInfo {
  revision: number;
  time: string;
  user: string;
}

/** Searchable fields, most important first. */
export const SEARCH_FIELDS = ['name', 'ident', 'tags', 'type', 'description'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export const MATCH_KINDS = ['exact', 'prefix', 'word', 'substring'] as const;
export type MatchKind = (typeof MATCH_KINDS)[number];

/** A hit of an object search: where it matched, and how. */
export interface SearchHit extends ObjectSummary {
  description: string;
  field: SearchField;
  match: MatchKind;
}

/** An attribute's or label's distinct values with their row counts (GET pmd/obj/{id}/values). */
export interface AttributeValues {
  values: Array<{ value: string; count: number }>;
  /** More values match than the limit let through. */
  truncated: boolean;
  /**
   * The dataset whose rows `count` counts: the facts' that reach the attribute (flights per
   * origin state), else the attribute's own.
   */
  counts: string;
}
