// Dashboards and reports for assistants (SHARING.md "Rendering"): list the dashboards the
// caller can open, compute one (each item's rows, a KPI's number, each chart as a PNG image),
// and run a saved report with its chart or number. The engine computes everything as the
// caller — roles, shares and row filters — and draws the charts as SVG; here they only become
// PNG image blocks, and answers are capped like every other tool's.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectActor } from '../../engine/access/actor.js';
import { apiHref, dashboardPath, reportPath } from '../../contract/urls.js';
import { EngineError, invalid, notFound } from '../../engine/errors.js';
import type { ObjectRow } from '../../engine/model/store.js';
import { PNG_WIDTH, svgToPng } from '../../engine/reports/png.js';
import type { DashboardItemRun, ReportColumn, ReportRun } from '../../engine/reports/reports.js';
import { GRID_COLUMNS } from '../../engine/reports/reports.js';
import { isChart } from '../../engine/reports/visualization.js';
import { jsonRows } from '../../engine/aql/format.js';
import {
  CELLS_NOTE,
  cellShape,
  DEFAULT_ROWS,
  execute,
  MAX_ROWS,
  RESULT_NARROW,
  resultShape,
  RUN_AQL,
  type ResultOut,
} from './aql.js';
import type { Reply } from '../limits.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import { findObject } from './model.js';

/** Chart images per answer: each costs the model about as much as a page of text. */
export const MAX_IMAGES = 6;
/** A dashboard item's image is as wide as its share of the grid, but at least this. */
const MIN_ITEM_WIDTH = 480;

const enc = encodeURIComponent;

/** The web page of a dashboard or report for this site (HTML for a browser, JSON on request). */
function pageUrl(
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
async function pngBlock(svg: string, width: number): Promise<ImageContent> {
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
async function resolve(
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
const kpiShape = z
  .object({ title: z.string(), value: cellShape, formatted: z.string() })
  .describe('The number shown, as computed (value) and formatted with its metric format');

const columnsOut = (cs: ReportColumn[]) =>
  cs.map((c) => ({
    title: c.title,
    kind: c.kind,
    dataType: c.dataType,
    ...(c.format ? { format: c.format } : {}),
  }));
const warningsOut = (r: ReportRun) =>
  r.warnings?.length ? { warnings: r.warnings.map((w) => w.message) } : {};

// ---- get_dashboard ----

const itemShape = z.object({
  id: z.string(),
  title: z.string(),
  report: z.string().optional().describe('The report it shows (run_report runs it alone)'),
  text: z.string().optional().describe('A text item: its text (it has no report)'),
  visualization: z.string().optional().describe('table, kpi, bar, line, area, pie or scatter'),
  layout: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }),
  columns: z.array(columnShape).optional(),
  rows: z.array(z.array(cellShape)).optional().describe(CELLS_NOTE),
  totalRows: z.number().optional(),
  truncated: z.boolean().optional().describe('More rows than shown (totalRows has how many)'),
  kpi: kpiShape.optional(),
  image: z
    .number()
    .optional()
    .describe('Its chart is the n-th image of this answer (1 = the first image block)'),
  imageNote: z.string().optional().describe('Why a chart item has no image in this answer'),
  error: z.string().optional().describe('Why this item could not be computed'),
  warnings: z.array(z.string()).optional(),
});
type ItemOut = z.infer<typeof itemShape>;

const dashboardShape = {
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
type DashboardOut = z.infer<z.ZodObject<typeof dashboardShape>>;

function itemOut(i: DashboardItemRun, n: number): ItemOut {
  if (i.text !== undefined) return { id: i.id, title: i.title, layout: i.layout, text: i.text };
  const base = { id: i.id, title: i.title, report: i.report, layout: i.layout };
  const r = i.result;
  if (!r) return { ...base, error: i.error ?? 'not computed' };
  const rows = jsonRows(r.columns, r.rows.slice(0, n));
  return {
    ...base,
    visualization: r.visualization.type,
    columns: columnsOut(r.columns),
    rows,
    totalRows: r.rows.length,
    truncated: rows.length < r.rows.length,
    ...(r.kpi ? { kpi: r.kpi } : {}),
    ...warningsOut(r),
  };
}

// ---- run_report ----

const reportShape = {
  report: z.object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    aql: z.string(),
    visualization: z.string().describe('table, kpi, bar, line, area, pie or scatter'),
    url: z.string().describe('The report as a web page'),
  }),
  ...resultShape,
  jobId: z.string().optional(),
  csv: z.string().optional().describe('Resource URI of the rows as CSV (absent without a job)'),
  columns: z.array(columnShape),
  kpi: kpiShape.optional(),
  image: z.boolean().optional().describe('true: the chart follows as a PNG image'),
  note: z.string().optional().describe('Why there is no chart or number (yet)'),
};
type ReportOut = z.infer<z.ZodObject<typeof reportShape>>;

export function registerDashboardTools(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'list_dashboards',
    input: { project: projectArg },
    output: {
      dashboards: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          description: z.string(),
          items: z.number().describe('How many items it lays out'),
          url: z.string().describe('The dashboard as a web page'),
        }),
      ),
      total: z.number(),
      truncated: z.boolean().describe('Only the first dashboards are shown'),
    },
    annotations: READ_ONLY,
    narrow: 'the dashboards do not fit one answer',
    run: async ({ project }) => {
      const a = await actorFor(ctx, project);
      const all = (await ctx.engine.reports.list(a, 'dashboard')).map((d) => ({
        id: d.ident,
        title: d.name,
        description: d.description,
        items: ((d.def as { items?: unknown[] }).items ?? []).length,
        url: pageUrl(ctx, a, 'dashboards', d.ident),
      }));
      const shape = (n: number) => ({
        dashboards: all.slice(0, n),
        total: all.length,
        truncated: n < all.length,
      });
      return {
        data: shape(all.length),
        shrink: (d) => (d.dashboards.length > 1 ? shape(Math.ceil(d.dashboards.length / 2)) : null),
      };
    },
  });

  defineTool(server, ctx, {
    name: 'get_dashboard',
    input: {
      project: projectArg,
      dashboard: z.string().min(1).describe('Dashboard id or title (list_dashboards)'),
      filters: z
        .array(z.string())
        .max(1000)
        .optional()
        .describe(
          'Values for the dashboard\'s filters, each "attribute:value" (attribute id or title), e.g. ["Region:West"]; repeat an attribute for several values; "attribute:" selects all. Left out: the dashboard\'s own values.',
        ),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_ROWS)
        .optional()
        .describe(`Rows per item (default ${DEFAULT_ROWS}, max ${MAX_ROWS})`),
    },
    output: dashboardShape,
    annotations: READ_ONLY,
    narrow: 'ask for fewer rows per item with limit, or run its reports one by one with run_report',
    run: async ({ project, dashboard, filters, limit }, extra) => {
      const a = await actorFor(ctx, project);
      const row = await resolve(ctx, a, 'dashboard', dashboard);
      const d = await ctx.engine.reports.dashboard(a, row.ident, filters ?? [], {
        signal: extra.signal,
      });
      // One image per charted item, in layout order, up to MAX_IMAGES.
      const images: ImageContent[] = [];
      const imageOf = new Map<string, number>();
      const imageNotes = new Map<string, string>();
      let leftOut = 0;
      for (const i of d.items) {
        const svg = i.result?.chart?.svg;
        if (!svg) {
          if (i.result && isChart(i.result.visualization.type) && !i.result.rows.length)
            imageNotes.set(i.id, 'no rows, so no chart');
          continue;
        }
        if (images.length >= MAX_IMAGES) {
          leftOut++;
          imageNotes.set(
            i.id,
            `left out: at most ${MAX_IMAGES} images per answer; run_report ${i.report} draws it`,
          );
          continue;
        }
        const width = Math.max(MIN_ITEM_WIDTH, Math.round((PNG_WIDTH * i.layout.w) / GRID_COLUMNS));
        try {
          images.push(await pngBlock(svg, width));
          imageOf.set(i.id, images.length);
        } catch (err) {
          if (!(err instanceof EngineError)) throw err;
          imageNotes.set(i.id, `could not be drawn: ${err.message}`);
        }
      }
      const head = {
        project: a.projectId,
        dashboard: {
          id: d.ident,
          title: d.name,
          description: d.description,
          url: pageUrl(ctx, a, 'dashboards', d.ident, filters),
        },
        filters: d.filters.map((f) => ({
          attribute: f.attribute,
          title: f.title,
          values: f.values,
        })),
      };
      const shape = (n: number): DashboardOut => {
        const items = d.items.map((i) => {
          const out = itemOut(i, n);
          const image = imageOf.get(i.id);
          const note = imageNotes.get(i.id);
          return { ...out, ...(image ? { image } : {}), ...(note ? { imageNote: note } : {}) };
        });
        const notes: string[] = [];
        if (items.some((i) => i.truncated))
          notes.push(
            `rows cut to ${n} per item (totalRows says how many there are); pass a larger limit (up to ${MAX_ROWS}) or run an item's report with run_report for every row`,
          );
        if (leftOut)
          notes.push(
            `${leftOut} more chart(s) not shown as images (at most ${MAX_IMAGES} per answer); run_report draws each`,
          );
        return { ...head, items, images: images.length, ...(notes.length ? { notes } : {}) };
      };
      const most = Math.max(0, ...d.items.map((i) => i.result?.rows.length ?? 0));
      const first = Math.min(limit ?? DEFAULT_ROWS, Math.max(1, most));
      return {
        data: shape(first),
        images,
        shrink: (prev) => {
          const shown = Math.max(0, ...prev.items.map((i) => i.rows?.length ?? 0));
          return shown > 1 ? shape(Math.floor(shown / 2)) : null;
        },
      };
    },
  });

  defineTool(server, ctx, {
    name: 'run_report',
    input: {
      project: projectArg,
      report: z.string().min(1).describe('Report id or title'),
      limit: RUN_AQL.limit,
    },
    output: reportShape,
    annotations: READ_ONLY,
    narrow: RESULT_NARROW,
    run: async ({ project, report, limit }, extra) => {
      const a = await actorFor(ctx, project);
      const row = await resolve(ctx, a, 'report', report);
      const def = row.def as { aql?: unknown; visualization?: { type?: unknown } };
      const aql = String(def.aql ?? '');
      const head = {
        report: {
          id: row.ident,
          title: row.name,
          description: row.description,
          aql,
          visualization: String(def.visualization?.type ?? 'table'),
          url: pageUrl(ctx, a, 'reports', row.ident),
        },
      };
      const n = limit ?? DEFAULT_ROWS;
      // Rows come from a query job as run_aql's do (waited for, then RUNNING with a cursor);
      // the chart and number from the engine's report run, which reads the job's cached result.
      let paged: Reply<ResultOut>;
      try {
        paged = await execute(ctx, a, aql, n, extra);
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        // A report opened through a dashboard share may name objects the caller's roles hide:
        // only the engine's own report run may compute it (still under their row filter), and
        // when it cannot either, its error is the answer.
        return fromRun(await ctx.engine.reports.report(a, row.ident, { signal: extra.signal }));
      }
      if (paged.data.status === 'RUNNING')
        return {
          data: {
            ...head,
            ...paged.data,
            note: 'the query is still running: call run_report again for the chart or number, or run_aql with cursor for the rows',
          },
          links: paged.links,
        };
      let run: ReportRun | null = null;
      let note: string | undefined;
      try {
        run = await ctx.engine.reports.report(a, row.ident, { signal: extra.signal });
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        note = `no chart: ${err.message}`;
      }
      const extras = run ? await visuals(run) : { data: {}, images: [] };
      const formats = run?.columns;
      const merge = (r: ResultOut): ReportOut => ({
        ...head,
        ...r,
        columns: r.columns.map((c, i) => ({
          ...c,
          ...(formats?.[i]?.format ? { format: formats[i].format } : {}),
        })),
        ...extras.data,
        ...(note ? { note } : {}),
      });
      let rows = paged.data;
      return {
        data: merge(rows),
        links: paged.links,
        images: extras.images,
        shrink: async () => {
          const smaller = paged.shrink ? await paged.shrink(rows) : null;
          if (!smaller) return null;
          rows = smaller;
          return merge(smaller);
        },
      };

      /** The chart image and number of a computed report. */
      async function visuals(
        r: ReportRun,
      ): Promise<{ data: Partial<ReportOut>; images: ImageContent[] }> {
        const data: Partial<ReportOut> = r.kpi ? { kpi: r.kpi } : {};
        if (!r.chart) {
          if (isChart(r.visualization.type)) data.note = 'no rows, so no chart';
          return { data, images: [] };
        }
        try {
          return {
            data: { ...data, image: true },
            images: [await pngBlock(r.chart.svg, PNG_WIDTH)],
          };
        } catch (err) {
          if (!(err instanceof EngineError)) throw err;
          return { data: { ...data, note: `no chart: ${err.message}` }, images: [] };
        }
      }

      /** The whole answer from the engine's report run (no job: no cursor, no CSV). */
      async function fromRun(r: ReportRun): Promise<Reply<ReportOut>> {
        const v = await visuals(r);
        const shape = (count: number): ReportOut => {
          const rows = jsonRows(r.columns, r.rows.slice(0, count));
          return {
            ...head,
            status: 'OK',
            project: a.projectId,
            columns: columnsOut(r.columns),
            rows,
            offset: 0,
            totalRows: r.rows.length,
            truncated: rows.length < r.rows.length,
            cursor: null,
            ...warningsOut(r),
            ...v.data,
          };
        };
        return {
          data: shape(n),
          images: v.images,
          shrink: (d) => (d.rows.length > 1 ? shape(Math.floor(d.rows.length / 2)) : null),
        };
      }
    },
  });
}
