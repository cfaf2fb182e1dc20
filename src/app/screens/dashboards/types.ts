// The shapes the API answers for dashboards and shares (docs/api.md, "Sharing and export").

export interface DashboardSummary {
  ident: string;
  name: string;
  description?: string;
  /** How many items the dashboard has. */
  items: number;
}

export interface DashboardFilter {
  attribute: string;
  title: string;
  /** The values selected now: the caller's pick, else the dashboard's own. */
  values: string[];
  aql?: string;
  dataType: string;
}

export interface Column {
  title: string;
  kind: string;
  dataType: string;
  format?: string;
}

export type Cell = string | number | null;

export interface DashboardItem {
  id: string;
  title: string;
  /** The report it shows; a text item has `text` instead (and no columns or rows). */
  report?: string;
  text?: string;
  layout: { x: number; y: number; w: number; h: number };
  columns: Column[];
  /** Integer and number columns as JSON numbers (text only beyond what a number holds). */
  rows: Cell[][];
  rowCount: number;
  kpi?: { title: string; value: Cell; formatted: string };
  chart?: { svg: string };
  warnings?: string[];
  error?: string;
}

export interface DashboardRun {
  dashboard: { ident: string; name: string; description?: string };
  filters: DashboardFilter[];
  items: DashboardItem[];
}

export type ShareType = 'private' | 'public';

export interface Share {
  dashboard: string;
  name: string;
  type: ShareType;
  users: string[];
  emailNotif: boolean;
  /** The public address: only to Admins without a row filter. */
  url?: string;
  createdBy: string;
  created: string;
  updatedBy: string;
  updated: string;
}

/** What a create or change of a share answers. */
export interface ShareChange {
  share: Share;
  invited?: { id: string }[];
  notified?: { id: string; emailSent: boolean; emailError?: string }[];
}
