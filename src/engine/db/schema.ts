// The metadata tables for SQLite, built from the one declaration in ./schema/ (drizzle-kit
// generates drizzle/ from this module: `npm run db:generate`). Times are ISO-8601 text; JSON
// columns hold small documents.
import { declarations } from './schema/index.js';
import { sqliteTables } from './schema/sqlite.js';

export type { Announcement, WarehouseBinding } from './schema/index.js';

export const {
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
} = sqliteTables(declarations);
