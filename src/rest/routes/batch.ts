// Batch access (SHARING.md "Batch access"): one role's access string on many objects, all or
// nothing. engine.objects.setRoleAcl checks everything (the `a` position on each object);
// this file only translates HTTP and adds links.
import { enc, link, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

const objectLink = (projectId: string, o: { ident: string; type: string; name: string }) =>
  link(`object.${o.type}`, `${projectPath(projectId)}/pmd/obj/${enc(o.ident)}`, {
    id: o.ident,
    title: o.name,
  });

export const batchRoutes: RouteDef[] = [
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/obj/batch',
    ops: {
      POST: {
        access: 'member',
        description:
          "Set one role's access on many objects `{ userrole, acl, objects: [ident] }` (`acl`: five `rwdsa` positions or `-`, null removes the entry; ≤ 1000 objects, each needing `a`; all or nothing) → `{ objects: [{ ident, acl }] }`.",
        handler: async ({ engine, actor, body }) => {
          const p = actor.projectId;
          const done = await engine.objects.setRoleAcl(actor, body);
          return {
            title: 'Access changed',
            body: {
              objects: done.map((o) => ({ ident: o.ident, acl: o.acl, link: [objectLink(p, o)] })),
              link: done.map((o) => objectLink(p, o)),
            },
          };
        },
      },
    },
  },
];
