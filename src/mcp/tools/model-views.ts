// What the model tools (get_model, search_objects, get_object, get_attribute_values,
// compatible_objects), the write tools and the object resources share: object shapes and
// finding an object by id or title.
import { z } from 'zod';
import type { ProjectActor } from '../../engine/access/actor.js';
import type { Catalog } from '../../engine/catalog/catalog.js';
import { EngineError } from '../../engine/errors.js';
import type { ObjectDetails, ObjectSummary, ObjectView } from '../../engine/model/objects.js';
import { type McpContext } from './common.js';

export const ref = z.object({ id: z.string(), type: z.string(), title: z.string() });
export const summary = (o: ObjectSummary) => ({ id: o.ident, type: o.type, title: o.name });

export const column = z.object({
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
export const saved = z.object({
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

export const catalogOut = (c: Catalog) => ({
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
