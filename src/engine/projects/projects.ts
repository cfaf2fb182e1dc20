// Projects: isolated workspaces. Creating one needs an organization admin; the creator
// becomes its Admin. Deleting one removes its metadata and its data directory.
import fs from 'node:fs';
import path from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { requireLevel, type Principal, type ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { projectCountLock } from '../db/lock-names.js';
import { type Db, first, prepared, storeOf, tx, tablesOf, type Tables } from '../db/index.js';
import type {
  Adherence,
  Announcement,
  AnnouncementView,
  ProjectDetails,
  ProjectListEntry,
  WarehouseBinding,
} from '../../contract/projects.js';
import { forbidden, invalid, notFound } from '../errors.js';
import { nowIso, randomId } from '../ids.js';
import { hashPassword } from '../identity/passwords.js';
import { assertWithin, type Limits } from '../limits/limits.js';
import type { Plans } from '../limits/plans.js';
import type { Orgs } from '../orgs/orgs.js';
import { embedOriginsField, storedEmbedOrigins } from '../sharing/embed-origins.js';
import { zIdent } from '../model/defs.js';
import { parseInput, zBool } from '../validate.js';

export const PROJECT_ID = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** `entity` is explained with the caller's own organizations, the ids it may take. */
const createSchema = (yours: string[]) => {
  const entity = `the organization id (yours: ${yours.join(', ') || 'none'})`;
  return z
    .object({
      id: z
        .string()
        .regex(
          PROJECT_ID,
          'use 1-40 lowercase letters, digits, "-" or "_", starting with a letter or digit',
        ),
      label: z.string().trim().min(1).max(200),
      entity: z.string({ error: entity }).min(1, { error: entity }).optional(),
      desc: z.string().max(5000).default(''),
    })
    .strict();
};

const updateSchema = z
  .object({
    label: z.string().trim().min(1).max(200).optional(),
    desc: z.string().max(5000).optional(),
    maintenance: zBool.optional(),
    webdavToken: z
      .union([z.string().min(12, 'a WebDAV token needs at least 12 characters').max(200), z.null()])
      .optional(),
    /** Public shares of dashboards allowed (SHARING.md). */
    dashboardEmbedding: zBool.optional(),
    /** Members may create SQL API passwords of their own (docs/sql.md); off deletes them. */
    sqlPasswords: zBool.optional(),
    embedOrigins: embedOriginsField.optional(),
    /** A warehouse project's binding (SCALE.md); null makes it embedded again. */
    warehouse: z
      .union([
        z
          .object({
            credentials: zIdent.describe('a credentials object of kind postgres'),
            schema: z.string().min(1).max(63),
          })
          .strict(),
        z.null(),
      ])
      .optional(),
  })
  .strict();

/** Checks a warehouse binding before it is saved, and hears of every change (warehouse/). */
export interface WarehouseBinder {
  check(a: ProjectActor, binding: WarehouseBinding | null): Promise<void>;
  changed(projectId: string): Promise<void>;
}

const dateField = z.union([z.iso.date(), z.iso.datetime({ offset: true }), z.null()]).optional();
const announceSchema = z
  .object({
    title: z.string().max(200).default(''),
    message: z.string().max(10_000).default(''),
    startDate: dateField,
    endDate: dateField,
  })
  .strict()
  .refine((a) => !a.startDate || !a.endDate || Date.parse(a.startDate) <= Date.parse(a.endDate), {
    message: 'endDate is before startDate',
    path: ['endDate'],
  });

export type { Adherence, AnnouncementView, ProjectDetails, ProjectListEntry };

export type ProjectHook = (projectId: string) => void | Promise<void>;

const listProjects = prepared('projects', (db) => {
  const { projects, projectUsers } = tablesOf(db);
  return db
    .select({
      id: projects.id,
      label: projects.label,
      hasAccess: projectUsers.active,
      isAdmin: projectUsers.admin,
      isMdAdmin: sql<boolean>`(${projectUsers.admin} or ${projectUsers.mdadmin})`.mapWith(Boolean),
    })
    .from(projectUsers)
    .innerJoin(projects, eq(projects.id, projectUsers.projectId))
    .where(eq(projectUsers.email, sql.placeholder('email')))
    .orderBy(projects.label, projects.id);
});

/** "Project X was deleted": every process releases what it holds of it. */
const CH_DELETED = 'ursa_project_deleted';

export class Projects {
  private deleteHooks: ProjectHook[] = [];
  /** The caller's row-level filter as shown (references by their current titles). */
  private filterView: (a: ProjectActor) => Promise<string | null> = async (a) => a.filter;

  constructor(
    private readonly db: Db,
    private readonly dataDir: string,
    private readonly orgs: Orgs,
    private readonly plans: Plans,
    private readonly limits: Limits,
    private readonly activity: ActivityLog,
  ) {}

  setFilterView(view: (a: ProjectActor) => Promise<string | null>): void {
    this.filterView = view;
  }

  private warehouse: WarehouseBinder | null = null;

  setWarehouseBinder(binder: WarehouseBinder): void {
    this.warehouse = binder;
  }

  /**
   * Areas holding per-project resources (open files, databases) release them here: first in
   * the process that deletes, and in every other process once the deletion is announced.
   */
  onDelete(hook: ProjectHook): void {
    this.deleteHooks.push(hook);
  }

  /** Runs the delete hooks when any process deletes a project. Returns the way to stop. */
  followDeletes(): Promise<() => void> {
    return storeOf(this.db).signals.listen(CH_DELETED, (projectId) => {
      void this.releaseHere(projectId);
    });
  }

  private async releaseHere(projectId: string): Promise<void> {
    for (const hook of this.deleteHooks)
      await Promise.resolve()
        .then(() => hook(projectId))
        .catch(() => undefined); // released at the latest when this process stops
  }

  /** Every project's id (maintenance sweeps). */
  async allIds(): Promise<string[]> {
    const { projects } = tablesOf(this.db);
    return (await this.db.select({ id: projects.id }).from(projects)).map((r) => r.id);
  }

  dir(projectId: string): string {
    return path.join(this.dataDir, 'projects', projectId);
  }

  async orgOf(projectId: string): Promise<string> {
    const { projects } = tablesOf(this.db);
    const row = await this.db
      .select({ org: projects.orgId })
      .from(projects)
      .where(eq(projects.id, projectId))
      .then(first);
    if (!row) throw notFound(`project "${projectId}" does not exist`);
    return row.org;
  }

  async countInOrg(orgId: string): Promise<number> {
    const { projects } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(projects)
          .where(eq(projects.orgId, orgId))
          .then(first)
      )?.n ?? 0
    );
  }

  // Listing projects is on every client's first request: built once (see prepared()).
  async list(p: Principal): Promise<ProjectListEntry[]> {
    return listProjects(this.db, { email: p.email });
  }

  async create(p: Principal, body: unknown): Promise<ProjectDetails> {
    const { projects, projectUsers } = tablesOf(this.db);
    const yours = await this.orgs.administeredBy(p.email);
    const input = parseInput(createSchema(yours), body, 'project');
    const entity = input.entity ?? this.defaultEntity(yours);
    const org = await this.orgs.get(entity);
    if (!org || !(await this.orgs.isAdmin(org.id, p.email))) {
      throw forbidden(
        `you are not an administrator of organization "${entity}" (yours: ${yours.join(', ') || 'none'})`,
        { entity, yours },
      );
    }
    const id = `${input.id}-${randomId(6)}`;
    const now = nowIso();
    await tx(
      this.db,
      async () => {
        // Checked inside the transaction, under the organization's lock, so two concurrent
        // creates (perhaps in two processes) cannot both pass.
        assertWithin(
          'projects',
          this.plans[org.plan]?.limits.projects ?? 0,
          await this.countInOrg(org.id),
          1,
        );
        await this.db.insert(projects).values({
          id,
          label: input.label,
          description: input.desc,
          orgId: org.id,
          createdBy: p.email,
          created: now,
          updated: now,
        });
        await this.db.insert(projectUsers).values({
          projectId: id,
          email: p.email,
          admin: true,
          invitedBy: p.email,
          created: now,
          updated: now,
        });
        await this.activity.record(id, 'project_action', {
          user: p.email,
          object: id,
          message: `project "${input.label}" created`,
          detail: { action: 'create', entity: org.id },
        });
      },
      { lock: [projectCountLock(org.id)] },
    );
    fs.mkdirSync(this.dir(id), { recursive: true });
    return this.details({ ...this.creatorActor(id, p.email) });
  }

  /** Without `entity`: the caller's one organization; with several, they must choose. */
  private defaultEntity(yours: string[]): string {
    if (yours.length === 1) return yours[0]!;
    if (!yours.length)
      throw forbidden(
        'creating a project needs an organization administrator, and you administer no organization (an operator runs `npm run ursa -- org admin add <org> <email>`)',
        { yours },
      );
    const message = `the organization id (yours: ${yours.join(', ')})`;
    throw invalid(`invalid project: entity: ${message}`, {
      issues: [{ path: 'entity', message }],
      yours,
    });
  }

  private creatorActor(projectId: string, email: string): ProjectActor {
    return {
      email,
      projectId,
      admin: true,
      mdadmin: false,
      useradmin: false,
      roles: [],
      filter: null,
      maintenance: false,
    };
  }

  async details(a: ProjectActor): Promise<ProjectDetails> {
    const { projects } = tablesOf(this.db);
    const row = await this.db
      .select()
      .from(projects)
      .where(eq(projects.id, a.projectId))
      .then(first);
    if (!row) throw notFound(`project "${a.projectId}" does not exist`);
    const org = await this.orgs.get(row.orgId);
    return {
      id: row.id,
      label: row.label,
      desc: row.description,
      entity: row.orgId,
      plan: org?.plan ?? '',
      maintenance: row.maintenance,
      webdavTokenSet: Boolean(row.webdavTokenHash),
      dashboardEmbedding: row.dashboardEmbedding,
      sqlPasswords: row.sqlPasswords,
      embedOrigins: row.embedOrigins ?? [],
      warehouse: row.warehouse ?? null,
      created: row.created,
      updated: row.updated,
      createdBy: row.createdBy,
      access: {
        admin: a.admin,
        mdadmin: a.mdadmin || a.admin,
        useradmin: a.useradmin || a.admin,
        roles: a.roles,
        filter: await this.filterView(a),
      },
      limits: await this.adherence(a),
      announcement: row.announcement ? viewAnnouncement(row.announcement) : null,
    };
  }

  /**
   * Each plan limit with its usage. A member with a row-level filter gets no `datasetRows`
   * usage: it counts every row of the project, also those outside their filter.
   */
  async adherence(a: ProjectActor): Promise<Adherence> {
    const out: Adherence = await this.limits.adherence(a.projectId);
    if (a.filter) out.datasetRows = { ...out.datasetRows, value: null };
    return out;
  }

  async update(a: ProjectActor, body: unknown): Promise<ProjectDetails> {
    const { projects, projectUsers } = tablesOf(this.db);
    requireLevel(a, 'admin');
    const input = parseInput(updateSchema, body, 'project update');
    const changes: Partial<Tables['projects']['$inferInsert']> = { updated: nowIso() };
    if (input.label !== undefined) changes.label = input.label;
    if (input.desc !== undefined) changes.description = input.desc;
    if (input.maintenance !== undefined) changes.maintenance = input.maintenance;
    if (input.dashboardEmbedding !== undefined)
      changes.dashboardEmbedding = input.dashboardEmbedding;
    if (input.sqlPasswords !== undefined) changes.sqlPasswords = input.sqlPasswords;
    if (input.embedOrigins !== undefined)
      changes.embedOrigins = storedEmbedOrigins(input.embedOrigins);
    if (input.warehouse !== undefined) {
      if (!this.warehouse) throw invalid('warehouse projects are not available on this server');
      await this.warehouse.check(a, input.warehouse);
      changes.warehouse = input.warehouse;
    }
    if (input.webdavToken !== undefined) {
      changes.webdavTokenHash =
        input.webdavToken === null ? null : await hashPassword(input.webdavToken);
    }
    const changed = Object.keys(input).map((k) =>
      k === 'webdavToken' ? 'webdavToken (hidden)' : k,
    );
    await tx(this.db, async () => {
      await this.db.update(projects).set(changes).where(eq(projects.id, a.projectId));
      if (input.sqlPasswords === false)
        await this.db
          .update(projectUsers)
          .set({ sqlPasswordHash: null })
          .where(eq(projectUsers.projectId, a.projectId));
      await this.activity.record(a.projectId, 'project_action', {
        user: a.email,
        object: a.projectId,
        message: `project settings changed: ${changed.join(', ') || 'nothing'}`,
        detail: { action: 'update', fields: Object.keys(input) },
      });
    });
    if (input.warehouse !== undefined) await this.warehouse?.changed(a.projectId);
    return this.details({ ...a, maintenance: changes.maintenance ?? a.maintenance });
  }

  async remove(a: ProjectActor): Promise<void> {
    const { projects } = tablesOf(this.db);
    requireLevel(a, 'admin');
    for (const hook of this.deleteHooks) await hook(a.projectId);
    await this.db.delete(projects).where(eq(projects.id, a.projectId));
    // Other processes close their handles on its files (each may have its datasets open).
    await storeOf(this.db).signals.notify(CH_DELETED, a.projectId);
    // Rows first: a crash between the two leaves an orphan folder, never a project without data.
    // Retried: a shared filesystem may briefly keep a file another process is closing.
    fs.rmSync(this.dir(a.projectId), {
      recursive: true,
      force: true,
      maxRetries: 5,
      retryDelay: 200,
    });
  }

  /** A project's label (for messages sent about it), or null when it is gone. */
  async labelOf(projectId: string): Promise<string | null> {
    const { projects } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ label: projects.label })
          .from(projects)
          .where(eq(projects.id, projectId))
          .then(first)
      )?.label ?? null
    );
  }

  async webdavTokenHash(projectId: string): Promise<string | null> {
    const { projects } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ h: projects.webdavTokenHash })
          .from(projects)
          .where(eq(projects.id, projectId))
          .then(first)
      )?.h ?? null
    );
  }

  async getAnnouncement(a: ProjectActor): Promise<AnnouncementView | null> {
    const { projects } = tablesOf(this.db);
    const row = await this.db
      .select({ a: projects.announcement })
      .from(projects)
      .where(eq(projects.id, a.projectId))
      .then(first);
    return row?.a ? viewAnnouncement(row.a) : null;
  }

  async setAnnouncement(a: ProjectActor, body: unknown): Promise<AnnouncementView | null> {
    const { projects } = tablesOf(this.db);
    if (!a.admin && !a.useradmin) requireLevel(a, 'useradmin');
    const input = parseInput(announceSchema, body ?? {}, 'announcement');
    const value: Announcement | null =
      input.title || input.message
        ? {
            title: input.title,
            message: input.message,
            startDate: input.startDate ?? null,
            endDate: input.endDate ?? null,
          }
        : null;
    await tx(this.db, async () => {
      await this.db
        .update(projects)
        .set({ announcement: value, updated: nowIso() })
        .where(and(eq(projects.id, a.projectId)));
      await this.activity.record(a.projectId, 'project_action', {
        user: a.email,
        object: a.projectId,
        message: value
          ? `announcement set: ${value.title || value.message.slice(0, 60)}`
          : 'announcement cleared',
        detail: { action: 'announce', title: value?.title ?? null },
      });
    });
    return value ? viewAnnouncement(value) : null;
  }
}

function viewAnnouncement(a: Announcement, now = Date.now()): AnnouncementView {
  const started = !a.startDate || Date.parse(a.startDate) <= now;
  // A date-only end date includes that whole day.
  const end = a.endDate
    ? Date.parse(a.endDate) + (a.endDate.length === 10 ? 86_400_000 : 0)
    : Infinity;
  return { ...a, current: started && now < end };
}
