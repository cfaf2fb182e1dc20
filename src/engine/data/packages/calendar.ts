// The `calendar` package: a date dimension for a chosen range, so any date column can be
// broken down by year, quarter, month, ISO week or weekday.
import { z } from 'zod';
import { invalid } from '../../errors.js';
import { parseInput } from '../../validate.js';
import { toCsv } from '../../../shared/delimited.js';
import { calendarDays, parseIsoDate, utcDate } from './calendar-days.js';
import type { DataPackage, PackageColumn } from './package.js';

/** Ranges longer than this are refused (a 200-year calendar is 73,000 rows). */
export const MAX_YEARS = 200;

const COLUMNS: PackageColumn[] = [
  {
    id: 'date',
    title: 'Calendar Date',
    dataType: 'date',
    objectType: 'A',
    description: 'the day (primary key)',
  },
  {
    id: 'year',
    title: 'Year',
    dataType: 'integer',
    objectType: 'A',
    description: 'calendar year, e.g. 2024',
  },
  {
    id: 'quarter',
    title: 'Quarter',
    dataType: 'integer',
    objectType: 'A',
    description: 'quarter of the year, 1–4',
  },
  {
    id: 'month',
    title: 'Month',
    dataType: 'integer',
    objectType: 'A',
    description: 'month of the year, 1–12',
  },
  {
    id: 'month_name',
    title: 'Month Name',
    dataType: 'string',
    objectType: 'L',
    labelOf: 'month',
    description: 'English month name, a label of month',
  },
  {
    id: 'week',
    title: 'Week',
    dataType: 'integer',
    objectType: 'A',
    description:
      'ISO 8601 week number, 1–53 (days around New Year may belong to the neighbouring year’s week)',
  },
  {
    id: 'day_of_week',
    title: 'Day of Week',
    dataType: 'integer',
    objectType: 'A',
    description: 'ISO day of the week, 1 = Monday … 7 = Sunday',
  },
  {
    id: 'day_name',
    title: 'Day Name',
    dataType: 'string',
    objectType: 'L',
    labelOf: 'day_of_week',
    description: 'English weekday name, a label of day_of_week',
  },
  {
    id: 'is_weekend',
    title: 'Weekend',
    dataType: 'boolean',
    objectType: 'A',
    description: 'true on Saturdays and Sundays',
  },
  {
    id: 'year_month',
    title: 'Year Month',
    dataType: 'string',
    objectType: 'A',
    description: 'year and month, e.g. 2024-03',
  },
];

const zDate = z.string().refine((s) => parseIsoDate(s) !== null, 'must be a date YYYY-MM-DD');
const paramsSchema = z.object({ from: zDate.optional(), to: zDate.optional() }).strict();

/** The default range: the last 10 full years to the end of next year. */
function defaults(now = new Date()): { from: string; to: string } {
  const y = now.getUTCFullYear();
  return { from: `${y - 10}-01-01`, to: `${y + 1}-12-31` };
}

export const calendarPackage: DataPackage = {
  id: 'calendar',
  name: 'Calendar',
  description:
    'A date dimension: one row per day of the chosen range with year, quarter, month, ISO week and weekday. Join it to date columns to break any data down by calendar periods.',
  dataset: 'calendar',
  primaryKey: 'date',
  columns: COLUMNS,
  parameters() {
    const d = defaults();
    return {
      from: { type: 'date', description: 'first day, YYYY-MM-DD', default: d.from },
      to: {
        type: 'date',
        description: `last day, YYYY-MM-DD (at most ${MAX_YEARS} years after from)`,
        default: d.to,
      },
    };
  },
  resolve(input) {
    const p = { ...defaults(), ...parseInput(paramsSchema, input ?? {}, 'calendar parameters') };
    const from = parseIsoDate(p.from)!;
    const to = parseIsoDate(p.to)!;
    if (to < from)
      throw invalid(`parameter "to" (${p.to}) is before "from" (${p.from})`, {
        field: 'parameters.to',
        from: p.from,
        to: p.to,
      });
    const limit = utcDate(
      from.getUTCFullYear() + MAX_YEARS,
      from.getUTCMonth() + 1,
      from.getUTCDate(),
    );
    if (to >= limit) {
      throw invalid(
        `the calendar range ${p.from} – ${p.to} is over ${MAX_YEARS} years; choose a shorter one`,
        { field: 'parameters.to', from: p.from, to: p.to, maxYears: MAX_YEARS },
      );
    }
    return { from: p.from, to: p.to };
  },
  csv(params) {
    const days = calendarDays(parseIsoDate(params.from!)!, parseIsoDate(params.to!)!);
    const ids = COLUMNS.map((c) => c.id);
    return toCsv(
      ids,
      (function* () {
        for (const d of days) yield ids.map((id) => d[id as keyof typeof d]);
      })(),
    );
  },
  joinable: { dataType: 'date', what: 'dates' },
};
