// Every metadata table, declared once by area; schema.ts builds them for SQLite and
// schema-pg.ts for PostgreSQL, each exporting them under these names.
import { aiConversations, aiMessages, jobs } from './jobs.js';
import {
  datasets,
  datasetVersions,
  davLocks,
  davProps,
  prescriptions,
  projectWriteLocks,
  uploads,
} from './data.js';
import { flowLocks, triggerFirings, triggerPauses, triggerState } from './flows.js';
import {
  limitCounters,
  mcpSessions,
  oidcModels,
  organizations,
  orgAdmins,
  passwordLinks,
  sessions,
  tokenRevocations,
  users,
} from './identity.js';
import { objectRevisions, objects, shares } from './model.js';
import { deliveryHistory, deliveryState } from './delivery.js';
import { activity, projects, projectUsers } from './projects.js';

export type { Announcement, WarehouseBinding } from './projects.js';

export const declarations = {
  organizations,
  orgAdmins,
  users,
  projects,
  projectUsers,
  jobs,
  activity,
  sessions,
  davProps,
  uploads,
  prescriptions,
  datasets,
  objects,
  objectRevisions,
  oidcModels,
  limitCounters,
  tokenRevocations,
  aiConversations,
  aiMessages,
  passwordLinks,
  flowLocks,
  triggerFirings,
  triggerState,
  triggerPauses,
  shares,
  datasetVersions,
  projectWriteLocks,
  mcpSessions,
  davLocks,
  deliveryState,
  deliveryHistory,
};
