// Metadata database schema. Times are ISO-8601 strings; JSON columns hold small documents.
import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const organizations = sqliteTable('organizations', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  created: text('created').notNull(),
});

export const orgAdmins = sqliteTable(
  'org_admins',
  {
    orgId: text('org_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.email] })],
);

export const users = sqliteTable('users', {
  email: text('email').primaryKey(),
  name: text('name'),
  passwordHash: text('password_hash'),
  created: text('created').notNull(),
});

export const projects = sqliteTable('projects', {
  id: text('id').primaryKey(),
  label: text('label').notNull(),
  description: text('description').notNull().default(''),
  orgId: text('org_id')
    .notNull()
    .references(() => organizations.id),
  maintenance: integer('maintenance', { mode: 'boolean' }).notNull().default(false),
  webdavTokenHash: text('webdav_token_hash'),
  announcement: text('announcement', { mode: 'json' }).$type<Announcement | null>(),
  createdBy: text('created_by').notNull(),
  created: text('created').notNull(),
  updated: text('updated').notNull(),
});

export interface Announcement {
  title: string;
  message: string;
  startDate: string | null;
  endDate: string | null;
}

export const projectUsers = sqliteTable(
  'project_users',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    admin: integer('admin', { mode: 'boolean' }).notNull().default(false),
    mdadmin: integer('mdadmin', { mode: 'boolean' }).notNull().default(false),
    useradmin: integer('useradmin', { mode: 'boolean' }).notNull().default(false),
    roles: text('roles', { mode: 'json' })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    filter: text('filter'),
    invitedBy: text('invited_by'),
    created: text('created').notNull(),
    updated: text('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.email] }),
    index('project_users_email').on(t.email),
  ],
);

export const jobs = sqliteTable(
  'jobs',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    status: text('status').notNull(),
    message: text('message'),
    params: text('params', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    result: text('result', { mode: 'json' }).$type<unknown>(),
    progress: text('progress', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    created: text('created').notNull(),
    started: text('started'),
    finished: text('finished'),
  },
  (t) => [
    index('jobs_project_created').on(t.projectId, t.created),
    index('jobs_status').on(t.status),
  ],
);

export const activity = sqliteTable(
  'activity',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    time: text('time').notNull(),
    user: text('user'),
    object: text('object'),
    message: text('message').notNull(),
    detail: text('detail', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index('activity_project_type').on(t.projectId, t.type, t.id)],
);

export const sessions = sqliteTable('sessions', {
  /** sha256 of the cookie value: a leaked database does not leak live sessions. */
  idHash: text('id_hash').primaryKey(),
  email: text('email').notNull(),
  created: text('created').notNull(),
  expires: text('expires').notNull(),
});
