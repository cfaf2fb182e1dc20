// Numbers and dates on charts, written as the app writes them (src/app/format.ts) so a chart
// reads the same on screen, in a PDF and in the chat: axis numbers compact once the axis
// reaches ten thousand (25K), else grouped with at most two decimals; dates at the data's
// grain (months as "Jan 2025"). en-US: the server writes numbers in one style.

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** A value as a tooltip or label shows it: grouped, at most two decimals. */
export const groupedNumber = (n: number): string => grouped.format(n);

/** An axis label: compact when the axis's domain reaches ten thousand. */
export function axisNumber(value: unknown, domain: readonly number[]): string {
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const big = domain.some((d) => Math.abs(d) >= 10_000);
  return (big ? compact : grouped).format(n);
}

export type Grain = 'year' | 'month' | 'day' | 'minute';

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?/;

/** An ISO date or datetime as UTC milliseconds (a zone-less time read as UTC), else NaN. */
export function dateMs(v: string): number {
  const m = DATE.exec(v);
  if (!m) return NaN;
  return Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
}

/** The coarsest grain every value sits on: years (Jan 1), months (the 1st), days, minutes. */
export function grainOf(values: readonly string[]): Grain {
  const parts = values.map((v) => DATE.exec(v)).filter((m): m is RegExpExecArray => !!m);
  const midnight = parts.every((m) => !m[4] || (+m[4] === 0 && +m[5]! === 0 && +(m[6] ?? 0) === 0));
  if (!parts.length || !midnight) return 'minute';
  if (parts.every((m) => m[2] === '01' && m[3] === '01')) return 'year';
  if (parts.every((m) => m[3] === '01')) return 'month';
  return 'day';
}

const STYLES: Record<Grain, Intl.DateTimeFormat> = {
  year: new Intl.DateTimeFormat('en-US', { year: 'numeric', timeZone: 'UTC' }),
  month: new Intl.DateTimeFormat('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' }),
  day: new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }),
  minute: new Intl.DateTimeFormat('en-US', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'UTC',
  }),
};

/** A date at its grain ("Jan 2025"); text that is not a date as it is. */
export function dateLabel(v: string, grain: Grain): string {
  const ms = dateMs(v);
  return Number.isNaN(ms) ? v : STYLES[grain].format(new Date(ms));
}
