// Computed reports and dashboards as JSON: typed cells, the chart as its spec and SVG, the KPI.
// The REST door's report routes and the site's public share pages answer in this shape.
import type {
  DashboardItem,
  DashboardRun as DashboardJson,
  ReportResult,
} from '../contract/dashboards.js';
import type { DashboardItemRun, DashboardRun, ReportRun } from '../engine/reports/reports.js';
import { jsonRows } from '../engine/aql/format.js';

/** Rows of a dashboard item in JSON (a report's own page gives all, in pages). */
const ITEM_ROWS = 1000;

/** What JSON says of a computed report: typed cells, the chart as its spec and SVG, or the KPI. */
export function reportJson(r: ReportRun, rows: string[][] = r.rows): ReportResult {
  return {
    columns: r.columns,
    rows: jsonRows(r.columns, rows),
    rowCount: r.rows.length,
    ...(r.kpi ? { kpi: r.kpi } : {}),
    ...(r.chart ? { chart: r.chart } : {}),
    ...(r.warnings ? { warnings: r.warnings } : {}),
  };
}

/** A computed dashboard as JSON (the app's route and a public share's page). */
export const dashboardJson = (d: DashboardRun): DashboardJson => ({
  dashboard: { ident: d.ident, name: d.name, description: d.description },
  filters: d.filters,
  items: d.items.map(dashboardItemJson),
});

export function dashboardItemJson(i: DashboardItemRun): DashboardItem {
  return {
    id: i.id,
    title: i.title,
    ...(i.report ? { report: i.report } : { text: i.text }),
    layout: i.layout,
    ...(i.error ? { error: i.error } : {}),
    ...(i.result ? reportJson(i.result, i.result.rows.slice(0, ITEM_ROWS)) : {}),
  };
}
