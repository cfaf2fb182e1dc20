// What a share does for the users it names: invites those who are not members (an Admin or User
// Admin only) and, with emailNotif, e-mails each the link to the dashboard.
import type { Notified } from '../../contract/dashboards.js';
import { and, eq, inArray } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { apiHref, dashboardPath } from '../../contract/urls.js';
import { first, tablesOf, type Db } from '../db/index.js';
import { forbidden } from '../errors.js';
import type { Mailer } from '../mail/mailer.js';
import { shareNoticeMessage } from '../mail/share-notice.js';
import type { ObjectRow } from '../model/store.js';
import type { InviteResult, Members } from '../users/members.js';

export interface ShareUsersDeps {
  db: Db;
  members: Members;
  mailer: Mailer;
  /** The site's address (known once the server listens). */
  siteUrl: () => string;
}

export type { Notified };

/**
 * Invites the named users who are not members yet, as plain members, through the members
 * service (plan limit `users` → 402; the invitation e-mail when `sendemail`). Only an Admin
 * or User Admin may.
 */
export async function inviteNonMembers(
  deps: ShareUsersDeps,
  a: ProjectActor,
  users: string[],
  sendemail: boolean,
): Promise<InviteResult[]> {
  const { projectUsers } = tablesOf(deps.db);
  if (!users.length) return [];
  const known = new Set(
    (
      await deps.db
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
  return deps.members.invite(
    a,
    strangers.map((id) => ({ id, sendemail })),
  );
}

/** E-mails each user the link to the dashboard's page; a failed send is reported, not thrown. */
export async function notify(
  deps: ShareUsersDeps,
  a: ProjectActor,
  dash: ObjectRow,
  users: string[],
): Promise<Notified[]> {
  const { projects } = tablesOf(deps.db);
  const site = deps.siteUrl();
  const label =
    (
      await deps.db
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
        await deps.mailer.send({ to, ...msg });
        return { id: to, emailSent: true };
      } catch (err) {
        return { id: to, emailSent: false, emailError: (err as Error).message };
      }
    }),
  );
}
