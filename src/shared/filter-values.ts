// A dashboard filter's values as an AQL condition. Values are literals of the attribute's data
// type; a date (or date and time) attribute also takes ranges, so a dashboard can say "the
// last 30 days" once and stay current:
//   `2024-01-01..2024-03-31` (both days included; either end may be left out),
//   `last 7 days` (any 1–3660, today included), `this month`, `this year`.
// A value that is none of these is refused (a FilterValueError: the API's 400 naming `filter`
// and the attribute). Shared: the engine applies filters, the app writes them into a drill's AQL.

export class FilterValueError extends Error {
  constructor(
    message: string,
    readonly attribute: string,
  ) {
    super(message);
  }
}

const DATE_TYPES = new Set(['date', 'datetime']);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const LAST_DAYS = /^last (\d{1,4}) days?$/;
const MAX_DAYS = 3660;

const bad = (message: string, attribute: string) => new FilterValueError(message, attribute);

/** A real calendar day written YYYY-MM-DD (2024-02-30 is not). */
function isDay(s: string): boolean {
  if (!DAY.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/** A value as an AQL literal for an attribute of this data type (400 when it cannot be one). */
export function filterLiteral(v: string, dataType: string, attribute: string): string {
  if (dataType === 'integer' || dataType === 'number') {
    if (v.trim() === '' || !Number.isFinite(Number(v)))
      throw bad(`filter value "${v}" for ${attribute} must be a number`, attribute);
    return String(Number(v));
  }
  if (dataType === 'boolean') {
    const b = v.trim().toLowerCase();
    if (b !== 'true' && b !== 'false')
      throw bad(`filter value "${v}" for ${attribute} must be true or false`, attribute);
    return b.toUpperCase();
  }
  return `"${v.replace(/"/g, '""')}"`;
}

/** One value's condition on `ref` (an AQL reference): equality, or a range of days. */
function valueCondition(ref: string, v: string, dataType: string, attribute: string): string {
  if (!DATE_TYPES.has(dataType)) return `${ref} = ${filterLiteral(v, dataType, attribute)}`;
  const text = v.trim().toLowerCase().replace(/\s+/g, ' ');
  // Days are compared as [from, day after to): a date and time on the last day counts.
  const between = (from: string | null, untilExcl: string | null) =>
    [from && `${ref} >= ${from}`, untilExcl && `${ref} < ${untilExcl}`]
      .filter(Boolean)
      .join(' AND ');
  const last = LAST_DAYS.exec(text);
  if (last) {
    const n = Number(last[1]);
    if (n < 1 || n > MAX_DAYS)
      throw bad(`filter value "${v}" for ${attribute}: last 1 to ${MAX_DAYS} days`, attribute);
    return between(`DATE_ADD("day", ${1 - n}, TODAY())`, 'DATE_ADD("day", 1, TODAY())');
  }
  if (text === 'this month' || text === 'this year') {
    const unit = text.slice(5);
    const start = `DATE_TRUNC("${unit}", TODAY())`;
    return between(start, `DATE_ADD("${unit}", 1, ${start})`);
  }
  const range = /^(.*)\.\.(.*)$/.exec(text);
  const [from, to] = range ? [range[1]!.trim(), range[2]!.trim()] : [text, text];
  for (const d of [from, to])
    if (d !== '' && !isDay(d))
      throw bad(
        `filter value "${v}" for ${attribute} must be a day (YYYY-MM-DD), a range of days (2024-01-01..2024-03-31), "last 30 days", "this month" or "this year"`,
        attribute,
      );
  if (!from && !to)
    throw bad(`filter value "${v}" for ${attribute}: a range needs a first or last day`, attribute);
  if (from && to && from > to)
    throw bad(`filter value "${v}" for ${attribute}: the range ends before it starts`, attribute);
  return between(from ? `"${from}"` : null, to ? `DATE_ADD("day", 1, "${to}")` : null);
}

/** The condition of one filter's values: any of them (null when none is picked). */
export function valuesCondition(
  attribute: string,
  values: string[],
  dataType: string,
): string | null {
  if (!values.length) return null;
  const ref = `[${attribute}]`;
  if (!DATE_TYPES.has(dataType))
    return `${ref} IN (${values.map((v) => filterLiteral(v, dataType, attribute)).join(', ')})`;
  const parts = values.map((v) => `(${valueCondition(ref, v, dataType, attribute)})`);
  return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
}
