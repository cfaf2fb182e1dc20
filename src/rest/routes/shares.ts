// Dashboard shares (SHARING.md "Shares"): pmd/share and pmd/share/{dashboardId}. Every member
// reaches these routes; the engine decides (the `s` position of the dashboard's ACL, the Admin
// level for public shares, the project's dashboardEmbedding).
import { dashboardPath, sharePath } from '../../contract/urls.js';
import type { Share, ShareChange } from '../../contract/dashboards.js';
import { enc, href, link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

export { sharePath };

function shareLinks(projectId: string, s: Share) {
  return [
    link('self', sharePath(projectId, s.dashboard), { id: s.dashboard, title: s.name }),
    link('object.dashboard', `${projectPath(projectId)}/pmd/obj/${enc(s.dashboard)}`, {
      id: s.dashboard,
      title: s.name,
    }),
    link('dashboard', dashboardPath(projectId, s.dashboard), { id: s.dashboard, title: s.name }),
  ];
}

/** The share record: `{ dashboard, name, type, users, emailNotif, url?, createdBy, created, updatedBy, updated, link }`. */
const record = (projectId: string, s: Share) => ({ ...s, link: shareLinks(projectId, s) });

function changeReply(projectId: string, c: ShareChange, status: number) {
  return {
    status,
    title: `Share of ${c.share.name}`,
    body: {
      share: record(projectId, c.share),
      // Always lists, empty when nobody was invited or e-mailed: `.invited[]` never fails.
      invited: c.invited,
      notified: c.notified,
    } satisfies ShareChange,
    headers:
      status === 201 ? { Location: href(sharePath(projectId, c.share.dashboard)) } : undefined,
  };
}

export const shareRoutes: RouteDef[] = [
  {
    group: 'Sharing and export',
    path: '/projects/:project/pmd/share',
    ops: {
      GET: {
        access: 'member',
        description:
          "The project's dashboard shares you can see (`url` of a public one only for Admins without a row filter).",
        handler: async ({ engine, actor }) => {
          const list = await engine.shares.list(actor);
          return {
            title: 'Shares',
            body: {
              shares: list.map((s) => record(actor.projectId, s)),
              link: list.map((s) =>
                link('share', sharePath(actor.projectId, s.dashboard), {
                  id: s.dashboard,
                  title: s.name,
                }),
              ),
            },
            tabular: list.map(({ users, ...s }) => ({ ...s, users: users.join(' ') })),
            filename: 'shares',
          };
        },
      },
      POST: {
        access: 'member',
        description:
          '`{ type: "private"|"public", object: <dashboard>, users?: [e-mail], emailNotif? }` → 201 `{ share, invited, notified }`. Needs `s` on the dashboard; `public` needs an Admin without a row filter and the project\'s `dashboardEmbedding`; naming non-members invites them (Admin or User Admin).',
        handler: async ({ engine, actor, body }) =>
          changeReply(actor.projectId, await engine.shares.create(actor, body), 201),
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/pmd/share/:dashboardId',
    ops: {
      GET: {
        access: 'member',
        description: 'The share of one dashboard.',
        handler: async ({ engine, actor, params }) => {
          const s = await engine.shares.get(actor, params.dashboardId!);
          return {
            title: `Share of ${s.name}`,
            body: { share: record(actor.projectId, s) },
          };
        },
      },
      PUT: {
        access: 'member',
        description:
          'Change `users`, `type` or `emailNotif` (same rules as creating; public → private ends the URL; new users are e-mailed when `emailNotif`).',
        handler: async ({ engine, actor, params, body }) =>
          changeReply(
            actor.projectId,
            await engine.shares.update(actor, params.dashboardId!, body),
            200,
          ),
      },
      DELETE: {
        access: 'member',
        description: 'Stop sharing the dashboard (a public URL answers 404 at once) → 204.',
        handler: async ({ engine, actor, params }) => {
          await engine.shares.stop(actor, params.dashboardId!);
          return { status: 204 };
        },
      },
    },
  },
];
