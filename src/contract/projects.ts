// Projects as the API answers them (docs/api.md "Projects"): the list, one project's details
// with the caller's access, and the plan limits with their usage (limitadherence).

/** The limits of a plan, in the order the API lists them. */
export const LIMIT_NAMES = [
  'storageBytes',
  'aiMessagesPerDay',
  'datasetRows',
  'users',
  'flows',
  'projects',
  'deliveries',
  'emailsPerDay',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** One limit and its usage. */
export interface LimitUsage {
  limit: number;
  value: number;
}

/**
 * GET /projects/{project}/limitadherence: each limit with its usage. `datasetRows` counts
 * every row of the project, so its usage is null for a reader with a row-level filter.
 */
export type Adherence = Record<Exclude<LimitName, 'datasetRows'>, LimitUsage> & {
  datasetRows: { limit: number; value: number | null };
};

/** A project bound to a PostgreSQL database: a credentials object and a schema. */
export interface WarehouseBinding {
  credentials: string;
  schema: string;
}

export interface Announcement {
  title: string;
  message: string;
  startDate: string | null;
  endDate: string | null;
}

export interface AnnouncementView extends Announcement {
  /** Whether today falls between startDate and endDate (open ends count as open). */
  current: boolean;
}

/** What the caller may do in the project. */
export interface ProjectAccess {
  admin: boolean;
  mdadmin: boolean;
  useradmin: boolean;
  roles: string[];
  /** The caller's row-level filter (AQL), null when none. */
  filter: string | null;
}

/** GET /projects/{project} (and PUT, POST /projects): `{ project, link }`. */
export interface ProjectDetails {
  id: string;
  label: string;
  desc: string;
  entity: string;
  plan: string;
  maintenance: boolean;
  webdavTokenSet: boolean;
  /** Public shares of dashboards allowed. */
  dashboardEmbedding: boolean;
  /** Members may create SQL API passwords of their own. */
  sqlPasswords: boolean;
  /** Origins that may frame public shares; empty: any. */
  embedOrigins: string[];
  /** A warehouse project's binding (never the secret: that stays in the credentials). */
  warehouse: WarehouseBinding | null;
  created: string;
  updated: string;
  createdBy: string;
  access: ProjectAccess;
  limits: Adherence;
  announcement: AnnouncementView | null;
}

/** A project of GET /projects (keyed by id there, with its `href`). */
export interface ProjectListEntry {
  id: string;
  label: string;
  hasAccess: boolean;
  isAdmin: boolean;
  isMdAdmin: boolean;
}
