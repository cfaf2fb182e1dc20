// The semantic model (spec "Semantic model"): objects, their history, bulk reads, search,
// folders, the LDM and ODM graphs and the model checks. Every rule lives in
// engine.objects; this file only translates HTTP and adds links.
import { objectPath } from '../../contract/urls.js';
import type { ObjectSummary, ObjectView, RevisionInfo } from '../../engine/model/objects.js';
import { z } from 'zod';
import { parseInput, zBool } from '../../engine/validate.js';
import { addProjectLinks, href, type Link, link, paging, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';

const objPath = objectPath;

/** The spec's object link: `rel: object.<type>`, with the object's id and title. */
const objectLink = (projectId: string, o: ObjectSummary): Link =>
  link(`object.${o.type}`, objPath(projectId, o.ident), { id: o.ident, title: o.name });

const withLink = (projectId: string, v: ObjectView) => ({
  ...v,
  link: [objectLink(projectId, v), link('history', `${objPath(projectId, v.ident)}/history`)],
});

const summaries = (projectId: string, list: ObjectSummary[]) =>
  list.map((o) => ({ ...o, link: [objectLink(projectId, o)] }));

/** A row of a CSV/TSV list: nested values as JSON, tags joined. */
const flat = (v: ObjectView) => ({
  ident: v.ident,
  type: v.type,
  name: v.name,
  description: v.description,
  tag: v.tag.join(';'),
  revision: v.revision,
  updated: v.updated,
  updatedBy: v.updatedBy,
});

/** The values route's query: the MCP tool's prefix and limit. */
const valuesQuery = z.object({
  prefix: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

const flag = (v: unknown) => v !== undefined && zBool.safeParse(v).data === true;

const historyReply = (projectId: string, ident: string, history: RevisionInfo[]) =>
  history.map((h) => ({
    ...h,
    link: [link('revision', `${objPath(projectId, ident)}/history/${h.revision}`)],
  }));

addProjectLinks((id) => {
  const p = projectPath(id);
  return [
    link('pmd.obj', `${p}/pmd/obj`),
    link('search', `${p}/app/obj/search`),
    link('graph.ldm', `${p}/pmd/graph/ldm`),
    link('graph.odm', `${p}/pmd/graph/odm`),
  ];
});

export const modelRoutes: RouteDef[] = [
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj',
    ops: {
      GET: {
        access: 'member',
        description:
          'Objects you can read: `rel=object.<type>` (repeatable), `query=` (substring of ident, name, description, tags), `limit`/`offset`.',
        handler: async ({ engine, actor, query }) => {
          const r = await engine.objects.list(actor, query);
          const pages = paging(`${projectPath(actor.projectId)}/pmd/obj`, r, r.total);
          // The next page keeps this page's filters.
          const keep = new URLSearchParams();
          for (const rel of ([] as unknown[]).concat(query.rel ?? []))
            keep.append('rel', String(rel));
          if (typeof query.query === 'string') keep.set('query', query.query);
          if (pages.next && keep.toString()) pages.next += `&${keep.toString()}`;
          return {
            title: 'Model objects',
            body: {
              objects: r.items.map((v) => withLink(actor.projectId, v)),
              paging: pages,
              link: r.items.map((v) => objectLink(actor.projectId, v)),
            },
            tabular: r.items.map(flat),
            filename: 'objects',
          };
        },
      },
      POST: {
        access: 'mdadmin',
        description:
          'Create an object or an array of at most 1000 (all or nothing) `{ ident?, type, name, description?, def, acl?, tag? }`.',
        handler: async ({ engine, actor, body }) => {
          const created = await engine.objects.create(actor, body);
          const single = created.length === 1 && !Array.isArray(body);
          return {
            status: 201,
            title: 'Created',
            body: {
              objects: created.map((v) => withLink(actor.projectId, v)),
              link: created.map((v) => objectLink(actor.projectId, v)),
            },
            headers: single
              ? { Location: href(objPath(actor.projectId, created[0]!.ident)) }
              : undefined,
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj/:id',
    ops: {
      GET: {
        access: 'member',
        description:
          'One object; `predecessors=1` (objects it uses), `successors=1` (objects using it), `history=1`.',
        handler: async ({ engine, actor, params, query }) => {
          const d = await engine.objects.get(actor, params.id!, {
            predecessors: flag(query.predecessors),
            successors: flag(query.successors),
            history: flag(query.history),
          });
          const p = actor.projectId;
          return {
            title: `${d.object.type} ${d.object.name}`,
            body: {
              object: withLink(p, d.object),
              ...(d.predecessors ? { predecessors: summaries(p, d.predecessors) } : {}),
              ...(d.successors ? { successors: summaries(p, d.successors) } : {}),
              ...(d.history ? { history: historyReply(p, d.object.ident, d.history) } : {}),
              link: [
                objectLink(p, d.object),
                ...[...(d.predecessors ?? []), ...(d.successors ?? [])].map((o) =>
                  objectLink(p, o),
                ),
              ],
            },
          };
        },
      },
      PUT: {
        access: 'mdadmin',
        description:
          'Replace the object `{ name, description?, def, acl?, tag? }` (type cannot change; acl left out stays).',
        handler: async ({ engine, actor, params, body }) => {
          const v = await engine.objects.replace(actor, params.id!, body);
          return {
            title: `${v.type} ${v.name}`,
            body: { object: withLink(actor.projectId, v), link: [objectLink(actor.projectId, v)] },
          };
        },
      },
      DELETE: {
        access: 'mdadmin',
        description: 'Delete the object (409 with the dependents while other objects use it).',
        handler: async ({ engine, actor, params }) => {
          await engine.objects.remove(actor, params.id!);
          return { status: 204 };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj/:id/history',
    ops: {
      GET: {
        access: 'member',
        description: 'Revisions of the object, newest first: `{ revision, time, user }`.',
        handler: async ({ engine, actor, params }) => {
          const h = await engine.objects.history(actor, params.id!);
          return {
            title: `History of ${params.id}`,
            body: {
              history: historyReply(actor.projectId, params.id!, h),
              link: [link('object', objPath(actor.projectId, params.id!), { id: params.id })],
            },
            tabular: h,
            filename: 'history',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj/:id/history/:revision',
    ops: {
      GET: {
        access: 'member',
        description: 'The object as it was at that revision.',
        handler: async ({ engine, actor, params }) => {
          const v = await engine.objects.revision(actor, params.id!, params.revision!);
          return {
            title: `${v.type} ${v.name}, revision ${v.revision}`,
            body: { object: v, link: [objectLink(actor.projectId, v)] },
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj/:id/values',
    ops: {
      GET: {
        access: 'member',
        description:
          'Distinct values of an attribute or label, most frequent first, with their row counts (as the MCP tool get_attribute_values): `prefix` (any case), `limit` (1–1000, default 50).',
        handler: async ({ engine, actor, params, query }) => {
          const { object } = await engine.objects.get(actor, params.id!);
          const opts = parseInput(valuesQuery, query, 'query');
          const r = await engine.catalog.attributeValues(actor, object.ident, opts);
          return {
            title: `Values of ${object.name}`,
            body: { ...r, link: [objectLink(actor.projectId, object)] },
            tabular: r.values,
            filename: 'values',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/obj/:id/compatible',
    ops: {
      GET: {
        access: 'member',
        description:
          'What combines with an object in one query (as the MCP tool compatible_objects): for a fact or metric the attributes and labels that can break it down, for an attribute or label the facts and metrics it can break down; 400 for other types.',
        handler: async ({ engine, actor, params }) => {
          const { object } = await engine.objects.get(actor, params.id!);
          const r = await engine.catalog.compatible(actor, object.ident);
          return {
            title: `What combines with ${object.name}`,
            body: { ...r, link: [objectLink(actor.projectId, object)] },
            tabular: r.compatible,
            filename: 'compatible',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/bulkobj',
    ops: {
      GET: {
        access: 'member',
        description:
          'Many objects: `idents` (comma list, ≤ 1000), `keys` (comma list of fields); unreadable or unknown ones are listed in `missing`.',
        handler: async ({ engine, actor, query }) => {
          const r = await engine.objects.bulk(actor, query);
          const p = actor.projectId;
          return {
            title: 'Objects',
            body: {
              objects: r.objects.map((o) => ({ ...o.fields, link: [objectLink(p, o.object)] })),
              missing: r.missing,
              link: r.objects.map((o) => objectLink(p, o.object)),
            },
            tabular: r.objects.map((o) => o.fields),
            filename: 'objects',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/app/obj/search',
    ops: {
      GET: {
        access: 'member',
        description:
          'Search objects: `query`, `params` (comma list of name, ident, tags, type, description), `limit`, `datasets=true` (datasets too, by name); best hits first.',
        handler: async ({ engine, actor, query }) => {
          const r = await engine.objects.search(actor, query);
          const p = actor.projectId;
          // A dataset is no object: its link is the model's graph, where its columns are.
          const hitLink = (h: (typeof r.hits)[number]) =>
            h.type === 'dataset'
              ? link('dataset', `${projectPath(p)}/pmd/graph/ldm`, { id: h.ident, title: h.name })
              : objectLink(p, h);
          return {
            title: 'Search',
            body: {
              hits: r.hits.map((h) => ({ ...h, link: [hitLink(h)] })),
              total: r.total,
              link: r.hits.map(hitLink),
            },
            tabular: r.hits,
            filename: 'search',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/modifyfolder',
    ops: {
      POST: {
        access: 'mdadmin',
        description: 'Add objects to or remove them from a folder `{ ident, op, content }`.',
        handler: async ({ engine, actor, body }) => {
          const v = await engine.objects.modifyFolder(actor, body);
          return {
            title: `Folder ${v.name}`,
            body: { object: withLink(actor.projectId, v), link: [objectLink(actor.projectId, v)] },
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/graph/ldm',
    ops: {
      GET: {
        access: 'member',
        description:
          'Logical data model: datasets with columns, primary key and rows; references between them.',
        handler: async ({ engine, actor }) => {
          const g = await engine.objects.ldm(actor);
          return {
            title: 'Logical data model',
            body: {
              ...g,
              link: [link('dataload', `${projectPath(actor.projectId)}/kodiak/dataload`)],
            },
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/graph/odm',
    ops: {
      GET: {
        access: 'member',
        description:
          'Object dependency graph: nodes are objects, an edge `from` → `to` means from uses to.',
        handler: async ({ engine, actor }) => {
          const g = await engine.objects.odm(actor);
          return {
            title: 'Object dependencies',
            body: { ...g, link: g.nodes.map((n) => objectLink(actor.projectId, n)) },
            tabular: g.edges,
            filename: 'dependencies',
          };
        },
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/check/model',
    ops: {
      GET: {
        access: 'mdadmin',
        description:
          'Model checks: broken references, orphan labels, references to datasets without a key, ambiguous joins, duplicate titles.',
        handler: async ({ engine, actor }) => problemsReply(await engine.objects.checkModel(actor)),
      },
    },
  },
  {
    group: 'Semantic model',
    path: '/projects/:project/pmd/check/obj',
    ops: {
      GET: {
        access: 'mdadmin',
        description:
          'Object checks: missing or ambiguous dependencies, AQL that no longer compiles.',
        handler: async ({ engine, actor }) =>
          problemsReply(await engine.objects.checkObjects(actor)),
      },
    },
  },
];

function problemsReply(problems: Array<{ kind: string; message: string; objects?: string[] }>) {
  return {
    title: 'Model check',
    body: { ok: problems.length === 0, problems },
    tabular: problems.map((p) => ({
      kind: p.kind,
      message: p.message,
      objects: (p.objects ?? []).join(';'),
    })),
    filename: 'problems',
  };
}
