// Metadata tables, declared once with the column kit (./kit.ts).
// The semantic model: objects and every revision of them, and dashboard shares.
import {
  table,
  text,
  time,
  int,
  bool,
  json,
  primaryKey,
  index,
  uniqueIndex,
  foreignKey,
} from './kit.js';
import { projects } from './projects.js';

/** Semantic model objects (pmd/obj): attributes, labels, facts from loads; metrics, reports… */
export const objects = table(
  'objects',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    ident: text('ident').notNull(),
    type: text('type').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    def: json('def').$type<Record<string, unknown>>().notNull(),
    acl: json('acl').$type<Array<{ userrole: string; acl: string }>>().notNull().default([]),
    tags: json('tags').$type<string[]>().notNull().default([]),
    revision: int('revision').notNull().default(1),
    createdBy: text('created_by').notNull(),
    created: time('created').notNull(),
    updatedBy: text('updated_by').notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.ident] }),
    index('objects_type').on(t.projectId, t.type),
  ],
);

/** Every revision of every model object, for history and history/{revision}. */
export const objectRevisions = table(
  'object_revisions',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    ident: text('ident').notNull(),
    revision: int('revision').notNull(),
    snapshot: json('snapshot').$type<Record<string, unknown>>().notNull(),
    user: text('user').notNull(),
    time: time('time').notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.ident, t.revision] })],
);

/**
 * Dashboard shares (sharing/shares.ts): one per dashboard, gone with it (the foreign key on
 * the model object) and with the project. `users` are lowercase e-mails; `token` is the
 * public share's URL token (null for a private share); `pinned`, of a public share, the
 * revision of every object it computes when an unfiltered Admin last made or changed it
 * (sharing/public-pin.ts).
 */
export const shares = table(
  'shares',
  {
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    dashboard: text('dashboard').notNull(),
    type: text('type').$type<'private' | 'public'>().notNull(),
    users: json('users').$type<string[]>().notNull().default([]),
    emailNotif: bool('email_notif').notNull().default(false),
    token: text('token'),
    pinned: json('pinned').$type<Record<string, number> | null>(),
    createdBy: text('created_by').notNull(),
    created: time('created').notNull(),
    updatedBy: text('updated_by').notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.projectId, t.dashboard] }),
    uniqueIndex('shares_token').on(t.token),
    foreignKey({
      columns: [t.projectId, t.dashboard],
      foreignColumns: [objects.projectId, objects.ident],
    }).onDelete('cascade'),
  ],
);
