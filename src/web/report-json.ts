// Computed reports and dashboards as JSON: typed cells, the chart as its spec and SVG, the KPI.
// The REST door's report routes and the site's public share pages answer in this shape.
import type {
  DashboardItem,
  DashboardRun as DashboardJson,
  ReportResult,
} from '../contract/dashboards.js';
import {
  kpiJson,
  type DashboardItemRun,
  type DashboardRun,
  type ReportRun,
} from '../engine/reports/reports.js';
import { z } from 'zod';
import { jsonRows } from '../engine/aql/format.js';
import { pivotJson } from '../engine/reports/pivot.js';

export { pivotJson, pivotTabular } from '../engine/reports/pivot.js';
import { parseInput } from '../engine/validate.js';

const exactSchema = z.object({ exact: z.enum(['true', 'false']).optional() });

/** The `exact` query parameter of a JSON answer with cells: true or false (400 otherwise). */
export const exactParam = (query: unknown): boolean =>
  parseInput(exactSchema, query, 'query').exact === 'true';

const svgSchema = z.object({ svg: z.enum(['true', 'false']).optional() });

/** The `svg` query parameter of a dashboard's JSON: false leaves its charts' SVG out. */
export const svgParam = (query: unknown): boolean =>
  parseInput(svgSchema, query, 'query').svg !== 'false';

/** Rows of a dashboard item in JSON (a report's own page gives all, in pages). */
const ITEM_ROWS = 1000;

/**
 * What JSON says of a computed report: typed cells, the chart as its spec and SVG, or the KPI.
 * `exact`: fractions no JSON number holds as their exact text (the `exact=true` parameter).
 */
export function reportJson(r: ReportRun, rows: string[][] = r.rows, exact = false): ReportResult {
  // A report's own routes always draw its chart (only a dashboard's items may be asked bare).
  const { chart, ...rest } = resultJson(r, rows, exact);
  return { ...rest, ...(chart ? { chart: { spec: chart.spec, svg: chart.svg ?? '' } } : {}) };
}

function resultJson(
  r: ReportRun,
  rows: string[][],
  exact: boolean,
): Omit<ReportResult, 'chart'> & Pick<DashboardItem, 'chart'> {
  return {
    columns: r.columns,
    rows: jsonRows(r.columns, rows, exact),
    rowCount: r.rows.length,
    ...(r.kpi ? { kpi: kpiJson(r, exact) } : {}),
    ...(r.chart ? { chart: r.chart } : {}),
    ...(r.pivot ? { pivot: pivotJson(r.pivot, exact) } : {}),
    ...(r.conditional ? { conditional: r.conditional } : {}),
    ...(r.warnings ? { warnings: r.warnings } : {}),
  };
}

/** A computed dashboard as JSON (the app's route and a public share's page). */
export const dashboardJson = (d: DashboardRun, exact = false): DashboardJson => ({
  dashboard: {
    ident: d.ident,
    name: d.name,
    description: d.description,
    ...(d.refresh ? { refresh: d.refresh } : {}),
  },
  filters: d.filters,
  ...(d.tabs ? { tabs: d.tabs } : {}),
  items: d.items.map((i) => dashboardItemJson(i, exact)),
});

export function dashboardItemJson(i: DashboardItemRun, exact = false): DashboardItem {
  return {
    id: i.id,
    title: i.title,
    ...(i.report ? { report: i.report } : { text: i.text }),
    ...(i.tab ? { tab: i.tab } : {}),
    layout: i.layout,
    ...(i.error ? { error: i.error } : {}),
    ...(i.result ? resultJson(i.result, i.result.rows.slice(0, ITEM_ROWS), exact) : {}),
  };
}
