// The model an assistant needs to write correct AQL: the compact catalog, object search and
// details, real attribute values for filters, and what can be combined with what.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import type { Catalog } from '../../engine/catalog/catalog.js';
import { EngineError } from '../../engine/errors.js';
import type { ObjectDetails, ObjectSummary, ObjectView } from '../../engine/model/objects.js';
import { TOOL_INPUTS } from '../../engine/tools/inputs.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';

const ref = z.object({ id: z.string(), type: z.string(), title: z.string() });
const summary = (o: ObjectSummary) => ({ id: o.ident, type: o.type, title: o.name });

const column = z.object({
  id: z.string(),
  title: z.string(),
  type: z.enum(['attribute', 'label', 'fact']),
  dataType: z.string(),
  description: z.string().optional(),
  cardinality: z.number().optional(),
  examples: z.array(z.string()).optional(),
  labelOf: z.string().optional(),
  references: z.string().optional(),
  primaryKey: z.boolean().optional(),
});
const saved = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  aql: z.string(),
});

export const objectShape = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string(),
  description: z.string(),
  def: z.record(z.string(), z.unknown()),
  tags: z.array(z.string()),
  revision: z.number(),
  updated: z.string(),
  updatedBy: z.string(),
});

export const objectOut = (v: ObjectView): z.infer<typeof objectShape> => ({
  id: v.ident,
  type: v.type,
  title: v.name,
  description: v.description,
  def: v.def,
  tags: v.tag,
  revision: v.revision,
  updated: v.updated,
  updatedBy: v.updatedBy,
});

/** An object by identifier, or else by title with AQL's rules and did-you-mean errors. */
export async function findObject(
  ctx: McpContext,
  a: ProjectActor,
  id: string,
  opts: { predecessors?: boolean; successors?: boolean } = {},
): Promise<ObjectDetails> {
  const name = id.replace(/^\[|\]$/g, '').trim();
  try {
    return await ctx.engine.objects.get(a, name, opts);
  } catch (err) {
    if (!(err instanceof EngineError) || err.kind !== 'not_found') throw err;
    return ctx.engine.objects.get(a, (await ctx.engine.catalog.find(a, name)).ident, opts);
  }
}

const catalogOut = (c: Catalog) => ({
  datasets: c.datasets.map((d) => ({
    name: d.name,
    ...(d.description ? { description: d.description } : {}),
    rows: d.rows,
    primaryKey: d.primaryKey,
    references: d.references,
    columns: d.columns.map((col) => ({ ...col })),
    ...(d.warning ? { warning: d.warning } : {}),
  })),
  metrics: c.metrics,
  filters: c.filters,
  total: c.total,
  nextCursor: c.nextCursor,
});

export function registerModelTools(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'get_model',
    input: { project: projectArg, ...TOOL_INPUTS.get_model('mcp') },
    output: {
      datasets: z.array(
        z.object({
          name: z.string(),
          description: z.string().optional().describe('What one row is'),
          rows: z.number().nullable().describe('null under a row-level filter'),
          primaryKey: z.string().nullable(),
          references: z.array(z.object({ column: z.string(), dataset: z.string() })),
          columns: z.array(column),
          warning: z
            .string()
            .optional()
            .describe('A warehouse table that could not be read (changed outside Ursa)'),
        }),
      ),
      metrics: z.array(saved),
      filters: z.array(saved),
      total: z.number().describe('Datasets matching, over all pages'),
      nextCursor: z.string().nullable(),
    },
    annotations: READ_ONLY,
    narrow: 'pass search or dataset, or a smaller limit',
    run: async ({ project, search, dataset, cursor, limit }) => {
      const a = await actorFor(ctx, project);
      const page = async (n?: number) =>
        catalogOut(await ctx.engine.catalog.catalog(a, { search, dataset, cursor, limit: n }));
      return {
        data: await page(limit),
        // Fewer datasets per page: the cursor then continues where this page ends.
        shrink: async (d) =>
          d.datasets.length > 1 ? page(Math.ceil(d.datasets.length / 2)) : null,
      };
    },
  });

  defineTool(server, ctx, {
    name: 'search_objects',
    input: { project: projectArg, ...TOOL_INPUTS.search_objects('mcp') },
    output: {
      hits: z.array(ref.extend({ description: z.string(), field: z.string(), match: z.string() })),
      total: z.number(),
    },
    annotations: READ_ONLY,
    narrow: 'use a smaller limit or a more specific query',
    run: async ({ project, query, limit }) => {
      const r = await ctx.engine.objects.search(await actorFor(ctx, project), {
        query,
        limit: limit ?? 20,
      });
      return {
        data: {
          total: r.total,
          hits: r.hits.map((h) => ({
            ...summary(h),
            description: h.description,
            field: h.field,
            match: h.match,
          })),
        },
        shrink: (d) =>
          d.hits.length > 1 ? { ...d, hits: d.hits.slice(0, Math.ceil(d.hits.length / 2)) } : null,
      };
    },
  });

  defineTool(server, ctx, {
    name: 'get_object',
    input: {
      project: projectArg,
      id: z.string().min(1).describe('Object id, e.g. metric.revenue, or its exact title'),
      related: z.boolean().optional().describe('Include predecessors and successors'),
    },
    output: {
      object: objectShape,
      predecessors: z.array(ref).optional().describe('Objects it uses'),
      successors: z.array(ref).optional().describe('Objects using it'),
    },
    annotations: READ_ONLY,
    narrow: 'call it without related=true',
    run: async ({ project, id, related }) => {
      const a = await actorFor(ctx, project);
      const d = await findObject(ctx, a, id, { predecessors: related, successors: related });
      return {
        data: {
          object: objectOut(d.object),
          ...(d.predecessors ? { predecessors: d.predecessors.map(summary) } : {}),
          ...(d.successors ? { successors: d.successors.map(summary) } : {}),
        },
        shrink: (x) => (x.predecessors || x.successors ? { object: x.object } : null),
      };
    },
  });

  defineTool(server, ctx, {
    name: 'get_attribute_values',
    input: { project: projectArg, ...TOOL_INPUTS.get_attribute_values('mcp') },
    output: {
      attribute: ref,
      values: z.array(z.object({ value: z.string(), count: z.number() })),
      truncated: z.boolean().describe('More values exist than shown'),
    },
    annotations: READ_ONLY,
    narrow: 'pass a prefix or a smaller limit',
    run: async ({ project, attribute, prefix, limit }) => {
      const a = await actorFor(ctx, project);
      const obj = await ctx.engine.catalog.find(a, attribute);
      const r = await ctx.engine.catalog.attributeValues(a, obj.ident, { prefix, limit });
      return {
        data: { attribute: { id: obj.ident, type: obj.type, title: obj.name }, ...r },
        shrink: (d) =>
          d.values.length > 1
            ? { ...d, values: d.values.slice(0, Math.ceil(d.values.length / 2)), truncated: true }
            : null,
      };
    },
  });

  defineTool(server, ctx, {
    name: 'compatible_objects',
    input: { project: projectArg, ...TOOL_INPUTS.compatible_objects() },
    output: {
      object: ref,
      anchors: z.array(z.string()).describe('Datasets the measure aggregates on'),
      compatible: z.array(ref),
      truncated: z.boolean(),
    },
    annotations: READ_ONLY,
    narrow: 'the list is too long; ask about a more specific object',
    run: async ({ project, object }) => {
      const r = await ctx.engine.catalog.compatible(await actorFor(ctx, project), object);
      return {
        data: {
          object: r.object,
          anchors: r.anchors,
          compatible: r.compatible,
          truncated: false,
        },
        shrink: (d) =>
          d.compatible.length > 1
            ? {
                ...d,
                compatible: d.compatible.slice(0, Math.ceil(d.compatible.length / 2)),
                truncated: true,
              }
            : null,
      };
    },
  });
}
