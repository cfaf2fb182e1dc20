// The SQL API's connection details for a member, and their own SQL password (docs/sql.md).
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

export const sqlRoutes: RouteDef[] = [
  {
    group: 'Projects',
    path: '/projects/:project/sql',
    ops: {
      GET: {
        access: 'member',
        description:
          'How you connect a PostgreSQL client to this project: { enabled, host, port, database, user, tls, passwords: { allowed, set } }.',
        handler: async ({ engine, actor }) => ({
          title: 'SQL API connection',
          body: {
            sql: await engine.sqlPasswords.connection(actor),
            link: [
              link('project', projectPath(actor.projectId)),
              link('password', `${projectPath(actor.projectId)}/sql/password`),
            ],
          },
        }),
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/sql/password',
    ops: {
      POST: {
        access: 'member',
        description:
          'Create your SQL password for this project (replacing yours), when an Admin allows SQL passwords: 201 { password }, shown once.',
        handler: async ({ engine, actor }) => ({
          status: 201,
          title: 'SQL password',
          body: {
            password: await engine.sqlPasswords.create(actor),
            link: [link('sql', `${projectPath(actor.projectId)}/sql`)],
          },
          headers: { 'Cache-Control': 'no-store' },
        }),
      },
      DELETE: {
        access: 'member',
        description: 'Delete your SQL password for this project: 204.',
        handler: async ({ engine, actor }) => {
          await engine.sqlPasswords.remove(actor);
          return { status: 204 };
        },
      },
    },
  },
];
