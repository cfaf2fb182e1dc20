// The get_dashboard tool (registered by ./index.ts).
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ImageContent } from '@modelcontextprotocol/sdk/types.js';
import { EngineError } from '../../engine/errors.js';
import { PNG_WIDTH } from '../../engine/reports/png.js';
import { GRID_COLUMNS } from '../../engine/reports/reports.js';
import { isChart } from '../../engine/reports/visualization.js';
import { DEFAULT_ROWS, exactArg, MAX_ROWS } from './aql-results.js';
import { actorFor, defineTool, projectArg, READ_ONLY, type McpContext } from './common.js';
import {
  MAX_IMAGES,
  MIN_ITEM_WIDTH,
  pageUrl,
  pngBlock,
  resolve,
  dashboardShape,
  type DashboardOut,
  itemOut,
} from './dashboard-views.js';

export function registerGetDashboard(server: McpServer, ctx: McpContext): void {
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
      exact: exactArg,
    },
    output: dashboardShape,
    annotations: READ_ONLY,
    narrow: 'ask for fewer rows per item with limit, or run its reports one by one with run_report',
    run: async ({ project, dashboard, filters, limit, exact }, extra) => {
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
          const out = itemOut(i, n, exact === true);
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
}
