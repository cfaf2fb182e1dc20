// The app's one way to write numbers and dates: measures grouped by the browser's locale with
// at most two decimals (1,588,368 and 12.35), or by their metric's own format as the server
// writes it (the same module: "6,716K mi" on screen, public page and PDF alike), dimensions
// as they are (the year 2001 stays 2001), dates and times in one style on every screen.
import { formatNumber as formatPattern } from '../shared/number-format.js';

const grouped = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });
const dateStyle = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeStyle = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'short',
});
const monthStyle = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const dayStyle = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** A measure's value: grouped, at most two decimals; anything else as it is. */
export function formatNumber(v: number | string): string {
  const n = typeof v === 'number' ? v : v.trim() === '' ? NaN : Number(v);
  return Number.isFinite(n) ? grouped.format(n) : String(v);
}

/** A measure's cell: its metric's format when it has one (`#,##0" mi"`), else formatNumber. */
export const formatMeasure = (v: number | string, format?: string): string =>
  format ? formatPattern(String(v), format) : formatNumber(v);

/** An axis's ticks, one way for the whole axis: compact when it reaches ten thousand (1.2M). */
export function tickFormat(ticks: number[]): (n: number) => string {
  const big = ticks.some((t) => Math.abs(t) >= 10_000);
  return (n) => (big ? compact.format(n) : grouped.format(n));
}

/** An instant (ISO text or Date) as a date and time: "Nov 26, 2026, 7:29 PM". */
export const formatDateTime = (v: string | Date): string =>
  dateTimeStyle.format(typeof v === 'string' ? new Date(v) : v);

/** An instant as a date: "Nov 26, 2026". */
export const formatDate = (v: string | Date): string =>
  dateStyle.format(typeof v === 'string' ? new Date(v) : v);

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * A date value of a result ("2024-03-01") for an axis: the month when every value is a first
 * of a month ("Mar 2024"), else the day; other text as it is. Read as UTC: a calendar date.
 */
export function dateLabeller(values: string[]): (v: string) => string {
  const months = values.length > 0 && values.every((v) => DAY.exec(v)?.[3] === '01');
  return (v) => {
    const m = DAY.exec(v);
    if (!m) return v;
    const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
    return (months ? monthStyle : dayStyle).format(d);
  };
}

/** A NEST cell in one line: each nested row's values, rows separated by "; ". */
export function nestedText(rows: Record<string, string | number | boolean | null>[]): string {
  return rows
    .map((r) =>
      Object.values(r)
        .map((v) => (typeof v === 'number' ? formatNumber(v) : v === null ? '–' : String(v)))
        .join(' '),
    )
    .join('; ');
}
