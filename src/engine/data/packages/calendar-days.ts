// The rows of the calendar package: one per day, computed in UTC so the result never depends
// on the server's time zone.
const DAY_MS = 86_400_000;

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** ISO order: index 0 is Monday. */
export const DAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
];

export interface CalendarDay {
  date: string;
  year: number;
  quarter: number;
  month: number;
  month_name: string;
  week: number;
  day_of_week: number;
  day_name: string;
  is_weekend: boolean;
  year_month: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A UTC date from its parts (years below 100 are taken literally, unlike Date.UTC). */
export function utcDate(year: number, month: number, day: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

/** Parses YYYY-MM-DD; null when it is not a real calendar date. */
export function parseIsoDate(s: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1) return null;
  const date = utcDate(y, mo, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
    ? date
    : null;
}

export const isoDate = (d: Date): string =>
  `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;

/** ISO 8601 day of week: 1 = Monday … 7 = Sunday. */
export const isoDayOfWeek = (d: Date): number => ((d.getUTCDay() + 6) % 7) + 1;

/** ISO 8601 week number (1–53): the week belongs to the year that holds its Thursday. */
export function isoWeek(d: Date): number {
  const thursday = new Date(d.getTime() + (4 - isoDayOfWeek(d)) * DAY_MS);
  const jan1 = utcDate(thursday.getUTCFullYear(), 1, 1);
  return Math.floor((thursday.getTime() - jan1.getTime()) / DAY_MS / 7) + 1;
}

export function calendarDay(d: Date): CalendarDay {
  const year = d.getUTCFullYear();
  const month = d.getUTCMonth() + 1;
  const dow = isoDayOfWeek(d);
  return {
    date: isoDate(d),
    year,
    quarter: Math.ceil(month / 3),
    month,
    month_name: MONTH_NAMES[month - 1]!,
    week: isoWeek(d),
    day_of_week: dow,
    day_name: DAY_NAMES[dow - 1]!,
    is_weekend: dow >= 6,
    year_month: `${pad(year, 4)}-${pad(month)}`,
  };
}

/** Every day from `from` to `to`, both included. */
export function* calendarDays(from: Date, to: Date): Generator<CalendarDay> {
  for (let t = from.getTime(); t <= to.getTime(); t += DAY_MS) yield calendarDay(new Date(t));
}
