// The run_report tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { EngineError } from '../../engine/errors.js';
import { PNG_WIDTH } from '../../engine/reports/png.js';
import { kpiJson, type ReportRun } from '../../engine/reports/reports.js';
import { kpiSvg } from '../../engine/reports/kpi-svg.js';
import { isChart } from '../../engine/reports/visualization.js';
import { jsonRows } from '../../engine/aql/format.js';
import { pivotJson } from '../../web/report-json.js';
import {
  DEFAULT_ROWS,
  exactArg,
  execute,
  RESULT_NARROW,
  RUN_AQL,
  type ResultOut,
} from './aql-results.js';
import type { Reply } from '../limits.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import {
  pageUrl,
  pngBlock,
  resolve,
  columnsOut,
  warningsOut,
  reportShape,
  type ReportOut,
} from './dashboard-views.js';

export function registerRunReport(server: McpServer, ctx: McpContext): void {
  defineTool(server, ctx, {
    name: 'run_report',
    input: {
      project: projectArg,
      report: z.string().min(1).describe('Report id or title'),
      limit: RUN_AQL.limit,
      exact: exactArg,
    },
    output: reportShape,
    annotations: READ_ONLY,
    narrow: RESULT_NARROW,
    run: async ({ project, report, limit, exact: asked }, extra) => {
      const exact = asked === true;
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
        paged = await execute(ctx, a, aql, n, extra, exact);
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
        const data: Partial<ReportOut> = r.kpi
          ? { kpi: kpiJson(r, exact) }
          : r.pivot
            ? { pivot: pivotJson(r.pivot, exact) }
            : {};
        // A KPI over periods: its number, change and sparkline as one image.
        if (r.kpi?.series && r.kpi.series.length > 1)
          return {
            data: { ...data, image: true },
            images: [await pngBlock(kpiSvg(r.kpi), PNG_WIDTH / 2)],
          };
        if (!r.chart?.svg) {
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
          const rows = jsonRows(r.columns, r.rows.slice(0, count), exact);
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
