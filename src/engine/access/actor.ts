// Who is calling, and with which rights in a project. Resolved once per request by the
// front door, then checked again by every engine operation that needs a level.
import { and, eq, sql } from 'drizzle-orm';
import { prepared, type Db, tablesOf } from '../db/index.js';
import { forbidden, unauthenticated } from '../errors.js';

/** An authenticated identity, before any project is involved. */
export interface Principal {
  email: string;
}

export type Level = 'member' | 'useradmin' | 'mdadmin' | 'admin';

export const LEVEL_TITLES: Record<Level, string> = {
  member: 'project user',
  useradmin: 'User Admin',
  mdadmin: 'MD Admin',
  admin: 'Admin',
};

export interface ProjectActor extends Principal {
  projectId: string;
  admin: boolean;
  mdadmin: boolean;
  useradmin: boolean;
  roles: string[];
  /** Row-level data filter (an AQL condition) applied to everything this user reads. */
  filter: string | null;
  /** Positions of `filter`'s references written by title (shown by title, aql/ref-rewrite.ts). */
  filterByTitle?: number[] | null;
  maintenance: boolean;
}

export function hasLevel(a: ProjectActor, level: Level): boolean {
  if (a.admin) return true;
  if (level === 'member') return true;
  if (level === 'useradmin') return a.useradmin;
  if (level === 'mdadmin') return a.mdadmin;
  return false;
}

export function requireLevel(a: ProjectActor, level: Level): void {
  if (!hasLevel(a, level)) {
    throw forbidden(
      `this operation needs the ${LEVEL_TITLES[level]} permission level in project ${a.projectId}`,
      {
        project: a.projectId,
        required: level,
      },
    );
  }
}

export interface ResolveOptions {
  /** Admins may still read and change the project itself while it is under maintenance. */
  adminDuringMaintenance?: boolean;
  /** Work already under way (a running job) finishes under maintenance: rights only. */
  ignoreMaintenance?: boolean;
}

// On every project request: built once (see prepared()).
const lookup = prepared('actor', (db) => {
  const { projectUsers, projects } = tablesOf(db);
  return db
    .select({
      active: projectUsers.active,
      admin: projectUsers.admin,
      mdadmin: projectUsers.mdadmin,
      useradmin: projectUsers.useradmin,
      roles: projectUsers.roles,
      filter: projectUsers.filter,
      filterByTitle: projectUsers.filterByTitle,
      maintenance: projects.maintenance,
    })
    .from(projectUsers)
    .innerJoin(projects, eq(projects.id, projectUsers.projectId))
    .where(
      and(
        eq(projectUsers.projectId, sql.placeholder('projectId')),
        eq(projectUsers.email, sql.placeholder('email')),
      ),
    )
    .limit(1);
});

export async function resolveActor(
  db: Db,
  principal: Principal,
  projectId: string,
  opts: ResolveOptions = {},
): Promise<ProjectActor> {
  const row = (await lookup(db, { projectId, email: principal.email }))[0];
  // Unknown project and not invited look the same: existence is not revealed to outsiders.
  if (!row || !row.active) {
    throw unauthenticated(
      `no access to project "${projectId}": it does not exist or you were not invited to it`,
      {
        project: projectId,
      },
    );
  }
  const actor: ProjectActor = { email: principal.email, projectId, ...row };
  if (row.maintenance && !opts.ignoreMaintenance && !(opts.adminDuringMaintenance && row.admin)) {
    throw forbidden(`project "${projectId}" is under maintenance; try again later`, {
      project: projectId,
      maintenance: true,
    });
  }
  return actor;
}
