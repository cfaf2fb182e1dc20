// An alert's def as the delivery code reads it (checked on write by model/defs.ts alertDef).
import type { DashboardRun } from '../reports/reports.js';
import type { AlertCondition } from '../model/alert-measure.js';
export type { AlertCondition };
export interface AlertDef {
  metric?: string;
  aql?: string;
  condition: AlertCondition;
  email?: string[];
  webhook?: { url: string; secret: string };
  paused?: boolean;
}

/** A subscription's def as the delivery code reads it (checked by model/defs.ts). */
export interface SubscriptionDef {
  dashboard: string;
  recipients: string[];
  schedule: { cron: string; timezone?: string };
  format: 'pdf' | 'xlsx' | 'csv';
  items?: string[];
  filters?: string[];
  paused?: boolean;
}

/** A dashboard as the printed page (HTML) a PDF export makes of it. */
export type DashboardPrinter = (run: DashboardRun) => string;
