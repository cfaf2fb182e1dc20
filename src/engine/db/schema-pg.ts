// The metadata tables for PostgreSQL, built from the one declaration in ./schema/ (drizzle-kit
// generates drizzle-pg/ from this module: `npm run db:generate:pg`). Times are ISO-8601
// text, as on SQLite; JSON documents `json`, not `jsonb` (jsonb sorts keys); see ./schema/kit.ts.
import { declarations } from './schema/index.js';
import { pgTables } from './schema/pg.js';

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
} = pgTables(declarations);
