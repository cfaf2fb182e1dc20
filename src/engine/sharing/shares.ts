// Dashboard shares (SHARING.md "Shares"): one per dashboard, stored in the metadata DB and read
// from it on every use (several server processes may serve the same project).
//
// - private: the named members may read the dashboard and its reports even where the ACL
//   hides them (Reports asks sharedWith()); their row-level filter still applies. Named
//   users who are not members are invited as plain members, by an Admin or User Admin only.
// - public: an Admin without a row filter only, and only while the project's
//   `dashboardEmbedding` is on. Its URL `{site_url}/share/{token}` is served without signing
//   in, computed with the rights of the Admin who last created or changed it (`updatedBy`),
//   framable by the project's `embedOrigins`, and shown only to unfiltered Admins. What it
//   computes is pinned (public-pin.ts): changed by anyone else, the URL stops. It answers 404
//   as soon as any of that stops being true.
//
// Creating, changing or stopping a share needs the `s` position of the dashboard's ACL; a
// public share, the Admin level (and no row filter to create or change one). Every change
// records an `obj_share` event in its transaction.
// A deleted dashboard takes its share with it (foreign key on the model object).
//
// This file holds the share's API (list, read, create, change, stop) and its rows and events;
// public-shares.ts serves public ones, share-access.ts checks rights, share-users.ts invites
// and e-mails the named users.
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import type { Share, ShareChange, ShareType } from '../../contract/dashboards.js';
import { apiHref, sharePath } from '../../contract/urls.js';
import {
  first,
  isForeignKeyViolation,
  isUniqueViolation,
  tx,
  type Db,
  tablesOf,
  sqlOf,
  type Tables,
} from '../db/index.js';
import { conflict, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import type { ModelScope } from '../model/scope.js';
import type { ObjectRow } from '../model/store.js';
import { parseInput, zBool } from '../validate.js';
import { publishes } from './public-pin.js';
import {
  newToken,
  pinNow,
  PublicShares,
  type PublicDashboard,
  type PublicShareDeps,
} from './public-shares.js';
import { dashboardOf, mayChange, mayPublish, mayShare } from './share-access.js';
import { inviteNonMembers, notify, type ShareUsersDeps } from './share-users.js';

export { SHARE_PATH, type PublicDashboard } from './public-shares.js';
export type { Notified } from './share-users.js';

export type { ShareType };

/** At most this many users named by one share. */
export const MAX_SHARE_USERS = 1000;

const email = z
  .string()
  .max(254)
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.email({ error: 'must be an e-mail address' }));
const usersField = z
  .array(email)
  .max(MAX_SHARE_USERS, `at most ${MAX_SHARE_USERS} users`)
  .transform((list) => [...new Set(list)]);
const typeField = z.enum(['private', 'public'], { error: 'must be "private" or "public"' });
const objectField = z
  .string({ error: 'the dashboard to share: its identifier' })
  .min(1, 'the dashboard to share: its identifier')
  .max(200);

const NEEDS_USERS = 'a private share names at least one user';

const createSchema = z
  .object({
    type: typeField,
    object: objectField,
    users: usersField.optional(),
    emailNotif: zBool.optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.type === 'private' && !b.users?.length)
      ctx.addIssue({ code: 'custom', path: ['users'], message: NEEDS_USERS });
  });

const updateSchema = z
  .object({
    type: typeField.optional(),
    object: objectField.optional(),
    users: usersField.optional(),
    emailNotif: zBool.optional(),
  })
  .strict();

/** A share as the API shows it (src/contract/dashboards.ts). */
export type ShareView = Share;

export type { ShareChange };

type ShareRow = Tables['shares']['$inferSelect'];

export interface SharesDeps extends PublicShareDeps, ShareUsersDeps {
  activity: ActivityLog;
}

/** Asked for every dashboard and report a member opens beyond their ACL: one keyed read. */
function sharedWithRow(db: Db, project: string, dashboard: string, email: string) {
  const { shares } = tablesOf(db);
  const { jsonArrayHas } = sqlOf(db);
  return db
    .select({ one: sql<number>`1`.mapWith(Number) })
    .from(shares)
    .where(
      and(
        eq(shares.projectId, project),
        eq(shares.dashboard, dashboard),
        jsonArrayHas(shares.users, email),
      ),
    )
    .limit(1)
    .then(first);
}

export class Shares {
  private readonly db: Db;

  private readonly published: PublicShares;

  constructor(private readonly deps: SharesDeps) {
    this.db = deps.db;
    this.published = new PublicShares(deps);
  }

  /** Whether a share of this dashboard names this member (read from the DB every time). */
  async sharedWith(projectId: string, dashboard: string, email: string): Promise<boolean> {
    const hit = await sharedWithRow(this.db, projectId, dashboard, email.toLowerCase());
    return hit !== undefined;
  }

  /** The project's shares of dashboards the caller can see. */
  async list(a: ProjectActor): Promise<ShareView[]> {
    const { shares } = tablesOf(this.db);
    const s = await this.deps.objects.scope(a);
    const rows = await this.db
      .select()
      .from(shares)
      .where(eq(shares.projectId, a.projectId))
      .orderBy(shares.dashboard);
    return rows.flatMap((r) => {
      const dash = s.get(r.dashboard);
      return dash && dash.type === 'dashboard' ? [this.view(r, dash, s)] : [];
    });
  }

  async get(a: ProjectActor, dashboardId: string): Promise<ShareView> {
    const s = await this.deps.objects.scope(a);
    const dash = dashboardOf(s, dashboardId);
    return this.view(await this.mustRow(a.projectId, dash), dash, s);
  }

  async create(a: ProjectActor, body: unknown): Promise<ShareChange> {
    const { shares } = tablesOf(this.db);
    const input = parseInput(createSchema, body, 'share');
    const s = await this.deps.objects.scope(a);
    const dash = dashboardOf(s, input.object);
    mayShare(s, dash);
    if (input.type === 'public') await mayPublish(this.db, a);
    if (await this.row(a.projectId, dash.ident))
      throw conflict(
        `dashboard "${dash.ident}" is already shared; change its share with PUT ${shareHref(a.projectId, dash.ident)}`,
        { dashboard: dash.ident, href: shareHref(a.projectId, dash.ident) },
      );
    const users = input.users ?? [];
    const emailNotif = input.emailNotif ?? false;
    const invited = await inviteNonMembers(this.deps, a, users, emailNotif);
    const now = nowIso();
    const row: ShareRow = {
      projectId: a.projectId,
      dashboard: dash.ident,
      type: input.type,
      users,
      emailNotif,
      token: input.type === 'public' ? newToken() : null,
      pinned: input.type === 'public' ? pinNow(s, dash) : null,
      createdBy: a.email,
      created: now,
      updatedBy: a.email,
      updated: now,
    };
    await this.write(dash, async () => {
      await this.db.insert(shares).values(row);
      await this.deps.activity.record(a.projectId, 'obj_share', {
        user: a.email,
        object: dash.ident,
        message: `shared ${describe(dash)} ${whom(row)}`,
        detail: { action: 'create', ...eventDetail(row) },
      });
    });
    const notified = emailNotif ? await notify(this.deps, a, dash, users) : [];
    return { share: this.view(row, dash, s), invited, notified };
  }

  async update(a: ProjectActor, dashboardId: string, body: unknown): Promise<ShareChange> {
    const { shares } = tablesOf(this.db);
    const input = parseInput(updateSchema, body, 'share');
    if (input.object !== undefined && input.object !== dashboardId)
      throw invalid(
        `body object "${input.object}" does not match the dashboard in the path "${dashboardId}"`,
        { field: 'object' },
      );
    const s = await this.deps.objects.scope(a);
    const dash = dashboardOf(s, dashboardId);
    const before = await this.mustRow(a.projectId, dash);
    mayChange(a, s, dash, before);
    const type = input.type ?? before.type;
    // Also keeping a share public needs embedding on: while it is off, a public share can only
    // be turned private or stopped.
    if (type === 'public') await mayPublish(this.db, a);
    const users = input.users ?? before.users;
    if (type === 'private' && users.length === 0)
      throw invalid(`invalid share: users: ${NEEDS_USERS}`, {
        issues: [{ path: 'users', message: NEEDS_USERS }],
      });
    const emailNotif = input.emailNotif ?? before.emailNotif;
    const added = users.filter((u) => !before.users.includes(u));
    const removed = before.users.filter((u) => !users.includes(u));
    const invited = await inviteNonMembers(this.deps, a, added, emailNotif);
    const after: ShareRow = {
      ...before,
      type,
      users,
      emailNotif,
      // Public → private drops the token: the old URL answers 404 from now on.
      token: type === 'public' ? (before.token ?? newToken()) : null,
      // Changed by an unfiltered Admin (mayPublish), it computes what is there now.
      pinned: type === 'public' ? pinNow(s, dash) : null,
      updatedBy: a.email,
      updated: nowIso(),
    };
    await this.write(dash, async () => {
      // Only the version read above is changed: a change made meanwhile is not overwritten.
      const r = await this.db
        .update(shares)
        .set(after)
        .where(
          and(
            eq(shares.projectId, a.projectId),
            eq(shares.dashboard, dash.ident),
            eq(shares.updated, before.updated),
            eq(shares.updatedBy, before.updatedBy),
          ),
        )
        .returning({ dashboard: shares.dashboard });
      if (r.length === 0) {
        if (!(await this.row(a.projectId, dash.ident))) throw notShared(dash.ident);
        throw conflict(
          `the share of dashboard "${dash.ident}" was changed meanwhile; read it and try again`,
          {
            dashboard: dash.ident,
          },
        );
      }
      await this.deps.activity.record(a.projectId, 'obj_share', {
        user: a.email,
        object: dash.ident,
        message: `changed the share of ${describe(dash)}: ${whom(after)}`,
        detail: {
          action: 'update',
          ...eventDetail(after),
          fields: Object.keys(input).filter((k) => k !== 'object'),
          added,
          removed,
          ...(before.type !== type ? { previousType: before.type } : {}),
        },
      });
    });
    const notified = emailNotif && added.length ? await notify(this.deps, a, dash, added) : [];
    return { share: this.view(after, dash, s), invited, notified };
  }

  async stop(a: ProjectActor, dashboardId: string): Promise<void> {
    const { shares } = tablesOf(this.db);
    const s = await this.deps.objects.scope(a);
    const dash = dashboardOf(s, dashboardId);
    const before = await this.mustRow(a.projectId, dash);
    mayChange(a, s, dash, before);
    await tx(this.db, async () => {
      const r = await this.db
        .delete(shares)
        .where(and(eq(shares.projectId, a.projectId), eq(shares.dashboard, dash.ident)))
        .returning({ dashboard: shares.dashboard });
      if (r.length === 0) throw notShared(dash.ident);
      await this.deps.activity.record(a.projectId, 'obj_share', {
        user: a.email,
        object: dash.ident,
        message: `stopped sharing ${describe(dash)}`,
        detail: { action: 'stop', ...eventDetail(before) },
      });
    });
  }

  /** A public share's dashboard and who may frame it, or the one 404 (public-shares.ts). */
  publicDashboard(
    token: string,
    filter: unknown,
    opts: { signal?: AbortSignal; choices?: boolean } = {},
  ): Promise<PublicDashboard> {
    return this.published.dashboard(token, filter, opts);
  }

  publicUrl(token: string): string {
    return this.published.url(token);
  }

  // ---- storage and output ----

  private async row(projectId: string, dashboard: string): Promise<ShareRow | undefined> {
    const { shares } = tablesOf(this.db);
    return this.db
      .select()
      .from(shares)
      .where(and(eq(shares.projectId, projectId), eq(shares.dashboard, dashboard)))
      .then(first);
  }

  private async mustRow(projectId: string, dash: ObjectRow): Promise<ShareRow> {
    const row = await this.row(projectId, dash.ident);
    if (!row) throw notShared(dash.ident);
    return row;
  }

  /** One write and its event, one transaction; the database's constraints have the last word. */
  private async write(dash: ObjectRow, fn: () => Promise<void>): Promise<void> {
    try {
      await tx(this.db, fn);
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict(`dashboard "${dash.ident}" is already shared; change its share with PUT`, {
          dashboard: dash.ident,
        });
      if (isForeignKeyViolation(err))
        throw notFound(`dashboard "${dash.ident}" not found`, { dashboard: dash.ident });
      throw err;
    }
  }

  private view(r: ShareRow, dash: ObjectRow, s: ModelScope): ShareView {
    // Only to whoever could make it public: the URL shows every row, unfiltered.
    const showUrl = r.type === 'public' && r.token !== null && publishes(s.actor);
    return {
      dashboard: r.dashboard,
      name: dash.name,
      type: r.type,
      users: r.users,
      emailNotif: r.emailNotif,
      ...(showUrl ? { url: this.publicUrl(r.token!) } : {}),
      createdBy: r.createdBy,
      created: r.created,
      updatedBy: r.updatedBy,
      updated: r.updated,
    };
  }
}

const shareHref = (projectId: string, dashboard: string) =>
  apiHref(sharePath(projectId, dashboard));

const notShared = (dashboard: string) =>
  notFound(`dashboard "${dashboard}" is not shared`, { dashboard });

const describe = (dash: ObjectRow) => `dashboard "${dash.name}" (${dash.ident})`;

function whom(r: Pick<ShareRow, 'type' | 'users'>): string {
  const named = r.users.length ? `with ${r.users.join(', ')}` : '';
  return r.type === 'public' ? `publicly${named ? ` and ${named}` : ''}` : named;
}

/** What an event tells of a share: never its token (readers of the object see the event). */
const eventDetail = (r: ShareRow) => ({
  dashboard: r.dashboard,
  type: r.type,
  users: r.users,
  emailNotif: r.emailNotif,
});
