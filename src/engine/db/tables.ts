// The metadata tables engine code queries, for the database this process uses. Both schemas
// (schema.ts for SQLite, schema-pg.ts for PostgreSQL) describe the same tables under the same
// names (test/db-schema-parity.test.ts); each export below is a live binding that
// `useDialect` points at one of them before the store opens, so no engine module knows which
// database is behind it. Types are the SQLite schema's: the JavaScript values are the same.
import * as pg from './schema-pg.js';
import * as sqlite from './schema.js';

export type { Announcement, WarehouseBinding } from './schema.js';
export type Dialect = 'sqlite' | 'postgres';

let bound: Dialect | null = null;

export let organizations = sqlite.organizations;
export let orgAdmins = sqlite.orgAdmins;
export let users = sqlite.users;
export let projects = sqlite.projects;
export let projectUsers = sqlite.projectUsers;
export let jobs = sqlite.jobs;
export let activity = sqlite.activity;
export let sessions = sqlite.sessions;
export let davProps = sqlite.davProps;
export let uploads = sqlite.uploads;
export let prescriptions = sqlite.prescriptions;
export let datasets = sqlite.datasets;
export let objects = sqlite.objects;
export let objectRevisions = sqlite.objectRevisions;
export let oidcModels = sqlite.oidcModels;
export let authThrottle = sqlite.authThrottle;
export let tokenRevocations = sqlite.tokenRevocations;
export let mcpSessions = sqlite.mcpSessions;
export let davLocks = sqlite.davLocks;
export let aiConversations = sqlite.aiConversations;
export let aiMessages = sqlite.aiMessages;
export let passwordLinks = sqlite.passwordLinks;
export let rateEvents = sqlite.rateEvents;
export let flowLocks = sqlite.flowLocks;
export let triggerFirings = sqlite.triggerFirings;
export let triggerState = sqlite.triggerState;
export let triggerPauses = sqlite.triggerPauses;
export let shares = sqlite.shares;

/**
 * Points every table at `dialect`'s schema. One process uses one metadata database: binding
 * the other dialect after the first store opened is a programming error.
 */
export function useDialect(dialect: Dialect): void {
  if (bound && bound !== dialect)
    throw new Error(`this process already uses the ${bound} metadata schema, not ${dialect}`);
  bound = dialect;
  const s = (dialect === 'postgres' ? pg : sqlite) as unknown as typeof sqlite;
  organizations = s.organizations;
  orgAdmins = s.orgAdmins;
  users = s.users;
  projects = s.projects;
  projectUsers = s.projectUsers;
  jobs = s.jobs;
  activity = s.activity;
  sessions = s.sessions;
  davProps = s.davProps;
  uploads = s.uploads;
  prescriptions = s.prescriptions;
  datasets = s.datasets;
  objects = s.objects;
  objectRevisions = s.objectRevisions;
  oidcModels = s.oidcModels;
  authThrottle = s.authThrottle;
  tokenRevocations = s.tokenRevocations;
  mcpSessions = s.mcpSessions;
  davLocks = s.davLocks;
  aiConversations = s.aiConversations;
  aiMessages = s.aiMessages;
  passwordLinks = s.passwordLinks;
  rateEvents = s.rateEvents;
  flowLocks = s.flowLocks;
  triggerFirings = s.triggerFirings;
  triggerState = s.triggerState;
  triggerPauses = s.triggerPauses;
  shares = s.shares;
}

/** The dialect the tables are bound to (SQLite until a store binds one). */
export const boundDialect = (): Dialect => bound ?? 'sqlite';
