// Project users: invite, list, rights and roles, revoke, remove.
import type { Member } from '../../engine/users/members.js';
import { pagingSchema, parseInput } from '../../engine/validate.js';
import { enc, link, paging, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

const userPath = (projectId: string, email: string) =>
  `${projectPath(projectId)}/users/${enc(email)}`;
const withLinks = (projectId: string, m: Member) => ({
  ...m,
  link: [link('self', userPath(projectId, m.id), { id: m.id })],
});

export const userRoutes: RouteDef[] = [
  {
    group: 'Users',
    path: '/projects/:project/users',
    ops: {
      GET: {
        access: 'useradmin',
        description: 'Members with their levels, roles and row filters (`limit`/`offset`).',
        handler: async ({ engine, actor, query }) => {
          const page = parseInput(pagingSchema, query, 'paging');
          const { items, total } = await engine.members.list(actor, page);
          return {
            title: 'Users',
            body: {
              users: items.map((m) => withLinks(actor.projectId, m)),
              paging: paging(`${projectPath(actor.projectId)}/users`, page, total),
              link: [link('project', projectPath(actor.projectId))],
            },
            tabular: items.map((m) => ({ ...m, roles: m.roles.join(';') })),
            filename: 'users',
          };
        },
      },
      POST: {
        access: 'useradmin',
        description:
          'Invite one user or an array (id, active, admin, mdadmin, useradmin, roles, filter, sendemail).',
        handler: async ({ engine, actor, body }) => {
          const results = await engine.members.invite(actor, body);
          return {
            title: 'Invitation',
            body: {
              users: results.map((r) => ({
                ...r,
                link: [link('user', userPath(actor.projectId, r.id), { id: r.id })],
              })),
            },
          };
        },
      },
    },
  },
  {
    group: 'Users',
    path: '/projects/:project/users/:userId',
    ops: {
      GET: {
        access: 'useradmin',
        description: "A member's rights and roles.",
        handler: async ({ engine, actor, params }) => {
          const m = await engine.members.get(actor, params.userId!);
          return { title: `User ${m.id}`, body: { user: withLinks(actor.projectId, m) } };
        },
      },
      PUT: {
        access: 'useradmin',
        description:
          'Change active, admin, mdadmin, useradmin, roles or filter; active=false revokes.',
        handler: async ({ engine, actor, params, body }) => {
          const m = await engine.members.update(actor, params.userId!, body);
          return { title: `User ${m.id}`, body: { user: withLinks(actor.projectId, m) } };
        },
      },
      DELETE: {
        access: 'useradmin',
        description: 'Remove the member from the project.',
        handler: async ({ engine, actor, params }) => {
          await engine.members.remove(actor, params.userId!);
          return { status: 204 };
        },
      },
    },
  },
];
