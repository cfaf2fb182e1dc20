// Projects, limit adherence, activity, announcement and genid.
import { parseActivityTypes } from '../../engine/activity/activity.js';
import type { ProjectDetails } from '../../engine/projects/projects.js';
import { pagingSchema, parseInput } from '../../engine/validate.js';
import {
  addProjectLinks,
  href,
  link,
  paging,
  projectLinks,
  projectPath,
} from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

addProjectLinks((id) => {
  const p = projectPath(id);
  return [
    link('self', p, { id }),
    link('users', `${p}/users`),
    link('limitadherence', `${p}/limitadherence`),
    link('activity', `${p}/activity`),
    link('activity.loads', `${p}/activity/loads`),
    link('announce', `${p}/announce`),
    link('genid', `${p}/genid`),
    link('scache', `${p}/kodiak/scache/obj`),
  ];
});

const detailsReply = (project: ProjectDetails, status = 200) => ({
  status,
  title: `Project ${project.label}`,
  body: { project, link: projectLinks(project.id) },
  headers: status === 201 ? { Location: href(projectPath(project.id)) } : undefined,
});

export const projectRoutes: RouteDef[] = [
  {
    group: 'Projects',
    path: '/user',
    ops: {
      GET: {
        access: 'authenticated',
        description: 'Who you are signed in as (the web application shows it).',
        handler: ({ principal }) => ({
          title: principal.email,
          body: { id: principal.email, link: [link('projects', '/projects')] },
        }),
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects',
    ops: {
      GET: {
        access: 'authenticated',
        description: 'Projects you were invited to (hasAccess is false once access was revoked).',
        handler: async ({ engine, principal }) => {
          const entries = (await engine.projects.list(principal)).map((e) => ({
            ...e,
            href: href(projectPath(e.id)),
          }));
          return {
            title: 'Projects',
            body: {
              projects: Object.fromEntries(entries.map((e) => [e.id, e])),
              link: entries.map((e) =>
                link('project', projectPath(e.id), { id: e.id, title: e.label }),
              ),
            },
            tabular: entries,
            filename: 'projects',
          };
        },
      },
      POST: {
        access: 'authenticated',
        description:
          'Create a project (organization admins); the final id is the requested id plus a suffix.',
        handler: async ({ engine, principal, body }) =>
          detailsReply(await engine.projects.create(principal, body), 201),
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project',
    ops: {
      GET: {
        access: 'member',
        description: 'Project details, your access, plan limits and links to its resources.',
        duringMaintenance: true,
        handler: async ({ engine, actor }) => detailsReply(await engine.projects.details(actor)),
      },
      PUT: {
        access: 'admin',
        description:
          'Change label, desc, maintenance, webdavToken, dashboardEmbedding, embedOrigins or the warehouse binding { credentials, schema } (Admin; the binding is checked on the database).',
        duringMaintenance: true,
        handler: async ({ engine, actor, body }) =>
          detailsReply(await engine.projects.update(actor, body)),
      },
      DELETE: {
        access: 'admin',
        description: 'Delete the project and all its data (Admin).',
        duringMaintenance: true,
        handler: async ({ engine, actor }) => {
          await engine.projects.remove(actor);
          return { status: 204 };
        },
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/limitadherence',
    ops: {
      GET: {
        access: 'member',
        description: 'Each plan limit with its current usage: { name: { limit, value } }.',
        handler: async ({ engine, actor }) => {
          const limits = await engine.projects.adherence(actor);
          return {
            title: 'Limit adherence',
            body: limits,
            tabular: Object.entries(limits).map(([name, v]) => ({ name, ...v })),
            filename: 'limitadherence',
          };
        },
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/activity',
    ops: {
      GET: {
        access: 'member',
        description:
          'Recent events, newest first; `types` filters (comma list), `limit`/`offset` page.',
        handler: async ({ engine, actor, query }) => {
          const types = parseActivityTypes(
            typeof query.types === 'string' ? query.types : undefined,
          );
          const page = parseInput(pagingSchema, query, 'paging');
          const { items, total } = await engine.activity.list(actor, { types, ...page });
          const path = `${projectPath(actor.projectId)}/activity`;
          const pages = paging(path, page, total);
          // The next page must keep the filter, or it pages through unfiltered events.
          if (pages.next && types) pages.next += `&types=${encodeURIComponent(types.join(','))}`;
          return {
            title: 'Activity',
            body: {
              activity: items,
              paging: pages,
              link: [link('project', projectPath(actor.projectId))],
            },
            tabular: items,
            filename: 'activity',
          };
        },
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/activity/loads',
    ops: {
      GET: {
        access: 'member',
        description: 'Data load events; `latest=1` keeps the latest load of each dataset.',
        handler: async ({ engine, actor, query }) => {
          const latest = query.latest === '1' || query.latest === 'true';
          const items = await engine.activity.loads(actor, { latest });
          return {
            title: latest ? 'Latest data loads' : 'Data loads',
            body: {
              loads: items,
              link: [link('activity', `${projectPath(actor.projectId)}/activity`)],
            },
            tabular: items,
            filename: 'loads',
          };
        },
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/announce',
    ops: {
      GET: {
        access: 'member',
        description:
          'The project announcement ({ title, message, startDate, endDate, current }) or null.',
        handler: async ({ engine, actor }) => ({
          title: 'Announcement',
          body: {
            announcement: await engine.projects.getAnnouncement(actor),
            link: [link('project', projectPath(actor.projectId))],
          },
        }),
      },
      PUT: {
        access: 'useradmin',
        description:
          'Set the announcement (Admin or User Admin); empty title and message clear it.',
        handler: async ({ engine, actor, body }) => ({
          title: 'Announcement',
          body: {
            announcement: await engine.projects.setAnnouncement(actor, body),
            link: [link('project', projectPath(actor.projectId))],
          },
        }),
      },
    },
  },
  {
    group: 'Projects',
    path: '/projects/:project/genid',
    ops: {
      GET: {
        access: 'member',
        description: 'A new unique id (20 lowercase letters and digits).',
        handler: ({ engine }) => ({ title: 'Generated id', body: { id: engine.genid() } }),
      },
    },
  },
];
