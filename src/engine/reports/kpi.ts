// A `kpi` report's number. With a date among its columns (SELECT DATE_TRUNC("month", [Date]),
// [Flights]) it is the last period's value, compared with the period before (the change,
// absolute and in %), and the series of every period for a sparkline; else the first row's.
import type { ReportKpi } from '../../contract/dashboards.js';
import { jsonCell } from '../aql/format.js';
import { dateLabel, dateMs, grainOf } from '../../shared/chart/format.js';
import { defaultNumber, formatNumber } from '../../shared/number-format.js';
import type { ChartTable } from './chart.js';
import { kpiColumn, type Visualization } from './visualization.js';

export type Kpi = ReportKpi;

type Column = ChartTable['columns'][number] & { format?: string };

const isDate = (c: Column) => c.dataType === 'date' || c.dataType === 'datetime';

/** The rows of the periods, oldest first (none when the result has no date dimension). */
function periods(table: ChartTable, value: number): { at: number; rows: string[][] } | undefined {
  const at = table.columns.findIndex((c, i) => i !== value && isDate(c) && c.kind !== 'measure');
  if (at < 0 || table.rows.length < 1) return undefined;
  const rows = table.rows
    .filter((r) => !Number.isNaN(dateMs(r[at] ?? '')))
    .sort((a, b) => dateMs(a[at]!) - dateMs(b[at]!));
  return rows.length ? { at, rows } : undefined;
}

/** The row whose value the KPI shows: the last period's, else the first. */
export function kpiRow(vis: Visualization, table: ChartTable): string[] | undefined {
  const p = periods(table, kpiColumn(vis, table));
  return p ? p.rows[p.rows.length - 1] : table.rows[0];
}

export function computeKpi(vis: Visualization, table: ChartTable, fallback: string): Kpi {
  const i = kpiColumn(vis, table);
  const col = table.columns[i] as Column | undefined;
  const pattern = col?.format ?? (typeof vis.format === 'string' ? vis.format : undefined);
  const show = (text: string) =>
    text === '' ? '–' : pattern ? formatNumber(text, pattern) : defaultNumber(text);
  const cell = (text: string) => jsonCell(text, col?.dataType ?? 'string');
  const p = periods(table, i);
  const row = p ? p.rows[p.rows.length - 1] : table.rows[0];
  const text = row?.[i] ?? '';
  const kpi: Kpi = {
    title: col?.title ?? fallback,
    value: row ? cell(text) : null,
    formatted: show(text),
  };
  if (!p) return kpi;
  const grain = grainOf(p.rows.map((r) => r[p.at]!));
  const period = (r: string[]) => dateLabel(r[p.at]!, grain);
  const num = (r: string[] | undefined) => {
    const n = r?.[i] === undefined || r[i] === '' ? NaN : Number(r[i]);
    return Number.isFinite(n) ? n : null;
  };
  kpi.period = period(row!);
  kpi.series = p.rows.map((r) => ({ date: r[p.at]!, value: num(r) }));
  const prev = p.rows[p.rows.length - 2];
  if (!prev) return kpi;
  kpi.previous = {
    period: period(prev),
    value: cell(prev[i] ?? ''),
    formatted: show(prev[i] ?? ''),
  };
  const [now, before] = [num(row), num(prev)];
  if (now !== null && before !== null) {
    const delta = Number((now - before).toPrecision(15));
    const sign = delta > 0 ? '+' : delta < 0 ? '−' : '';
    kpi.change = {
      value: delta,
      formatted: sign + show(String(Math.abs(delta))),
      percent: before === 0 ? null : Number(((delta / Math.abs(before)) * 100).toPrecision(15)),
    };
  }
  return kpi;
}
