// MCP resources: a project's model (the catalog), one model object, and a query result as
// CSV — each read as the signed-in user, listed where a list is useful. One read answers at
// most MAX_OUTPUT_BYTES, like a tool call: the model and a result are paged (the next page's
// URI is in the answer), anything else over it is an error saying where to read it instead.
// Errors are JSON-RPC errors: -32002 for a resource that does not exist for the caller.
import { CHEATSHEET } from '../engine/aql/cheatsheet.js';
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../engine/access/actor.js';
import type { Catalog } from '../engine/catalog/catalog.js';
import { AqlError } from '../engine/aql/errors.js';
import { engineErrorOf, invalid, notFound } from '../engine/errors.js';
import { toDelimited } from '../shared/delimited.js';
import { flatTable } from '../engine/aql/format.js';
import { findUnstorable, findUnstorableInPath } from '../shared/storable-text.js';
import { MAX_OUTPUT_BYTES } from './limits.js';
import { actorFor, describeError, type McpContext } from './tools/common.js';
import { resultUri } from './tools/aql-results.js';
import { findObject, objectOut } from './tools/model-views.js';

const enc = encodeURIComponent;
const JSON_TYPE = 'application/json';
const CSV_TYPE = 'text/csv';
/** JSON-RPC error code of a resource that does not exist (MCP specification). */
export const RESOURCE_NOT_FOUND = -32002;
/** Room left in a page for the note, the URIs and the JSON around the text. */
const PAGE_OVERHEAD = 2_000;

/** An error a resource read answers with, as the JSON-RPC error `{ code, message, data }`. */
class ResourceError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

function variable(v: string | string[] | undefined, name: string): string {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) throw invalid(`the resource URI has no ${name}`);
  return decodeURIComponent(s);
}

const bytes = (x: unknown) => Buffer.byteLength(JSON.stringify(x), 'utf8');

/** Each project the user may read, with its actor (projects under maintenance are skipped). */
async function projects(ctx: McpContext): Promise<{ a: ProjectActor; label: string }[]> {
  const out: { a: ProjectActor; label: string }[] = [];
  for (const p of await ctx.engine.projects.list(ctx.principal)) {
    if (!p.hasAccess) continue;
    try {
      out.push({ a: await ctx.engine.actor(ctx.principal, p.id), label: p.label });
    } catch {
      // no access right now (maintenance): not listed
    }
  }
  return out;
}

const modelUri = (project: string, cursor?: string | null) =>
  `ursa://projects/${enc(project)}/model${cursor ? `?cursor=${enc(cursor)}` : ''}`;

/** One page of the catalog as JSON, as many datasets as fit, with the next page's URI. */
async function modelPage(
  ctx: McpContext,
  a: ProjectActor,
  uri: string,
  cursor: string | undefined,
): Promise<ReadResourceResult> {
  const render = (c: Catalog) => {
    const next = c.nextCursor ? modelUri(a.projectId, c.nextCursor) : null;
    const page = {
      ...c,
      next,
      ...(next ? { note: `more datasets follow: read ${next}` } : {}),
    };
    return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(page) }] };
  };
  for (let limit = 100; ; limit = Math.ceil(limit / 2)) {
    const r = render(await ctx.engine.catalog.catalog(a, { limit, cursor }));
    if (bytes(r) <= MAX_OUTPUT_BYTES || limit === 1) return r;
  }
}

const csvUri = (project: string, id: string, offset: number) =>
  `${resultUri(project, id)}${offset ? `?offset=${offset}` : ''}`;

/** Rows offset… of a finished query as CSV (header first), as many as fit in one read. */
async function csvPage(
  ctx: McpContext,
  a: ProjectActor,
  uri: string,
  id: string,
  offset: number,
): Promise<ReadResourceResult> {
  const job = await ctx.engine.jobs.get(a, id);
  if (job.type !== 'report') throw notFound(`job "${job.id}" is not a query`);
  if (job.status !== 'OK')
    throw notFound(`the query ${job.id} has no result (status ${job.status})`);
  const r = await ctx.engine.aql.result(a, job);
  const total = r.rows.length;
  if (offset > total)
    throw invalid(`offset ${offset} is past the last row: the result has ${total} rows`);
  // Nested columns (NEST) flattened: a result row takes a line per nested row.
  const titles = flatTable(r.columns, []).columns.map((c) => c.title);
  const header = toDelimited(titles, [], ',');
  let text = header;
  let size = bytes(header);
  let end = offset;
  for (; end < total; end++) {
    const line = toDelimited(titles, flatTable(r.columns, [r.rows[end]!]).rows, ',').slice(
      header.length,
    );
    const more = bytes(line) - 2; // the quotes of a JSON string are counted once
    if (size + more > MAX_OUTPUT_BYTES - PAGE_OVERHEAD && end > offset) break;
    text += line;
    size += more;
  }
  const page = { offset, rows: end - offset, totalRows: total, next: null as string | null };
  const contents: ReadResourceResult['contents'] = [
    { uri, mimeType: CSV_TYPE, text, _meta: { 'ursa/page': page } },
  ];
  if (end < total) {
    page.next = csvUri(a.projectId, job.id, end);
    contents.push({
      uri,
      mimeType: 'text/plain',
      text: `Rows ${offset + 1}–${end} of ${total}: one read is capped at ${MAX_OUTPUT_BYTES / 1000} KB. The next rows: ${page.next}`,
    });
  }
  return { contents };
}

/** A read's failure as the JSON-RPC error a client can act on. */
function resourceError(ctx: McpContext, uri: string, err: unknown): ResourceError {
  if (err instanceof ResourceError) return err;
  const engineErr = engineErrorOf(err);
  if (engineErr) {
    if (engineErr.kind === 'not_found' || engineErr.kind === 'unauthenticated')
      return new ResourceError(
        RESOURCE_NOT_FOUND,
        `resource ${uri} not found: ${engineErr.message}`,
        {
          uri,
        },
      );
    if (engineErr.kind === 'invalid')
      return new ResourceError(ErrorCode.InvalidParams, `${uri}: ${engineErr.message}`, { uri });
    return new ResourceError(ErrorCode.InvalidRequest, `${uri}: ${engineErr.message}`, { uri });
  }
  return new ResourceError(ErrorCode.InternalError, describeError(ctx, err), { uri });
}

type Read = (uri: URL, vars: Record<string, string | string[]>) => Promise<ReadResourceResult>;

const CHEATSHEET_URI = 'ursa://aql/cheatsheet';

export function registerResources(server: McpServer, ctx: McpContext): void {
  const completeProject = {
    project: async () => (await projects(ctx)).map((p) => p.a.projectId),
  };
  // Ours, in order: resources/read goes through them below.
  const templates: { template: ResourceTemplate; read: Read }[] = [];
  const register = (
    name: string,
    template: ResourceTemplate,
    meta: { title: string; description: string; mimeType: string },
    read: Read,
  ) => {
    server.registerResource(name, template, meta, read);
    templates.push({ template, read });
  };

  const modelList = async () => ({
    resources: (await projects(ctx)).map(({ a, label }): Resource => ({
      uri: modelUri(a.projectId),
      name: `${label} model`,
      mimeType: JSON_TYPE,
    })),
  });
  const modelMeta = {
    title: 'Project model',
    description:
      'All datasets (attributes, labels, facts) and saved metrics and filters of a project; paged: `next` is the URI of the next page',
    mimeType: JSON_TYPE,
  };
  register(
    'model',
    new ResourceTemplate('ursa://projects/{project}/model', {
      list: modelList,
      complete: completeProject,
    }),
    modelMeta,
    async (uri, vars) =>
      modelPage(ctx, await actorFor(ctx, variable(vars.project, 'project')), uri.href, undefined),
  );
  register(
    'model-page',
    new ResourceTemplate('ursa://projects/{project}/model{?cursor}', {
      list: undefined,
      complete: completeProject,
    }),
    { ...modelMeta, title: 'Project model (next page)' },
    async (uri, vars) =>
      modelPage(
        ctx,
        await actorFor(ctx, variable(vars.project, 'project')),
        uri.href,
        variable(vars.cursor, 'cursor'),
      ),
  );

  register(
    'object',
    new ResourceTemplate('ursa://projects/{project}/objects/{id}', {
      // The saved definitions; attributes and facts are in the model resource.
      list: async () => ({
        resources: (
          await Promise.all(
            (await projects(ctx)).map(async ({ a }) =>
              (
                await ctx.engine.objects.list(a, {
                  rel: ['object.metric', 'object.filter', 'object.report'],
                  limit: 100,
                })
              ).items.map((o): Resource => ({
                uri: `ursa://projects/${enc(a.projectId)}/objects/${enc(o.ident)}`,
                name: o.name,
                description: `${o.type} in ${a.projectId}`,
                mimeType: JSON_TYPE,
              })),
            ),
          )
        ).flat(),
      }),
      complete: completeProject,
    }),
    {
      title: 'Model object',
      description: 'One model object with its definition',
      mimeType: JSON_TYPE,
    },
    async (uri, vars) => {
      const a = await actorFor(ctx, variable(vars.project, 'project'));
      let d;
      try {
        d = await findObject(ctx, a, variable(vars.id, 'id'));
      } catch (err) {
        // No object by that id or title ("did you mean" included): the resource does not exist.
        throw err instanceof AqlError ? notFound(err.message) : err;
      }
      return {
        contents: [
          { uri: uri.href, mimeType: JSON_TYPE, text: JSON.stringify(objectOut(d.object)) },
        ],
      };
    },
  );

  const resultMeta = {
    title: 'Query result',
    description:
      'The rows of a finished run_aql or run_report as CSV, 100 KB per read; a longer result names the URI of its next rows',
    mimeType: CSV_TYPE,
  };
  const readCsv =
    (withOffset: boolean): Read =>
    async (uri, vars) => {
      const a = await actorFor(ctx, variable(vars.project, 'project'));
      let offset = 0;
      if (withOffset) {
        const text = variable(vars.offset, 'offset');
        offset = Number(text);
        if (!/^\d+$/.test(text) || !Number.isSafeInteger(offset))
          throw invalid(`offset must be a whole number of rows, not "${text}"`);
      }
      return csvPage(ctx, a, uri.href, variable(vars.id, 'id'), offset);
    };
  register(
    'result',
    new ResourceTemplate('ursa://projects/{project}/results/{id}.csv', {
      list: async () => ({
        resources: (
          await Promise.all(
            (await projects(ctx)).map(async ({ a }) =>
              (
                await ctx.engine.jobs.list(a, {
                  type: 'report',
                  status: 'OK',
                  limit: 20,
                  offset: 0,
                })
              ).items.map((j): Resource => ({
                uri: resultUri(a.projectId, j.id),
                name: `${j.id}.csv`,
                description: String(j.params.aql ?? '').slice(0, 200),
                mimeType: CSV_TYPE,
              })),
            ),
          )
        ).flat(),
      }),
      complete: completeProject,
    }),
    resultMeta,
    readCsv(false),
  );
  register(
    'result-page',
    new ResourceTemplate('ursa://projects/{project}/results/{id}.csv{?offset}', {
      list: undefined,
      complete: completeProject,
    }),
    { ...resultMeta, title: 'Query result (rows from offset)' },
    readCsv(true),
  );

  register(
    'aql-cheatsheet',
    new ResourceTemplate(CHEATSHEET_URI, {
      list: () => ({
        resources: [{ uri: CHEATSHEET_URI, name: 'AQL cheatsheet', mimeType: 'text/markdown' }],
      }),
    }),
    {
      title: 'AQL cheatsheet',
      description:
        'AQL in brief for assistants with SQL habits: query form, brackets, aggregations, dates, windows, functions, with examples',
      mimeType: 'text/markdown',
    },
    async () => ({
      contents: [{ uri: CHEATSHEET_URI, mimeType: 'text/markdown', text: CHEATSHEET }],
    }),
  );

  // Our own resources/read (replacing the SDK's, which answers -32602 for an unknown URI and
  // -32603 for everything a read throws): -32002 not found, and the size cap on every read.
  server.server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    const unstorable = findUnstorable(uri, 'uri') ?? findUnstorableInPath(uri, 'uri');
    if (unstorable) throw new ResourceError(ErrorCode.InvalidParams, unstorable.message, { uri });
    for (const { template, read } of templates) {
      const vars = template.uriTemplate.match(uri);
      if (!vars) continue;
      let result: ReadResourceResult;
      try {
        result = await read(new URL(uri), vars);
      } catch (err) {
        throw resourceError(ctx, uri, err);
      }
      const size = bytes(result);
      if (size > MAX_OUTPUT_BYTES)
        throw new ResourceError(
          ErrorCode.InvalidRequest,
          `${uri} is ${Math.ceil(size / 1000)} KB, over the ${MAX_OUTPUT_BYTES / 1000} KB limit of one read; read it over the REST API`,
          { uri },
        );
      return result;
    }
    throw new ResourceError(
      RESOURCE_NOT_FOUND,
      `resource ${uri} not found; Ursa's resources: ${templates.map((t) => t.template.uriTemplate.toString()).join(', ')}`,
      { uri },
    );
  });
}
