// Who may share a dashboard, change or stop its share, and make it public (SHARING.md): the
// `s` position of the dashboard's ACL, and for a public share the Admin level without a row
// filter while the project's dashboardEmbedding is on.
import { eq } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { first, tablesOf, type Db } from '../db/index.js';
import { forbidden, notFound } from '../errors.js';
import type { ModelScope } from '../model/scope.js';
import type { ObjectRow } from '../model/store.js';
import { publishes } from './public-pin.js';

/** The dashboard as the caller sees it by their roles; hidden and missing read the same. */
export function dashboardOf(s: ModelScope, ident: string): ObjectRow {
  const row = s.get(ident);
  if (!row || row.type !== 'dashboard')
    throw notFound(`dashboard "${ident}" not found`, { dashboard: ident });
  return row;
}

export function mayShare(s: ModelScope, dash: ObjectRow): void {
  if (!s.allows(dash, 's'))
    throw forbidden(
      `you may not share dashboard "${dash.ident}": sharing needs the s (share) position of its acl`,
      { dashboard: dash.ident, needs: 's' },
    );
}

/** Changing or stopping: `s` on the dashboard; a public share, the Admin level too. */
export function mayChange(
  a: ProjectActor,
  s: ModelScope,
  dash: ObjectRow,
  row: { type: string },
): void {
  mayShare(s, dash);
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
export async function mayPublish(db: Db, a: ProjectActor): Promise<void> {
  const { projects } = tablesOf(db);
  if (!publishes(a))
    throw forbidden(
      a.admin
        ? 'a public share is computed without row filter: making or changing one needs an Admin without a row filter'
        : 'a public share needs the Admin level',
      { required: 'admin', type: 'public', ...(a.admin ? { rowFilter: true } : {}) },
    );
  const on = (
    await db
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
