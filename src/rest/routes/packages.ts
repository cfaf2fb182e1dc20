// Data packages: prebuilt datasets (calendar, countries) loaded into a project and joined
// to its data.
import { link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { jobStarted } from './jobs.js';

export const packageRoutes: RouteDef[] = [
  {
    group: 'Data packages',
    path: '/projects/:project/store/package',
    ops: {
      GET: {
        access: 'member',
        description:
          'Prebuilt data packages: `{ packages: [{ id, name, description, datasets, parameters }] }`.',
        handler: ({ engine, actor }) => {
          const packages = engine.packages.list(actor);
          return {
            title: 'Data packages',
            body: { packages, link: [link('load', `${projectPath(actor.projectId)}/package/obj`)] },
          };
        },
      },
    },
  },
  {
    group: 'Data packages',
    path: '/projects/:project/package/obj',
    ops: {
      POST: {
        access: 'mdadmin',
        description:
          'Load a package `{ package, parameters?, joinTo?: [{ dataset, column }] }` and reference it from those columns → job link.',
        handler: async ({ engine, actor, body }) =>
          jobStarted(await engine.packages.load(actor, body)),
      },
    },
  },
];
