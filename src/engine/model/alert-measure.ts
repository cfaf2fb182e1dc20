// What an alert evaluates, as AQL: its metric or its one measure, and for `change%` against a
// period the same measure over this period so far and over the same days of the previous one
// (a fair comparison on the day a month starts: 1 day against 1 day, not against 31).

/** An alert's condition (model/defs.ts alertDef checks it). */
export interface AlertCondition {
  op: '>' | '>=' | '<' | '<=' | 'change%' | 'nodata';
  /** Absent only for `nodata`. */
  value?: number;
  /** For `change%`: compare this period to date with the same span of the previous one. */
  period?: { date: string; grain: 'day' | 'week' | 'month' | 'quarter' | 'year' };
}

/** What an alert watches: a metric, or one measure as AQL. */
export interface AlertWatch {
  metric?: string;
  aql?: string;
}

/** The measure as one AQL query (a metric by its reference). */
export function alertMeasure(def: AlertWatch): string {
  return def.metric ? `SELECT [${def.metric}]` : def.aql!;
}

/** A reference as written, with or without its brackets. */
const ref = (s: string) => `[${s.trim().replace(/^\[(.*)\]$/s, '$1')}]`;

/**
 * The measure within a period of `date` at `grain`: the current one from its start to today
 * (`back` 0), or the previous one from its start to the same day (`back` 1). TODAY() follows
 * the project's time zone, as everywhere in AQL.
 */
export function periodMeasure(
  def: AlertWatch,
  period: { date: string; grain: string },
  back: 0 | 1,
): string {
  const g = `"${period.grain}"`;
  const day = back ? `DATE_ADD(${g}, -1, TODAY())` : 'TODAY()';
  const d = ref(period.date);
  const within = `${d} >= DATE_TRUNC(${g}, ${day}) AND ${d} < DATE_ADD("day", 1, ${day})`;
  // A metric takes the filter as a metric does; a written measure is nested so its own WHERE
  // (if any) and the period's both hold.
  return def.metric
    ? `SELECT [${def.metric}] WHERE ${within}`
    : `SELECT (${def.aql}) WHERE ${within}`;
}
