// Computed reports and dashboards, and the shares of dashboards, as the API answers them
// (docs/api.md "Sharing and export").
import type { ChartSpec } from '../shared/chart/spec.js';
import type { ResolvedRule } from '../shared/conditional.js';
import type { PivotTable } from '../shared/pivot-layout.js';

export type { PivotTable };
import type { JsonCell } from './data.js';

/** A column of a computed report. */
export interface ReportColumn {
  title: string;
  kind: string;
  dataType: string;
  /** The display format of the metric this column shows, when it has one. */
  format?: string;
}

/** "No rows" explained: a text value compared in WHERE that matches no member. */
export interface QueryWarning {
  message: string;
  line: number;
  column: number;
  found: string;
  suggestions: string[];
}

/**
 * A `kpi` report's number, as computed and as shown. With a date in its result: the last
 * period's, compared with the one before, and every period's value (for a sparkline).
 */
export interface ReportKpi {
  title: string;
  value: JsonCell;
  formatted: string;
  /** The period the value is of ("Jan 2026"). */
  period?: string;
  previous?: { period: string; value: JsonCell; formatted: string };
  /** The value less the previous one; `percent` of the previous (null when that is 0). */
  change?: { value: number; formatted: string; percent: number | null };
  /** Every period's value, oldest first. */
  series?: { date: string; value: number | null }[];
}

/** What JSON says of a computed report: typed cells, the chart as its spec and SVG, the KPI. */
export interface ReportResult {
  columns: ReportColumn[];
  /** Integer and number columns as JSON numbers (text only beyond what a number holds). */
  rows: JsonCell[][];
  /** Rows the report has (an item shows at most the first 1000). */
  rowCount: number;
  kpi?: ReportKpi;
  chart?: { spec: ChartSpec; svg: string };
  /** A `pivot` visualization, totals computed by the engine (docs/api.md "pivot"). */
  pivot?: PivotTable<JsonCell>;
  /** A table's conditional formatting, resolved: `cellStyle` (shared/conditional.ts) colours a cell. */
  conditional?: ResolvedRule[];
  warnings?: QueryWarning[];
}

/** A dashboard in the list of those one can open. */
export interface DashboardSummary {
  ident: string;
  name: string;
  description: string;
  /** How many items the dashboard has. */
  items: number;
}

export interface DashboardFilter {
  attribute: string;
  title: string;
  /** The values selected now: the caller's pick, else the dashboard's own; empty: all. */
  values: string[];
  aql?: string;
  /** The items it narrows (left out: every item). */
  items?: string[];
  /** The attribute's data type (how its values are written in AQL). */
  dataType: string;
}

/**
 * One item of a computed dashboard: a report's result, or a text item's `text`, or why the
 * item could not be computed (`error`; the rest of the dashboard still is).
 */
export interface DashboardItem extends Partial<Omit<ReportResult, 'chart'>> {
  /** Its spec and SVG; the SVG left out when asked for without (`svg=false`: the app). */
  chart?: { spec: ChartSpec; svg?: string };
  id: string;
  title: string;
  report?: string;
  text?: string;
  /** The tab it is on, on a dashboard with tabs. */
  tab?: string;
  layout: { x: number; y: number; w: number; h: number };
  error?: string;
}

export interface DashboardRun {
  /** `refresh`: seconds between automatic refreshes, when the dashboard has them. */
  dashboard: { ident: string; name: string; description: string; refresh?: number };
  filters: DashboardFilter[];
  /** Its tabs in order; left out, the dashboard is one page. */
  tabs?: { id: string; title: string }[];
  items: DashboardItem[];
}

export type ShareType = 'private' | 'public';

/** A share of a dashboard. `url` only to those who may publish it: unfiltered Admins. */
export interface Share {
  dashboard: string;
  /** The dashboard's name. */
  name: string;
  type: ShareType;
  users: string[];
  emailNotif: boolean;
  url?: string;
  createdBy: string;
  created: string;
  /** Who changed it last; for a public share, the Admin whose rights compute its page. */
  updatedBy: string;
  updated: string;
}

/** A user invited as a plain member (a share naming a non-member, or an invitation). */
export interface InviteResult {
  id: string;
  status: 'invited' | 'updated';
  emailSent?: boolean;
  emailError?: string;
}

export interface Notified {
  id: string;
  emailSent: boolean;
  emailError?: string;
}

/** What a create or change of a share did besides the share itself. */
export interface ShareChange {
  share: Share;
  /** Named users who were not members and were invited as plain members. */
  invited: InviteResult[];
  /** Users e-mailed a link to the dashboard (`emailNotif`): every one on create, new ones on change. */
  notified: Notified[];
}
