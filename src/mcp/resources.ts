// MCP resources: a project's model (the full catalog), one model object, and a query result
// as CSV — each read as the signed-in user, listed where a list is useful.
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Resource } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../engine/access/actor.js';
import type { Catalog } from '../engine/catalog/catalog.js';
import { invalid, notFound } from '../engine/errors.js';
import { toDelimited } from '../rest/render/delimited.js';
import { actorFor, type McpContext } from './tools/common.js';
import { resultUri } from './tools/aql.js';
import { findObject, objectOut } from './tools/model.js';

const enc = encodeURIComponent;
const JSON_TYPE = 'application/json';

function variable(v: string | string[] | undefined, name: string): string {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) throw invalid(`the resource URI has no ${name}`);
  return decodeURIComponent(s);
}

/** Each project the user may read, with its actor (projects under maintenance are skipped). */
function projects(ctx: McpContext): { a: ProjectActor; label: string }[] {
  const out: { a: ProjectActor; label: string }[] = [];
  for (const p of ctx.engine.projects.list(ctx.principal)) {
    if (!p.hasAccess) continue;
    try {
      out.push({ a: ctx.engine.actor(ctx.principal, p.id), label: p.label });
    } catch {
      // no access right now (maintenance): not listed
    }
  }
  return out;
}

async function fullCatalog(ctx: McpContext, a: ProjectActor): Promise<Omit<Catalog, 'nextCursor'>> {
  const first = await ctx.engine.catalog.catalog(a, { limit: 100 });
  const all = { ...first };
  for (let cursor = first.nextCursor; cursor;) {
    const next = await ctx.engine.catalog.catalog(a, { limit: 100, cursor });
    all.datasets = [...all.datasets, ...next.datasets];
    cursor = next.nextCursor;
  }
  const { nextCursor: _, ...rest } = all;
  return rest;
}

export function registerResources(server: McpServer, ctx: McpContext): void {
  const completeProject = {
    project: () => projects(ctx).map((p) => p.a.projectId),
  };

  server.registerResource(
    'model',
    new ResourceTemplate('ursa://projects/{project}/model', {
      list: () => ({
        resources: projects(ctx).map(({ a, label }): Resource => ({
          uri: `ursa://projects/${enc(a.projectId)}/model`,
          name: `${label} model`,
          mimeType: JSON_TYPE,
        })),
      }),
      complete: completeProject,
    }),
    {
      title: 'Project model',
      description:
        'All datasets (attributes, labels, facts) and saved metrics and filters of a project',
      mimeType: JSON_TYPE,
    },
    async (uri, vars) => {
      const a = actorFor(ctx, variable(vars.project, 'project'));
      return {
        contents: [
          { uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(await fullCatalog(ctx, a)) },
        ],
      };
    },
  );

  server.registerResource(
    'object',
    new ResourceTemplate('ursa://projects/{project}/objects/{id}', {
      // The saved definitions; attributes and facts are in the model resource.
      list: () => ({
        resources: projects(ctx).flatMap(({ a }) =>
          ctx.engine.objects
            .list(a, { rel: ['object.metric', 'object.filter', 'object.report'], limit: 100 })
            .items.map((o): Resource => ({
              uri: `ursa://projects/${enc(a.projectId)}/objects/${enc(o.ident)}`,
              name: o.name,
              description: `${o.type} in ${a.projectId}`,
              mimeType: JSON_TYPE,
            })),
        ),
      }),
      complete: completeProject,
    }),
    {
      title: 'Model object',
      description: 'One model object with its definition',
      mimeType: JSON_TYPE,
    },
    async (uri, vars) => {
      const a = actorFor(ctx, variable(vars.project, 'project'));
      const d = findObject(ctx, a, variable(vars.id, 'id'));
      return {
        contents: [
          { uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(objectOut(d.object)) },
        ],
      };
    },
  );

  server.registerResource(
    'result',
    new ResourceTemplate('ursa://projects/{project}/results/{id}.csv', {
      list: () => ({
        resources: projects(ctx).flatMap(({ a }) =>
          ctx.engine.jobs
            .list(a, { type: 'report', status: 'OK', limit: 20, offset: 0 })
            .items.map((j): Resource => ({
              uri: resultUri(a.projectId, j.id),
              name: `${j.id}.csv`,
              description: String(j.params.aql ?? '').slice(0, 200),
              mimeType: 'text/csv',
            })),
        ),
      }),
      complete: completeProject,
    }),
    {
      title: 'Query result',
      description: 'Every row of a finished run_aql or run_report, as CSV',
      mimeType: 'text/csv',
    },
    async (uri, vars) => {
      const a = actorFor(ctx, variable(vars.project, 'project'));
      const job = ctx.engine.jobs.get(a, variable(vars.id, 'id'));
      if (job.type !== 'report') throw notFound(`job "${job.id}" is not a query`);
      if (job.status !== 'OK')
        throw notFound(`the query ${job.id} has no result (status ${job.status})`);
      const r = await ctx.engine.aql.result(a, job);
      const csv = toDelimited(
        r.columns.map((c) => c.title),
        r.rows,
        ',',
      );
      return { contents: [{ uri: uri.href, mimeType: 'text/csv', text: csv }] };
    },
  );
}
