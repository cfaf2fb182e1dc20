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
import { randomBytes } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { apiHref, dashboardPath, sharePath } from '../../contract/urls.js';
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

import { conflict, EngineError, forbidden, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { shareNoticeMessage } from '../mail/share-notice.js';
import type { Mailer } from '../mail/mailer.js';
import type { ModelObjects } from '../model/objects.js';
import type { ModelScope } from '../model/scope.js';
import type { ModelStore, ObjectRow } from '../model/store.js';
import type { DashboardRun, Reports } from '../reports/reports.js';
import type { InviteResult, Members } from '../users/members.js';
import { parseInput, zBool } from '../validate.js';
import { computedObjects, pinHolds, pinOf, publishes, type Pin } from './public-pin.js';

export type ShareType = 'private' | 'public';

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

/** A share as the API shows it. `url` only to those who may publish it: unfiltered Admins. */
export interface ShareView {
  dashboard: string;
  /** The dashboard's name. */
  name: string;
  type: ShareType;
  users: string[];
  emailNotif: boolean;
  url?: string;
  createdBy: string;
  created: string;
  /** Who changed it last; for a public share, the Admin whose rights compute its page. */
  updatedBy: string;
  updated: string;
}

export interface Notified {
  id: string;
  emailSent: boolean;
  emailError?: string;
}

/** What a create or change did besides the share itself. */
export interface ShareChange {
  share: ShareView;
  /** Named users who were not members and were invited as plain members. */
  invited: InviteResult[];
  /** Users e-mailed a link to the dashboard (`emailNotif`): every one on create, new ones on change. */
  notified: Notified[];
}

export interface PublicDashboard {
  run: DashboardRun;
  /** CSP frame-ancestors: the project's `embedOrigins`, or `*` when none is set. */
  frameAncestors: string[];
}

/** The public token: 32 random bytes, base64url. */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;
const newToken = (): string => randomBytes(32).toString('base64url');

/** The one answer for every public URL that does not show a dashboard now: no hints why. */
const noSuchShare = () => notFound('no shared dashboard at this address');

type ShareRow = Tables['shares']['$inferSelect'];

export interface SharesDeps {
  db: Db;
  objects: ModelObjects;
  /** Revisions of model objects: who changed what a public share computes. */
  model: ModelStore;
  members: Members;
  reports: Reports;
  activity: ActivityLog;
  mailer: Mailer;
  /** The site's address (known once the server listens). */
  siteUrl: () => string;
  /** A member's rights in a project (throws when they are not an active member). */
  actorOf: (email: string, projectId: string) => Promise<ProjectActor>;
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

/** The public share behind a token, while the project allows embedding. */
function publicRow(db: Db, token: string) {
  const { shares, projects } = tablesOf(db);
  return db
    .select({
      projectId: shares.projectId,
      dashboard: shares.dashboard,
      sharedBy: shares.updatedBy,
      pinned: shares.pinned,
      embedOrigins: projects.embedOrigins,
    })
    .from(shares)
    .innerJoin(projects, eq(projects.id, shares.projectId))
    .where(
      and(
        eq(shares.token, token),
        eq(shares.type, 'public'),
        eq(projects.dashboardEmbedding, true),
      ),
    )
    .limit(1)
    .then(first);
}

export class Shares {
  private readonly db: Db;

  constructor(private readonly deps: SharesDeps) {
    this.db = deps.db;
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
    const dash = this.dashboard(s, dashboardId);
    return this.view(await this.mustRow(a.projectId, dash), dash, s);
  }

  async create(a: ProjectActor, body: unknown): Promise<ShareChange> {
    const { shares } = tablesOf(this.db);
    const input = parseInput(createSchema, body, 'share');
    const s = await this.deps.objects.scope(a);
    const dash = this.dashboard(s, input.object);
    this.mayShare(s, dash);
    if (input.type === 'public') await this.mayPublish(a);
    if (await this.row(a.projectId, dash.ident))
      throw conflict(
        `dashboard "${dash.ident}" is already shared; change its share with PUT ${shareHref(a.projectId, dash.ident)}`,
        { dashboard: dash.ident, href: shareHref(a.projectId, dash.ident) },
      );
    const users = input.users ?? [];
    const emailNotif = input.emailNotif ?? false;
    const invited = await this.inviteNonMembers(a, users, emailNotif);
    const now = nowIso();
    const row: ShareRow = {
      projectId: a.projectId,
      dashboard: dash.ident,
      type: input.type,
      users,
      emailNotif,
      token: input.type === 'public' ? newToken() : null,
      pinned: input.type === 'public' ? this.pin(s, dash) : null,
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
    const notified = emailNotif ? await this.notify(a, dash, users) : [];
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
    const dash = this.dashboard(s, dashboardId);
    const before = await this.mustRow(a.projectId, dash);
    this.mayChange(a, s, dash, before);
    const type = input.type ?? before.type;
    // Also keeping a share public needs embedding on: while it is off, a public share can only
    // be turned private or stopped.
    if (type === 'public') await this.mayPublish(a);
    const users = input.users ?? before.users;
    if (type === 'private' && users.length === 0)
      throw invalid(`invalid share: users: ${NEEDS_USERS}`, {
        issues: [{ path: 'users', message: NEEDS_USERS }],
      });
    const emailNotif = input.emailNotif ?? before.emailNotif;
    const added = users.filter((u) => !before.users.includes(u));
    const removed = before.users.filter((u) => !users.includes(u));
    const invited = await this.inviteNonMembers(a, added, emailNotif);
    const after: ShareRow = {
      ...before,
      type,
      users,
      emailNotif,
      // Public → private drops the token: the old URL answers 404 from now on.
      token: type === 'public' ? (before.token ?? newToken()) : null,
      // Changed by an unfiltered Admin (mayPublish), it computes what is there now.
      pinned: type === 'public' ? this.pin(s, dash) : null,
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
    const notified = emailNotif && added.length ? await this.notify(a, dash, added) : [];
    return { share: this.view(after, dash, s), invited, notified };
  }

  async stop(a: ProjectActor, dashboardId: string): Promise<void> {
    const { shares } = tablesOf(this.db);
    const s = await this.deps.objects.scope(a);
    const dash = this.dashboard(s, dashboardId);
    const before = await this.mustRow(a.projectId, dash);
    this.mayChange(a, s, dash, before);
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

  /**
   * The dashboard of a public share, computed with the rights of the Admin who shared it, and
   * the origins that may frame it. One 404 for every reason it is not shown.
   */
  async publicDashboard(
    token: string,
    filter: unknown,
    opts: { signal?: AbortSignal } = {},
  ): Promise<PublicDashboard> {
    if (!TOKEN_RE.test(token)) throw noSuchShare();
    const hit = await publicRow(this.db, token);
    if (!hit) throw noSuchShare();
    const actor = await this.servedAs(hit);
    let run: DashboardRun;
    try {
      run = await this.deps.reports.dashboard(actor, hit.dashboard, filter, opts);
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'not_found') throw noSuchShare();
      throw err;
    }
    // Again once computed: a change made (or rights lost) while it ran is on record by now,
    // and nothing computed from it leaves.
    await this.servedAs(hit);
    const origins = hit.embedOrigins ?? [];
    return { run, frameAncestors: origins.length ? origins : ['*'] };
  }

  // ---- rules ----

  /** The dashboard as the caller sees it by their roles; hidden and missing read the same. */
  private dashboard(s: ModelScope, ident: string): ObjectRow {
    const row = s.get(ident);
    if (!row || row.type !== 'dashboard')
      throw notFound(`dashboard "${ident}" not found`, { dashboard: ident });
    return row;
  }

  private mayShare(s: ModelScope, dash: ObjectRow): void {
    if (!s.allows(dash, 's'))
      throw forbidden(
        `you may not share dashboard "${dash.ident}": sharing needs the s (share) position of its acl`,
        { dashboard: dash.ident, needs: 's' },
      );
  }

  /** Changing or stopping: `s` on the dashboard; a public share, the Admin level too. */
  private mayChange(a: ProjectActor, s: ModelScope, dash: ObjectRow, row: ShareRow): void {
    this.mayShare(s, dash);
    if (row.type === 'public' && !a.admin)
      throw forbidden(
        `the share of dashboard "${dash.ident}" is public: only an Admin changes or stops it`,
        {
          dashboard: dash.ident,
          required: 'admin',
        },
      );
  }

  /** A public share: the Admin level without a row filter, and dashboardEmbedding on. */
  private async mayPublish(a: ProjectActor): Promise<void> {
    const { projects } = tablesOf(this.db);
    if (!publishes(a))
      throw forbidden(
        a.admin
          ? 'a public share is computed without row filter: making or changing one needs an Admin without a row filter'
          : 'a public share needs the Admin level',
        { required: 'admin', type: 'public', ...(a.admin ? { rowFilter: true } : {}) },
      );
    const on = (
      await this.db
        .select({ on: projects.dashboardEmbedding })
        .from(projects)
        .where(eq(projects.id, a.projectId))
        .then(first)
    )?.on;
    if (!on)
      throw forbidden(
        `public shares are off in this project: an Admin turns them on with PUT /projects/${a.projectId} { "dashboardEmbedding": true }`,
        { setting: 'dashboardEmbedding', value: false },
      );
  }

  /**
   * Invites the named users who are not members yet, as plain members, through the members
   * service (plan limit `users` → 402; the invitation e-mail when `sendemail`). Only an Admin
   * or User Admin may.
   */
  private async inviteNonMembers(
    a: ProjectActor,
    users: string[],
    sendemail: boolean,
  ): Promise<InviteResult[]> {
    const { projectUsers } = tablesOf(this.db);
    if (!users.length) return [];
    const known = new Set(
      (
        await this.db
          .select({ email: projectUsers.email })
          .from(projectUsers)
          .where(and(eq(projectUsers.projectId, a.projectId), inArray(projectUsers.email, users)))
      ).map((r) => r.email),
    );
    const strangers = users.filter((u) => !known.has(u));
    if (!strangers.length) return [];
    if (!a.admin && !a.useradmin)
      throw forbidden(
        `${strangers.join(', ')} ${strangers.length === 1 ? 'is not a member' : 'are not members'} of this project; only an Admin or User Admin may invite them by sharing`,
        { users: strangers, required: 'useradmin' },
      );
    return this.deps.members.invite(
      a,
      strangers.map((id) => ({ id, sendemail })),
    );
  }

  // ---- what a public share computes (public-pin.ts) ----

  /**
   * The rights a public share is computed with: its sharing Admin's, while they are an Admin
   * without a row filter and what it computes holds to its pin; otherwise the one 404.
   */
  private async servedAs(hit: {
    projectId: string;
    dashboard: string;
    sharedBy: string;
    pinned: Pin | null;
  }): Promise<ProjectActor> {
    let actor: ProjectActor;
    try {
      actor = await this.deps.actorOf(hit.sharedBy, hit.projectId);
    } catch (err) {
      // No longer a member, revoked, or the project under maintenance.
      if (err instanceof EngineError) throw noSuchShare();
      throw err;
    }
    if (!publishes(actor) || !(await this.pinHolds(actor, hit.dashboard, hit.pinned)))
      throw noSuchShare();
    return actor;
  }

  private pin(s: ModelScope, dash: ObjectRow): Pin {
    return pinOf(computedObjects(s.index, dash));
  }

  /** Whether what the share computes now is what was pinned, or was changed only by publishers. */
  private async pinHolds(
    actor: ProjectActor,
    dashboard: string,
    pin: Pin | null,
  ): Promise<boolean> {
    if (!pin) return false; // public shares made before pins: an Admin changes them to serve again
    const index = (await this.deps.objects.scope(actor)).index;
    const dash = index.byIdent.get(dashboard);
    if (!dash) return false;
    const known = new Map<string, boolean>();
    const isPublisher = async (email: string) => {
      let ok = known.get(email);
      if (ok === undefined) {
        try {
          ok = publishes(await this.deps.actorOf(email, actor.projectId));
        } catch (err) {
          if (!(err instanceof EngineError)) throw err;
          ok = false;
        }
        known.set(email, ok);
      }
      return ok;
    };
    return pinHolds(
      this.deps.model,
      actor.projectId,
      pin,
      computedObjects(index, dash),
      isPublisher,
    );
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

  publicUrl(token: string): string {
    return `${this.deps.siteUrl()}${SHARE_PATH}/${token}`;
  }

  /** E-mails each user the link to the dashboard's page; a failed send is reported, not thrown. */
  private async notify(a: ProjectActor, dash: ObjectRow, users: string[]): Promise<Notified[]> {
    const { projects } = tablesOf(this.db);
    const site = this.deps.siteUrl();
    const label =
      (
        await this.db
          .select({ label: projects.label })
          .from(projects)
          .where(eq(projects.id, a.projectId))
          .then(first)
      )?.label ?? a.projectId;
    const dashboardUrl = `${site}${apiHref(dashboardPath(a.projectId, dash.ident))}`;
    return Promise.all(
      users.map(async (to): Promise<Notified> => {
        try {
          const msg = shareNoticeMessage({
            to,
            sharer: a.email,
            projectId: a.projectId,
            projectLabel: label,
            dashboardName: dash.name,
            dashboardUrl,
            loginUrl: `${site}/auth/login`,
          });
          await this.deps.mailer.send({ to, ...msg });
          return { id: to, emailSent: true };
        } catch (err) {
          return { id: to, emailSent: false, emailError: (err as Error).message };
        }
      }),
    );
  }
}

/** Where public shares are served on the site. */
export const SHARE_PATH = '/share';

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
