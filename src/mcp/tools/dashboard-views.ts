// What list_dashboards, get_dashboard and run_report share (SHARING.md "Rendering"): page
// URLs, the output shapes of dashboards, items and reports, and charts as PNG image blocks.
// The engine computes everything as the caller and draws charts as SVG; here they only
// become images, and answers are capped like every other tool's.
import { z } from 'zod';
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { apiHref, dashboardPath, reportPath } from '../../contract/urls.js';
import { EngineError, invalid, notFound } from '../../engine/errors.js';
import type { ObjectRow } from '../../engine/model/store.js';
import { svgToPng } from '../../engine/reports/png.js';
import {
  kpiJson,
  type DashboardItemRun,
  type ReportColumn,
  type ReportRun,
} from '../../engine/reports/reports.js';
import { jsonRows } from '../../engine/aql/format.js';
import { pivotJson } from '../../web/report-json.js';
import { CELLS_NOTE, cellShape, resultShape } from './aql-results.js';
import { type McpContext } from './common.js';
import { findObject } from './model-views.js';

/** Chart images per answer: each costs the model about as much as a page of text. */
export const MAX_IMAGES = 6;
/** A dashboard item's image is as wide as its share of the grid, but at least this. */
export const MIN_ITEM_WIDTH = 480;

const enc = encodeURIComponent;

/** The web page of a dashboard or report for this site (HTML for a browser, JSON on request). */
export function pageUrl(
  ctx: McpContext,
  a: ProjectActor,
  kind: 'dashboards' | 'reports',
  ident: string,
  filters: string[] = [],
): string {
  const query = filters.map((f) => `filter=${enc(f)}`).join('&');
  const path = apiHref((kind === 'dashboards' ? dashboardPath : reportPath)(a.projectId, ident));
  return `${ctx.engine.config.siteUrl}${path}${query ? `?${query}` : ''}`;
}

/** A PNG image block of an SVG chart. */
export async function pngBlock(svg: string, width: number): Promise<ImageContent> {
  return {
    type: 'image',
    data: (await svgToPng(svg, { width })).toString('base64'),
    mimeType: 'image/png',
  };
}

/**
 * The dashboard or report `name` (id, or exact title, then title in any case) among those the
 * caller may open, as the engine lists them (their roles, or a dashboard shared with them).
 */
export async function resolve(
  ctx: McpContext,
  a: ProjectActor,
  type: 'dashboard' | 'report',
  name: string,
): Promise<ObjectRow> {
  const rows = await ctx.engine.reports.list(a, type);
  const key = name.replace(/^\[|\]$/g, '').trim();
  const byId = rows.find((r) => r.ident === key);
  if (byId) return byId;
  for (const same of [
    (r: ObjectRow) => r.name === key,
    (r: ObjectRow) => r.name.toLowerCase() === key.toLowerCase(),
  ]) {
    const hits = rows.filter(same);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1)
      throw invalid(
        `${hits.length} ${type}s are titled "${key}": ${hits.map((h) => h.ident).join(', ')}; pass one id`,
        { valid: hits.map((h) => h.ident) },
      );
  }
  if (type === 'report') {
    // What the name is when it is no report the caller may run (a metric, say) — the model's
    // own lookup, which sees only what their roles open.
    let obj: { ident: string; name: string; type: string } | null = null;
    try {
      obj = (await findObject(ctx, a, key)).object;
    } catch (err) {
      if (!(err instanceof EngineError)) throw err;
    }
    if (obj && obj.type !== 'report')
      throw invalid(
        `[${obj.name}] (${obj.ident}) is a ${obj.type}, not a report; list_reports lists the reports`,
      );
    const row = obj && rows.find((r) => r.ident === obj.ident);
    if (row) return row;
  }
  const mine = rows.map((r) => `"${r.name}" (${r.ident})`);
  const which =
    mine.length === 0
      ? `you can open no ${type}s in this project`
      : mine.length <= 20
        ? `your ${type}s: ${mine.join(', ')}`
        : `list_${type}s lists the ${mine.length} you can open`;
  throw notFound(`${type} "${key}" not found; ${which}`, { ident: key, type });
}

const columnShape = z.object({
  title: z.string(),
  kind: z.string().optional().describe('attribute, measure…'),
  dataType: z.string(),
  format: z.string().optional().describe("The metric's display format"),
});
/** A pivot as the REST JSON has it (docs/api.md "pivot"): totals computed at their grain. */
const pivotShape = z
  .object({
    rows: z.array(columnShape).describe('Row dimensions'),
    columns: z.array(columnShape).describe('Column dimensions'),
    measures: z.array(columnShape),
    keys: z
      .array(z.object({ values: z.array(z.string()), level: z.number() }))
      .describe('Its columns in order; level < columns.length: a subtotal, 0: the grand total'),
    lines: z
      .array(
        z.object({
          values: z.array(z.string()),
          level: z.number(),
          cells: z.array(z.array(cellShape)).describe('cells[key][measure]'),
        }),
      )
      .describe('Its rows in order; level < rows.length: a subtotal, 0: the grand total'),
  })
  .describe(
    'A pivot table: every subtotal and total is the measure computed at that grain (an average of its rows, not of its cells)',
  );
const kpiShape = z
  .object({
    title: z.string(),
    value: cellShape,
    formatted: z.string(),
    period: z.string().optional().describe('The period the value is of (a result with a date)'),
    previous: z
      .object({ period: z.string(), value: cellShape, formatted: z.string() })
      .optional()
      .describe('The period before, compared with'),
    change: z
      .object({ value: z.number(), formatted: z.string(), percent: z.number().nullable() })
      .optional()
      .describe('value less previous.value, and in % of it (null when it is 0)'),
    series: z
      .array(z.object({ date: z.string(), value: z.number().nullable() }))
      .optional()
      .describe("Every period's value, oldest first"),
  })
  .describe(
    'The number shown, as computed (value) and formatted with its metric format; with a date in the result, the last period against the one before',
  );

export const columnsOut = (cs: ReportColumn[]) =>
  cs.map((c) => ({
    title: c.title,
    kind: c.kind,
    dataType: c.dataType,
    ...(c.format ? { format: c.format } : {}),
  }));
export const warningsOut = (r: ReportRun) =>
  r.warnings?.length ? { warnings: r.warnings.map((w) => w.message) } : {};

// ---- get_dashboard ----

const itemShape = z.object({
  id: z.string(),
  title: z.string(),
  report: z.string().optional().describe('The report it shows (run_report runs it alone)'),
  text: z.string().optional().describe('A text item: its text (it has no report)'),
  visualization: z
    .string()
    .optional()
    .describe('table, kpi, pivot, bar, line, area, pie, scatter, combo, funnel, gauge or map'),
  layout: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }),
  columns: z.array(columnShape).optional(),
  rows: z.array(z.array(cellShape)).optional().describe(CELLS_NOTE),
  totalRows: z.number().optional(),
  truncated: z.boolean().optional().describe('More rows than shown (totalRows has how many)'),
  kpi: kpiShape.optional(),
  pivot: pivotShape.optional(),
  image: z
    .number()
    .optional()
    .describe('Its chart is the n-th image of this answer (1 = the first image block)'),
  imageNote: z.string().optional().describe('Why a chart item has no image in this answer'),
  error: z.string().optional().describe('Why this item could not be computed'),
  warnings: z.array(z.string()).optional(),
});
type ItemOut = z.infer<typeof itemShape>;

export const dashboardShape = {
  project: z.string(),
  dashboard: z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    url: z.string().describe('The dashboard as a web page, with these filters'),
  }),
  filters: z
    .array(
      z.object({
        attribute: z.string(),
        title: z.string(),
        values: z.array(z.string()).describe('Values applied; empty: all'),
      }),
    )
    .describe('The filters this dashboard offers, with the values applied'),
  items: z.array(itemShape).describe('Items you may read, in layout order'),
  images: z.number().describe('PNG images following this text, one per charted item'),
  notes: z.array(z.string()).optional().describe('Rows cut, images left out'),
};
export type DashboardOut = z.infer<z.ZodObject<typeof dashboardShape>>;

export function itemOut(i: DashboardItemRun, n: number, exact = false): ItemOut {
  if (i.text !== undefined) return { id: i.id, title: i.title, layout: i.layout, text: i.text };
  const base = { id: i.id, title: i.title, report: i.report, layout: i.layout };
  const r = i.result;
  if (!r) return { ...base, error: i.error ?? 'not computed' };
  const rows = jsonRows(r.columns, r.rows.slice(0, n), exact);
  return {
    ...base,
    visualization: r.visualization.type,
    columns: columnsOut(r.columns),
    rows,
    totalRows: r.rows.length,
    truncated: rows.length < r.rows.length,
    ...(r.kpi ? { kpi: kpiJson(r, exact) } : {}),
    ...(r.pivot ? { pivot: pivotJson(r.pivot, exact) } : {}),
    ...warningsOut(r),
  };
}

// ---- run_report ----

export const reportShape = {
  report: z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    aql: z.string(),
    visualization: z
      .string()
      .describe('table, kpi, pivot, bar, line, area, pie, scatter, combo, funnel, gauge or map'),
    url: z.string().describe('The report as a web page'),
  }),
  ...resultShape,
  jobId: z.string().optional(),
  csv: z.string().optional().describe('Resource URI of the rows as CSV (absent without a job)'),
  columns: z.array(columnShape),
  kpi: kpiShape.optional(),
  pivot: pivotShape.optional(),
  image: z
    .boolean()
    .optional()
    .describe('true: the chart (or the KPI with its sparkline) follows as a PNG image'),
  note: z.string().optional().describe('Why there is no chart or number (yet)'),
};
export type ReportOut = z.infer<z.ZodObject<typeof reportShape>>;
