// Metadata tables, declared once with the column kit (./kit.ts).
// Projects, their members and their activity log.
import { table, text, time, int, bool, json, rowId, primaryKey, index } from './kit.js';
import { organizations } from './identity.js';
import type { Announcement, WarehouseBinding } from '../../../contract/projects.js';

export type { Announcement, WarehouseBinding };

export const projects = table('projects', {
  id: text('id').primaryKey(),
  label: text('label').notNull(),
  description: text('description').notNull().default(''),
  orgId: text('org_id')
    .notNull()
    .references(() => organizations.id),
  maintenance: bool('maintenance').notNull().default(false),
  webdavTokenHash: text('webdav_token_hash'),
  announcement: json('announcement').$type<Announcement | null>(),
  createdBy: text('created_by').notNull(),
  created: time('created').notNull(),
  updated: time('updated').notNull(),
  /** Bumped by every data load: results cached under an older version are stale. */
  dataVersion: int('data_version').notNull().default(0),
  /** Bumped by every model change. */
  modelVersion: int('model_version').notNull().default(0),
  /** Public shares of dashboards are allowed (sharing/shares.ts). */
  dashboardEmbedding: bool('dashboard_embedding').notNull().default(false),
  /** Origins that may frame public shares; null: any (`frame-ancestors *`). */
  embedOrigins: json('embed_origins').$type<string[] | null>(),
  /** A warehouse project's binding (SCALE.md): its data is read where it lives. */
  warehouse: json('warehouse').$type<WarehouseBinding | null>(),
  /** Members may create a password of their own for the SQL API (an Admin's choice). */
  sqlPasswords: bool('sql_passwords').notNull().default(false),
});

export const projectUsers = table(
  'project_users',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    active: bool('active').notNull().default(true),
    admin: bool('admin').notNull().default(false),
    mdadmin: bool('mdadmin').notNull().default(false),
    useradmin: bool('useradmin').notNull().default(false),
    roles: json('roles').$type<string[]>().notNull().default([]),
    filter: text('filter'),
    /** Positions of `filter`'s references written by title (aql/ref-rewrite.ts). */
    filterByTitle: json('filter_by_title').$type<number[]>(),
    /** The member's SQL API password (hashed), when the project allows them. */
    sqlPasswordHash: text('sql_password_hash'),
    invitedBy: text('invited_by'),
    created: time('created').notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.email] }),
    index('project_users_email').on(t.email),
  ],
);

export const activity = table(
  'activity',
  {
    id: rowId('id'),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    time: time('time').notNull(),
    user: text('user'),
    object: text('object'),
    message: text('message').notNull(),
    detail: json('detail').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index('activity_project_type').on(t.projectId, t.type, t.id)],
);
