// A report's or dashboard item's chart as a PNG file (issue 34 "a PNG of a chart"): the same
// SVG the page, the PDF and the app draw (one renderer), computed as the caller, drawn to PNG
// off the event loop (engine/reports/png.ts). Written here: replies only carry text formats.
import type { Response } from 'express';
import { z } from 'zod';
import { notFound } from '../../engine/errors.js';
import { svgToPng } from '../../engine/reports/png.js';
import type { ReportRun } from '../../engine/reports/reports.js';
import { parseInput } from '../../engine/validate.js';
import { untilCallerGone } from '../../http/caller-gone.js';
import { sendMadeFile } from '../../http/file-response.js';
import type { RouteDef } from '../../http/router.js';

const sizeSchema = z.object({
  width: z.coerce.number().int().min(200).max(4000).default(1200),
});

async function sendPng(res: Response, r: ReportRun, what: string, title: string, width: number) {
  if (!r.chart?.svg)
    throw notFound(
      `${what} is not drawn as a chart (a ${r.visualization.type}): it has no PNG; download its rows as CSV or XLSX`,
      { visualization: r.visualization.type },
    );
  sendMadeFile(res, await svgToPng(r.chart.svg, { width }), 'image/png', title, 'png');
}

const WIDTH_TEXT = '`width` in pixels (200–4000, default 1200; the height keeps the aspect)';

export const chartPngRoutes: RouteDef[] = [
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/reports/:id/chart.png',
    ops: {
      GET: {
        access: 'member',
        description: `A report's chart as a PNG image, computed for you; ${WIDTH_TEXT}. A report shown as a table or a number has none (404).`,
        handler: async ({ engine, actor, params, query, res }) => {
          const { width } = parseInput(sizeSchema, query, 'query');
          const r = await engine.reports.report(actor, params.id!, {
            signal: untilCallerGone(res),
          });
          await sendPng(res, r, `report "${r.ident}"`, r.name, width);
        },
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/dashboards/:id/items/:item/chart.png',
    ops: {
      GET: {
        access: 'member',
        description: `One dashboard item's chart as a PNG image, computed for you with the dashboard's filters (\`filter\` as on the dashboard); ${WIDTH_TEXT}. An item that is not a chart has none (404).`,
        handler: async ({ engine, actor, params, query, res }) => {
          const { width } = parseInput(sizeSchema, query, 'query');
          const d = await engine.reports.dashboard(actor, params.id!, query.filter, {
            signal: untilCallerGone(res),
            only: params.item!,
          });
          const item = d.items[0];
          if (!item?.result)
            throw notFound(
              item?.text !== undefined
                ? `item "${params.item}" is a text: it has no chart`
                : item?.error
                  ? `item "${params.item}" could not be computed: ${item.error}`
                  : `item "${params.item}" not found on dashboard "${d.ident}"`,
              { item: params.item },
            );
          await sendPng(
            res,
            item.result,
            `item "${params.item}"`,
            `${d.name} - ${item.title}`,
            width,
          );
        },
      },
    },
  },
];
