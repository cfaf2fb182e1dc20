// Reports and dashboards rendered for the caller (SHARING.md "Rendering"): HTML pages with
// charts as inline SVG, JSON with each item's columns and rows, and a report's rows as
// CSV/TSV. The engine computes everything as the caller; this file picks the format.
import type { DashboardSummary } from '../../contract/dashboards.js';
import { dashboardPath, reportPath } from '../../contract/urls.js';
import type { Request } from 'express';
import { z } from 'zod';
import { notFound } from '../../engine/errors.js';
import { parseInput } from '../../engine/validate.js';
import { dashboardPage, foldDateFields, reportPage } from '../../web/report-pages.js';
import {
  dashboardItemJson,
  dashboardJson,
  svgParam,
  exactParam,
  reportJson,
} from '../../web/report-json.js';
import { resultSheet } from '../../engine/export/result-sheet.js';
import { sendPage } from '../../web/page.js';
import { enc, href, link, projectPath } from '../../http/links.js';
import { negotiate, type Format } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';
import { untilCallerGone } from '../../http/caller-gone.js';

const pagingSchema = z.object({
  limit: z.coerce.number().int().min(1).max(100_000).default(10_000),
  offset: z.coerce.number().int().min(0).default(0),
});

const format = (req: Request, offered: Format[]) =>
  negotiate(
    { method: req.method, accept: req.headers.accept, formatParam: req.query.format },
    offered,
  );

export const reportRoutes: RouteDef[] = [
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/dashboards',
    ops: {
      GET: {
        access: 'member',
        description:
          'The dashboards you can open (by your roles, or shared with you), with links to their pages.',
        handler: async ({ engine, actor }) => {
          const list = (await engine.reports.list(actor, 'dashboard')).map((d) => ({
            ident: d.ident,
            name: d.name,
            description: d.description,
            items: ((d.def as { items?: unknown[] }).items ?? []).length,
            link: [
              link('dashboard', dashboardPath(actor.projectId, d.ident), {
                id: d.ident,
                title: d.name,
              }),
            ],
          })) satisfies DashboardSummary[];
          return {
            title: 'Dashboards',
            body: { dashboards: list, link: list.map((d) => d.link[0]!) },
            tabular: list.map(({ ident, name, description, items }) => ({
              ident,
              name,
              description,
              items,
            })),
            filename: 'dashboards',
          };
        },
      },
    },
  },
  {
    // Before app/reports/:id, whose 405 would answer a POST here.
    group: 'Sharing and export',
    path: '/projects/:project/app/reports/execute',
    ops: {
      POST: {
        access: 'member',
        description:
          'A report that is not saved, computed for you: `{ aql, visualization }` (a saved report’s `def`) → the JSON of a report (`columns`, `rows` with `limit`/`offset`, `chart`, `kpi`, `pivot` with its totals at their grain).',
        handler: async ({ engine, actor, body, query, res }) => {
          const page = parseInput(pagingSchema, query, 'paging');
          const r = await engine.reports.compute(actor, body, { signal: untilCallerGone(res) });
          return {
            title: 'Report',
            body: {
              report: { visualization: r.visualization },
              ...reportJson(
                r,
                r.rows.slice(page.offset, page.offset + page.limit),
                exactParam(query),
              ),
              paging: { total: r.rows.length, ...page },
            },
          };
        },
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/reports/:id',
    ops: {
      GET: {
        access: 'member',
        description:
          'A report computed for you: HTML (its chart, number or table), JSON/YAML (`columns`, `rows` with `limit`/`offset`, `chart.svg`, `kpi`), or CSV/TSV (every row).',
        handler: async ({ engine, actor, params, query, req, res }) => {
          const f = format(req, ['json', 'yaml', 'csv', 'tsv', 'xlsx', 'html']);
          const page =
            f === 'json' || f === 'yaml' ? parseInput(pagingSchema, query, 'paging') : null;
          const exact = exactParam(query);
          const r = await engine.reports.report(actor, params.id!, {
            signal: untilCallerGone(res),
          });
          const self = reportPath(actor.projectId, r.ident);
          if (f === 'html') {
            sendPage(
              res,
              200,
              reportPage(r, {
                downloads: [
                  { title: 'CSV', href: href(`${self}?format=csv`) },
                  { title: 'JSON', href: href(`${self}?format=json`) },
                ],
              }),
            );
            return;
          }
          const rows = page ? r.rows.slice(page.offset, page.offset + page.limit) : r.rows;
          return {
            title: r.name,
            body: {
              report: {
                ident: r.ident,
                name: r.name,
                description: r.description,
                visualization: r.visualization,
              },
              ...reportJson(r, rows, exact),
              ...(page ? { paging: { total: r.rows.length, ...page } } : {}),
              link: [
                link('object.report', `${projectPath(actor.projectId)}/pmd/obj/${enc(r.ident)}`, {
                  id: r.ident,
                  title: r.name,
                }),
              ],
            },
            tabular: resultSheet(r),
            filename: r.name,
          };
        },
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/dashboards/:id/items/:item',
    ops: {
      GET: {
        access: 'member',
        description:
          "One item of a dashboard computed for you with the dashboard's filters (`filter` as on the dashboard): JSON/YAML (`item` with its first 1000 rows), or CSV/TSV/XLSX (every row).",
        handler: async ({ engine, actor, params, query, res }) => {
          const d = await engine.reports.dashboard(actor, params.id!, query.filter, {
            signal: untilCallerGone(res),
            only: params.item!,
          });
          const exact = exactParam(query);
          const item = d.items[0];
          const r = item?.result;
          if (!item || !r)
            throw notFound(
              item?.text !== undefined
                ? `item "${params.item}" is a text: it has no data`
                : `item "${params.item}" not found on dashboard "${d.ident}"`,
              { item: params.item },
            );
          return {
            title: `${d.name}: ${item.title}`,
            body: {
              item: dashboardItemJson(item, exact),
              link: [link('dashboard', dashboardPath(actor.projectId, d.ident), { id: d.ident })],
            },
            tabular: resultSheet(r),
            filename: `${d.name} - ${item.title}`,
          };
        },
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/dashboards/:id',
    ops: {
      GET: {
        access: 'member',
        description:
          "A dashboard computed for you: HTML (its layout grid, charts, tables, KPIs) or JSON/YAML (each item's columns and rows). `filter=<attribute>:<value>` (repeatable) or `filter[<attribute>]=<value>` sets its filters.",
        handler: async ({ engine, actor, params, query, req, res }) => {
          const f = format(req, ['json', 'yaml', 'html']);
          const exact = exactParam(query);
          const d = await engine.reports.dashboard(actor, params.id!, foldDateFields(query), {
            signal: untilCallerGone(res),
            choices: f === 'html',
            // The HTML page inlines its charts' SVG whatever is asked.
            svg: f === 'html' || svgParam(query),
          });
          const self = dashboardPath(actor.projectId, d.ident);
          if (f === 'html') {
            sendPage(
              res,
              200,
              dashboardPage(d, {
                formAction: href(self),
                report: (ident) => href(reportPath(actor.projectId, ident)),
              }),
            );
            return;
          }
          return {
            title: d.name,
            body: {
              ...dashboardJson(d, exact),
              link: [
                link(
                  'object.dashboard',
                  `${projectPath(actor.projectId)}/pmd/obj/${enc(d.ident)}`,
                  {
                    id: d.ident,
                    title: d.name,
                  },
                ),
                ...d.items.flatMap((i) =>
                  i.report
                    ? [
                        link('report', reportPath(actor.projectId, i.report), {
                          id: i.report,
                          title: i.title,
                        }),
                      ]
                    : [],
                ),
              ],
            },
          };
        },
      },
    },
  },
];
