// The AI agent's tools: the engine functions the MCP tools use (catalog, search, attribute
// values, compatible objects, run and explain AQL) plus make_chart and find_dashboards, all as
// the calling user.
// Arguments are checked here; a tool's answer is compact JSON text, capped in size.
import { z } from 'zod';
import type { ProjectActor } from '../access/actor.js';
import { CHEATSHEET } from '../aql/cheatsheet.js';
import { jsonRows } from '../aql/format.js';
import { TOOL_LIMITS, toolEntry } from '../tools/catalog.js';
import { TOOL_INPUTS } from '../tools/inputs.js';
import type { Aql } from '../aql/service.js';
import type { CatalogService } from '../catalog/catalog.js';
import { EngineError, invalid } from '../errors.js';
import { JobFailure } from '../jobs/jobs.js';
import type { ModelObjects } from '../model/objects.js';
import { metricFormats, type Reports } from '../reports/reports.js';
import { buildChartSpec, renderChartSvg } from '../reports/chart.js';
import { findDashboards, shown } from './dashboards.js';
import type { ToolSpec } from './provider.js';
import type { AiChart, AiLink, AiQuery } from './types.js';

/** What a tool answer may hold: a model reads it all, so it stays small. */
export const MAX_TOOL_CHARS = TOOL_LIMITS.chat.maxChars;
/** Rows of each query kept with the answer (the user's table). */
export const STORED_ROWS = 200;

export interface AgentDeps {
  aql: Aql;
  catalog: CatalogService;
  objects: ModelObjects;
  reports: Reports;
  /** The server's public address (read when a tool runs: final only once the server listens). */
  siteUrl: () => string;
}

export interface ToolContext {
  actor: ProjectActor;
  signal: AbortSignal;
  /** Every query run so far, in order; run_aql adds to it. */
  queries: AiQuery[];
  chart: AiChart | null;
  /** Every dashboard and report find_dashboards returned (the answer keeps those it links). */
  links: AiLink[];
}

export interface AgentTool {
  spec: ToolSpec;
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
}

/** A tool call the model should correct: its text goes back as an error result. */
export class ToolError extends Error {}

const json = (v: unknown) => JSON.stringify(v);

/** The largest answer under the cap, halving a list until it fits. */
function fit<T>(items: T[], shape: (items: T[], cut: boolean) => unknown): string {
  let n = items.length;
  let text = json(shape(items, false));
  while (text.length > MAX_TOOL_CHARS && n > 1) {
    n = Math.ceil(n / 2);
    text = json(shape(items.slice(0, n), true));
  }
  if (text.length > MAX_TOOL_CHARS) text = `${text.slice(0, MAX_TOOL_CHARS)}… (cut)`;
  return text;
}

interface Def<S extends z.ZodRawShape> {
  name: string;
  input: S;
  run(args: z.infer<z.ZodObject<S>>, ctx: ToolContext): Promise<string>;
}

function define<S extends z.ZodRawShape>(def: Def<S>): AgentTool {
  // Its description and argument schema (with their texts) come from the tool catalog and
  // TOOL_INPUTS, shared with MCP.
  const schema = z.object(def.input).strict();
  const { $schema: _drop, ...parameters } = z.toJSONSchema(schema) as Record<string, unknown>;
  return {
    spec: { name: def.name, description: toolEntry(def.name, 'chat').description, parameters },
    run: async (args, ctx) => {
      const parsed = schema.safeParse(args);
      if (!parsed.success)
        throw new ToolError(
          `invalid arguments for ${def.name}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ')}`,
        );
      const text = await def.run(parsed.data, ctx);
      // Lists shrink themselves to fit; anything else still never exceeds the cap.
      return text.length > MAX_TOOL_CHARS ? `${text.slice(0, MAX_TOOL_CHARS)}… (cut)` : text;
    },
  };
}

export function agentTools(deps: AgentDeps): AgentTool[] {
  const { aql, catalog, objects, reports, siteUrl } = deps;
  return [
    define({
      name: 'get_model',
      input: TOOL_INPUTS.get_model('chat'),
      run: async ({ search, dataset, cursor, limit }, ctx) => {
        const c = await catalog.catalog(ctx.actor, {
          search,
          dataset,
          cursor,
          limit: limit ?? TOOL_LIMITS.chat.modelPage,
        });
        return fit(c.datasets, (datasets, cut) => ({
          datasets: datasets.map((d) => ({
            name: d.name,
            ...(d.description ? { description: d.description } : {}),
            rows: d.rows,
            columns: d.columns.map((col) => ({
              title: col.title,
              id: col.id,
              type: col.type,
              dataType: col.dataType,
              ...(col.description ? { description: col.description } : {}),
              ...(col.cardinality !== undefined ? { distinct: col.cardinality } : {}),
              ...(col.examples?.length ? { examples: col.examples } : {}),
              ...(col.references ? { references: col.references } : {}),
              ...(col.labelOf ? { labelOf: col.labelOf } : {}),
            })),
          })),
          metrics: c.metrics.map((m) => ({
            title: m.title,
            id: m.id,
            aql: m.aql,
            ...(m.description ? { description: m.description } : {}),
          })),
          filters: c.filters.map((f) => ({ title: f.title, id: f.id, aql: f.aql })),
          nextCursor: c.nextCursor,
          ...(cut ? { note: 'cut to fit: pass search or dataset' } : {}),
        }));
      },
    }),
    define({
      name: 'search_objects',
      input: TOOL_INPUTS.search_objects('chat'),
      run: async ({ query, limit }, ctx) => {
        const r = await objects.search(ctx.actor, { query, limit: limit ?? 20 });
        return fit(r.hits, (hits) => ({
          total: r.total,
          hits: hits.map((h) => ({ id: h.ident, type: h.type, title: h.name, match: h.match })),
        }));
      },
    }),
    define({
      name: 'get_attribute_values',
      input: TOOL_INPUTS.get_attribute_values('chat'),
      run: async ({ attribute, prefix, limit }, ctx) => {
        const obj = await catalog.find(ctx.actor, attribute);
        const r = await catalog.attributeValues(ctx.actor, obj.ident, {
          prefix,
          limit: limit ?? TOOL_LIMITS.chat.valuesDefault,
        });
        return fit(r.values, (values, cut) => ({
          attribute: { id: obj.ident, title: obj.name },
          values,
          truncated: r.truncated || cut,
        }));
      },
    }),
    define({
      name: 'compatible_objects',
      input: TOOL_INPUTS.compatible_objects(),
      run: async ({ object }, ctx) => {
        const r = await catalog.compatible(ctx.actor, object);
        return fit(r.compatible, (compatible, cut) => ({
          object: r.object,
          compatible: compatible.map((o) => ({ title: o.title, type: o.type })),
          ...(cut ? { truncated: true } : {}),
        }));
      },
    }),
    define({
      name: 'run_aql',
      input: TOOL_INPUTS.run_aql('chat'),
      run: async ({ aql: text, limit }, ctx) => {
        const id = `q${ctx.queries.length + 1}`;
        let r;
        try {
          r = await aql.query(ctx.actor, text, ctx.signal);
        } catch (err) {
          ctx.signal.throwIfAborted();
          const message = err instanceof Error ? err.message : String(err);
          ctx.queries.push({
            id,
            aql: text,
            columns: [],
            rows: [],
            totalRows: 0,
            truncated: false,
            error: message,
          });
          throw err;
        }
        const formats = metricFormats(await aql.snapshot(ctx.actor.projectId));
        const columns = r.columns.map((c) => {
          const kind = c.kind === 'measure' ? ('measure' as const) : ('dimension' as const);
          const format = kind === 'measure' ? formats.get(c.title.toLowerCase()) : undefined;
          return { title: c.title, kind, dataType: c.dataType, ...(format ? { format } : {}) };
        });
        ctx.queries.push({
          id,
          aql: text,
          columns,
          rows: r.rows.slice(0, STORED_ROWS),
          totalRows: r.rows.length,
          truncated: r.rows.length > STORED_ROWS,
        });
        return fit(r.rows.slice(0, limit ?? TOOL_LIMITS.chat.defaultRows), (rows, cut) => ({
          query: id,
          columns: columns.map((c) => c.title),
          // Typed as every door's cells (aql/format.ts jsonCell): numbers are numbers.
          rows: jsonRows(columns, rows),
          totalRows: r.rows.length,
          ...(rows.length < r.rows.length
            ? { note: `first ${rows.length} of ${r.rows.length} rows${cut ? ' (cut to fit)' : ''}` }
            : {}),
          // No rows: WHERE values that match no member, with the closest members.
          ...(r.warnings ? { warnings: r.warnings.map((w) => w.message) } : {}),
        }));
      },
    }),
    define({
      name: 'aql_help',
      input: TOOL_INPUTS.aql_help(),
      run: async () => CHEATSHEET,
    }),
    define({
      name: 'explain_aql',
      input: TOOL_INPUTS.explain_aql(),
      run: async ({ aql: text }, ctx) => {
        const e = await aql.explain(ctx.actor, text);
        return json({
          columns: e.columns.map((c) => ({ title: c.title, kind: c.kind, dataType: c.dataType })),
          aggregations: e.leaves.map((l) => ({
            measure: l.leaf,
            dataset: l.anchor,
            grain: l.grain,
            joins: l.joins,
          })),
          rowFilter: e.rowFilter,
        });
      },
    }),
    define({
      name: 'make_chart',
      input: TOOL_INPUTS.make_chart(),
      run: async ({ query, mark, x, y, color, title }, ctx) => {
        const q = ctx.queries.find((c) => c.id === query.trim());
        const ok = ctx.queries.filter((c) => !c.error).map((c) => c.id);
        if (!q)
          throw invalid(
            `no query "${query}"; ${ok.length ? `queries with results: ${ok.join(', ')}` : 'run a query with run_aql first'}`,
          );
        if (q.error) throw invalid(`query ${q.id} failed; chart a query that returned rows`);
        if (q.truncated)
          throw invalid(
            `query ${q.id} has ${q.totalRows} rows, more than a chart shows; aggregate or filter it and chart that`,
          );
        const spec = buildChartSpec(
          { mark, x, y, ...(color ? { color } : {}), ...(title ? { title } : {}) },
          q,
        );
        const svg = await renderChartSvg(spec);
        ctx.chart = { queryId: q.id, spec, svg };
        return json({ chart: 'ready', query: q.id, mark });
      },
    }),
    define({
      name: 'find_dashboards',
      input: TOOL_INPUTS.find_dashboards(),
      run: async ({ query, kind, limit }, ctx) => {
        const r = await findDashboards(reports, siteUrl(), ctx.actor, { query, kind });
        const items = r.items.slice(0, limit ?? 20);
        for (const i of items)
          if (!ctx.links.some((l) => l.url === i.url))
            ctx.links.push({ kind: i.kind, ident: i.ident, name: i.name, url: i.url });
        const what = kind ? `${kind}s` : 'dashboards or reports';
        return fit(items, (list, cut) => ({
          total: r.items.length,
          items: list.map(shown),
          ...(r.items.length === 0
            ? {
                note: query
                  ? `none of the ${what} you may open matches "${query}"; call again without query to list them all`
                  : `there are no ${what} you may open in this project`,
              }
            : r.partial
              ? { note: `none matches every word of "${query}"; these match some` }
              : list.length < r.items.length
                ? {
                    note: `first ${list.length} of ${r.items.length}${cut ? ' (cut to fit)' : ''}; narrow the query`,
                  }
                : {}),
        }));
      },
    }),
  ];
}

/** A failed tool call as the text the model reads (it fixes its call from it). */
export function isToolMistake(err: unknown): err is EngineError | ToolError | JobFailure {
  return err instanceof EngineError || err instanceof ToolError || err instanceof JobFailure;
}
