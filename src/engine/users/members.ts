// Project members and their rights. Rules: only Admins and User Admins manage members; a
// User Admin grants and touches nothing above their own level; nobody changes their own
// rights (they may leave the project); a project always keeps an active Admin; the plan's
// user limit holds. A batch is all or nothing.
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { InviteResult } from '../../contract/dashboards.js';
import type { ProjectMember } from '../../contract/users.js';
import { requireLevel, type ProjectActor } from '../access/actor.js';
import type { ActivityLog } from '../activity/activity.js';
import { type Db, first, tx, tablesOf, type Tables } from '../db/index.js';
import { membersLock } from '../db/lock-names.js';
import { conflict, forbidden, invalid, notFound } from '../errors.js';
import { nowIso } from '../ids.js';
import type { Limits } from '../limits/limits.js';
import { invitationMessage, type InvitationSignIn } from '../mail/invitation.js';
import type { Mailer } from '../mail/mailer.js';
import { normalizeEmail } from '../orgs/orgs.js';
import { parseInput, zBool } from '../validate.js';
import {
  structuralFilterCheck,
  verbatimFilterRefs,
  type FilterRefs,
  type RowFilterValidator,
} from './row-filter.js';

const ROLE_ID = z.string().min(1).max(200);
const rightsFields = {
  active: zBool.optional(),
  admin: zBool.optional(),
  mdadmin: zBool.optional(),
  useradmin: zBool.optional(),
  roles: z.array(ROLE_ID).max(100).optional(),
  filter: z.union([z.string(), z.null()]).optional(),
};
const inviteSchema = z
  .object({ id: z.string().min(3), ...rightsFields, sendemail: zBool.optional() })
  .strict();
const inviteBodySchema = z.union([inviteSchema, z.array(inviteSchema).min(1).max(1000)]);
const updateSchema = z.object({ id: z.string().optional(), ...rightsFields }).strict();

type RightsInput = z.infer<typeof updateSchema>;
const LEVEL_FLAGS = ['admin', 'mdadmin', 'useradmin'] as const;
const FLAG_TITLES = { admin: 'Admin', mdadmin: 'MD Admin', useradmin: 'User Admin' } as const;

/** A member as the API lists them. */
export type Member = ProjectMember;

export type { InviteResult };

type Row = Tables['projectUsers']['$inferSelect'];
type Rights = Pick<
  Row,
  'active' | 'admin' | 'mdadmin' | 'useradmin' | 'roles' | 'filter' | 'filterByTitle'
>;

export class Members {
  private validateFilter: RowFilterValidator = structuralFilterCheck;
  private filterRefs: FilterRefs = verbatimFilterRefs;

  constructor(
    private readonly db: Db,
    private readonly limits: Limits,
    private readonly activity: ActivityLog,
    private readonly mailer: Mailer,
    private readonly siteUrl: string,
    /** How the invitation says to sign in (and the one-time link to set a password). */
    private readonly signInFor: (email: string, next: string) => Promise<InvitationSignIn>,
  ) {}

  /** The AQL compiler replaces the structural check with a full one. */
  setFilterValidator(v: RowFilterValidator): void {
    this.validateFilter = v;
  }

  /** The AQL compiler stores filters' references as identifiers and shows them by title. */
  setFilterRefs(refs: FilterRefs): void {
    this.filterRefs = refs;
  }

  /** A member's filter as shown: references written by title read with the current titles. */
  async showFilter(
    projectId: string,
    r: Pick<Row, 'filter' | 'filterByTitle'>,
  ): Promise<string | null> {
    return r.filter === null ? null : this.filterRefs.show(r.filter, r.filterByTitle, projectId);
  }

  /** Every member's filter as stored, for start-up migration (aql/saved-refs.ts). */
  async allFilters(): Promise<
    Array<Pick<Row, 'projectId' | 'email' | 'filter' | 'filterByTitle'>>
  > {
    const { projectUsers } = tablesOf(this.db);
    return this.db
      .select({
        projectId: projectUsers.projectId,
        email: projectUsers.email,
        filter: projectUsers.filter,
        filterByTitle: projectUsers.filterByTitle,
      })
      .from(projectUsers)
      .where(isNotNull(projectUsers.filter));
  }

  /** Rewrites a stored filter in place (same meaning; no event, no `updated` change). */
  async restoreFilter(
    projectId: string,
    email: string,
    filter: string,
    byTitle: number[],
  ): Promise<void> {
    const { projectUsers } = tablesOf(this.db);
    await this.db
      .update(projectUsers)
      .set({ filter, filterByTitle: byTitle.length ? byTitle : null })
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.email, email)));
  }

  private async toMember(projectId: string, r: Row): Promise<Member> {
    return { ...toMember(r), filter: await this.showFilter(projectId, r) };
  }

  /** What an activity event says the member's rights are: the filter as shown. */
  private async detail(projectId: string, next: Rights) {
    const { filterByTitle: _positions, ...rest } = next;
    return { ...rest, filter: await this.showFilter(projectId, next) };
  }

  async countActive(projectId: string): Promise<number> {
    const { projectUsers } = tablesOf(this.db);
    return (
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(projectUsers)
          .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.active, true)))
          .then(first)
      )?.n ?? 0
    );
  }

  /** Every distinct row-level filter of the project's members (active or not). */
  async rowFilters(projectId: string): Promise<string[]> {
    const { projectUsers } = tablesOf(this.db);
    return (
      await this.db
        .selectDistinct({ filter: projectUsers.filter })
        .from(projectUsers)
        .where(and(eq(projectUsers.projectId, projectId), isNotNull(projectUsers.filter)))
    ).map((r) => r.filter!);
  }

  /** How many members hold one of these row-level filters. */
  async countWithFilters(projectId: string, filters: string[]): Promise<number> {
    const { projectUsers } = tablesOf(this.db);
    if (!filters.length) return 0;
    return (
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(projectUsers)
          .where(and(eq(projectUsers.projectId, projectId), inArray(projectUsers.filter, filters)))
          .then(first)
      )?.n ?? 0
    );
  }

  async list(
    a: ProjectActor,
    paging: { limit: number; offset: number },
  ): Promise<{ items: Member[]; total: number }> {
    const { projectUsers } = tablesOf(this.db);
    requireLevel(a, 'useradmin');
    const where = eq(projectUsers.projectId, a.projectId);
    const rows = await this.db
      .select()
      .from(projectUsers)
      .where(where)
      .orderBy(projectUsers.email)
      .limit(paging.limit)
      .offset(paging.offset);
    const total =
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(projectUsers)
          .where(where)
          .then(first)
      )?.n ?? 0;
    const items: Member[] = [];
    for (const r of rows) items.push(await this.toMember(a.projectId, r));
    return { items, total };
  }

  async get(a: ProjectActor, userId: string): Promise<Member> {
    requireLevel(a, 'useradmin');
    return this.toMember(a.projectId, await this.row(a.projectId, userId));
  }

  async invite(a: ProjectActor, body: unknown): Promise<InviteResult[]> {
    const { users, projectUsers } = tablesOf(this.db);
    requireLevel(a, 'useradmin');
    const parsed = parseInput(inviteBodySchema, body, 'invitation');
    const items = Array.isArray(parsed) ? parsed : [parsed];
    const seen = new Set<string>();
    const plans: Array<{
      email: string;
      existing: Row | undefined;
      next: Rights;
      sendemail: boolean;
    }> = [];
    for (const [i, item] of items.entries()) {
      const email = normalizeEmail(item.id);
      if (seen.has(email))
        throw invalid(`user "${email}" appears twice in the invitation`, { index: i, id: email });
      seen.add(email);
      const existing = await this.findRow(a.projectId, email);
      const next = await this.apply(
        a,
        existing,
        { ...item, active: item.active ?? (existing ? undefined : true) },
        email,
      );
      plans.push({ email, existing, next, sendemail: item.sendemail ?? false });
    }
    const now = nowIso();
    await tx(
      this.db,
      async () => {
        const added = plans.filter((p) => p.next.active && !p.existing?.active).length;
        if (added > 0) await this.limits.check(a.projectId, 'users', added);
        for (const p of plans) {
          await this.db
            .insert(users)
            .values({ email: p.email, created: now })
            .onConflictDoNothing();
          await this.db
            .insert(projectUsers)
            .values({
              ...p.next,
              projectId: a.projectId,
              email: p.email,
              invitedBy: p.existing?.invitedBy ?? a.email,
              created: p.existing?.created ?? now,
              updated: now,
            })
            .onConflictDoUpdate({
              target: [projectUsers.projectId, projectUsers.email],
              set: { ...p.next, updated: now },
            });
          await this.activity.record(a.projectId, 'user_action', {
            user: a.email,
            object: p.email,
            message: memberEventMessage(p.email, p.existing, p.next),
            detail: {
              action: memberAction(p.existing, p.next),
              target: p.email,
              ...(await this.detail(a.projectId, p.next)),
            },
          });
        }
        await this.assertAdminRemains(a.projectId);
      },
      { lock: [membersLock(a.projectId)] },
    );
    const results: InviteResult[] = [];
    for (const p of plans) {
      const r: InviteResult = { id: p.email, status: p.existing ? 'updated' : 'invited' };
      if (p.sendemail) Object.assign(r, await this.sendInvitation(a, p.email, p.next));
      results.push(r);
    }
    return results;
  }

  async update(a: ProjectActor, userId: string, body: unknown): Promise<Member> {
    const { projectUsers } = tablesOf(this.db);
    requireLevel(a, 'useradmin');
    const input = parseInput(updateSchema, body, 'user rights');
    const existing = await this.row(a.projectId, userId);
    if (input.id !== undefined && normalizeEmail(input.id) !== existing.email) {
      throw invalid(
        `body id "${input.id}" does not match the user in the path "${existing.email}"`,
      );
    }
    const next = await this.apply(a, existing, input, existing.email);
    await tx(
      this.db,
      async () => {
        if (next.active && !existing.active) await this.limits.check(a.projectId, 'users', 1);
        await this.db
          .update(projectUsers)
          .set({ ...next, updated: nowIso() })
          .where(
            and(eq(projectUsers.projectId, a.projectId), eq(projectUsers.email, existing.email)),
          );
        await this.activity.record(a.projectId, 'user_action', {
          user: a.email,
          object: existing.email,
          message: memberEventMessage(existing.email, existing, next),
          detail: {
            action: memberAction(existing, next),
            target: existing.email,
            ...(await this.detail(a.projectId, next)),
          },
        });
        await this.assertAdminRemains(a.projectId);
      },
      { lock: [membersLock(a.projectId)] },
    );
    return this.toMember(a.projectId, await this.row(a.projectId, existing.email));
  }

  async remove(a: ProjectActor, userId: string): Promise<void> {
    const { projectUsers } = tablesOf(this.db);
    requireLevel(a, 'useradmin');
    const existing = await this.row(a.projectId, userId);
    this.assertMayTouch(a, existing);
    await tx(
      this.db,
      async () => {
        await this.db
          .delete(projectUsers)
          .where(
            and(eq(projectUsers.projectId, a.projectId), eq(projectUsers.email, existing.email)),
          );
        await this.activity.record(a.projectId, 'user_action', {
          user: a.email,
          object: existing.email,
          message: `removed ${existing.email} from the project`,
          detail: { action: 'remove', target: existing.email },
        });
        await this.assertAdminRemains(a.projectId);
      },
      { lock: [membersLock(a.projectId)] },
    );
  }

  private async findRow(projectId: string, email: string): Promise<Row | undefined> {
    const { projectUsers } = tablesOf(this.db);
    return this.db
      .select()
      .from(projectUsers)
      .where(and(eq(projectUsers.projectId, projectId), eq(projectUsers.email, email)))
      .then(first);
  }

  private async row(projectId: string, userId: string): Promise<Row> {
    // The id arrives decoded (HTTP path params are decoded once by the router); decoding again
    // would turn `x%41@…` into `xa@…`, another user.
    const email = normalizeEmail(userId);
    const row = await this.findRow(projectId, email);
    if (!row)
      throw notFound(`user "${email}" is not a member of project "${projectId}"`, { id: email });
    return row;
  }

  /** A User Admin may not change someone who holds a level they lack (e.g. demote an Admin). */
  private assertMayTouch(a: ProjectActor, target: Row): void {
    if (a.admin) return;
    const above = LEVEL_FLAGS.filter((f) => target[f] && !a[f]);
    if (above.length) {
      throw forbidden(
        `you cannot change ${target.email}: they hold ${above.map((f) => FLAG_TITLES[f]).join(', ')}, which you do not`,
        {
          id: target.email,
          levels: above,
        },
      );
    }
  }

  /** The member's state after applying `input`, with every rule checked. */
  private async apply(
    a: ProjectActor,
    existing: Row | undefined,
    input: RightsInput,
    email: string,
  ): Promise<Rights> {
    if (existing) this.assertMayTouch(a, existing);
    // Checked as written (errors point into the caller's text), stored with identifiers.
    if (input.filter !== undefined && input.filter !== null)
      await this.validateFilter(input.filter, a.projectId);
    const filter = await this.storedFilter(a.projectId, existing, input.filter);
    const next: Rights = {
      active: input.active ?? existing?.active ?? true,
      admin: input.admin ?? existing?.admin ?? false,
      mdadmin: input.mdadmin ?? existing?.mdadmin ?? false,
      useradmin: input.useradmin ?? existing?.useradmin ?? false,
      roles: input.roles ?? existing?.roles ?? [],
      ...filter,
    };
    if (existing && existing.email === normalizeEmail(a.email)) assertOwnRightsKept(existing, next);
    if (!a.admin) {
      const granted = LEVEL_FLAGS.filter((f) => next[f] && !existing?.[f] && !a[f]);
      if (granted.length) {
        throw forbidden(
          `a User Admin cannot grant ${granted.map((f) => FLAG_TITLES[f]).join(', ')} without holding it`,
          {
            id: email,
            levels: granted,
          },
        );
      }
    }
    return next;
  }

  /** The filter to store (unchanged when not given; the same text keeps its positions). */
  private async storedFilter(
    projectId: string,
    existing: Row | undefined,
    input: string | null | undefined,
  ): Promise<Pick<Row, 'filter' | 'filterByTitle'>> {
    if (input === undefined)
      return { filter: existing?.filter ?? null, filterByTitle: existing?.filterByTitle ?? null };
    if (input === null) return { filter: null, filterByTitle: null };
    const s = await this.filterRefs.store(input, projectId);
    const kept = existing?.filter === s.filter ? (existing.filterByTitle ?? []) : [];
    const byTitle = [...new Set([...s.byTitle, ...kept])].sort((x, y) => x - y);
    return { filter: s.filter, filterByTitle: byTitle.length ? byTitle : null };
  }

  private async assertAdminRemains(projectId: string): Promise<void> {
    const { projectUsers } = tablesOf(this.db);
    const admins =
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(projectUsers)
          .where(
            and(
              eq(projectUsers.projectId, projectId),
              eq(projectUsers.admin, true),
              eq(projectUsers.active, true),
            ),
          )
          .then(first)
      )?.n ?? 0;
    // Throwing inside the transaction rolls the whole change back.
    if (admins === 0)
      throw conflict('the last Admin of a project cannot be removed, revoked or demoted', {
        project: projectId,
      });
  }

  private async sendInvitation(
    a: ProjectActor,
    email: string,
    rights: { admin: boolean; mdadmin: boolean; useradmin: boolean },
  ) {
    const { projects } = tablesOf(this.db);
    const project = await this.db
      .select({ label: projects.label })
      .from(projects)
      .where(eq(projects.id, a.projectId))
      .then(first);
    // Every link of the mail leads into the app, on the project's page.
    const appProject = `/app/p/${encodeURIComponent(a.projectId)}`;
    const login = new URLSearchParams({ next: appProject, email });
    try {
      const msg = invitationMessage({
        to: email,
        inviter: a.email,
        projectId: a.projectId,
        projectLabel: project?.label ?? a.projectId,
        projectUrl: `${this.siteUrl}${appProject}`,
        loginUrl: `${this.siteUrl}/auth/login?${login.toString()}`,
        signIn: await this.signInFor(email, appProject),
        levels: LEVEL_FLAGS.filter((f) => rights[f]).map((f) => FLAG_TITLES[f]),
      });
      await this.mailer.send({ to: email, ...msg });
      return { emailSent: true };
    } catch (err) {
      return { emailSent: false, emailError: (err as Error).message };
    }
  }
}

const RIGHTS = ['active', 'admin', 'mdadmin', 'useradmin', 'roles', 'filter'] as const;

/**
 * Nobody changes their own rights, not even an Admin: what a member may see is changed by
 * someone else, so no one widens their own access (and no last Admin demotes themselves).
 */
function assertOwnRightsKept(existing: Row, next: Pick<Row, (typeof RIGHTS)[number]>): void {
  const same = (f: (typeof RIGHTS)[number]) =>
    f === 'roles'
      ? [...existing.roles].sort().join('\u0000') === [...next.roles].sort().join('\u0000')
      : existing[f] === next[f];
  const changed = RIGHTS.filter((f) => !same(f));
  if (changed.length)
    throw forbidden(
      `you cannot change your own rights (${changed.join(', ')}); another Admin or User Admin must`,
      { id: existing.email, fields: changed },
    );
}

function memberAction(existing: Row | undefined, next: { active: boolean }): string {
  if (!existing) return 'invite';
  return existing.active && !next.active ? 'revoke' : 'update';
}

function memberEventMessage(
  email: string,
  existing: Row | undefined,
  next: { active: boolean; admin: boolean; mdadmin: boolean; useradmin: boolean },
): string {
  const action = memberAction(existing, next);
  if (action === 'revoke') return `revoked access of ${email}`;
  return `${action === 'invite' ? 'invited' : 'updated'} ${email}${describeRights(next)}`;
}

function describeRights(r: { admin: boolean; mdadmin: boolean; useradmin: boolean }): string {
  const levels = LEVEL_FLAGS.filter((f) => r[f]).map((f) => FLAG_TITLES[f]);
  return levels.length ? ` as ${levels.join(', ')}` : '';
}

function toMember(r: Row): Member {
  return {
    id: r.email,
    active: r.active,
    admin: r.admin,
    mdadmin: r.mdadmin,
    useradmin: r.useradmin,
    roles: r.roles,
    filter: r.filter,
    invitedBy: r.invitedBy,
    created: r.created,
    updated: r.updated,
  };
}
