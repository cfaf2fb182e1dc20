// PostgreSQL 15 (warehouse projects). What differs from DuckDB: no QUALIFY (the statement is
// wrapped in a subquery filtered on the condition), no any_value (min), percentiles as
// ordered-set aggregates, intervals from make_interval, EXTRACT for date parts, integer
// division (divisions are done in double precision), round only on numeric, LIKE's default
// backslash escape (turned off: DuckDB has none), FULL JOIN only on hashable conditions, and
// parameters whose types it cannot always infer (each one is cast to its value's type).
import {
  Dialect,
  type Assembly,
  type DatePart,
  type DateUnit,
  type SqlType,
  type ValueKind,
} from './dialect.js';

const TYPES: Record<SqlType, string> = {
  double: 'DOUBLE PRECISION',
  text: 'TEXT',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  // left(), right() and substring() take int4 positions; bigint does not cast implicitly.
  whole: 'INTEGER',
};

/** Whole units of `age(y, x)` (months, or years). */
const ageMonths = (x: string, y: string) =>
  `(EXTRACT(YEAR FROM age(${y}, ${x})) * 12 + EXTRACT(MONTH FROM age(${y}, ${x})))`;

export class PostgresDialect extends Dialect {
  readonly name = 'postgres';
  readonly title = 'PostgreSQL';

  protected typeName(t: SqlType): string {
    return TYPES[t];
  }

  /** A label is grouped by with its key: min() of text costs more than hashing it. */
  override readonly anyValueForLabels = false;

  /**
   * A bound text read as a date or time is typed so at once (`$1::date`): a text-to-date
   * cast depends on DateStyle, so PostgreSQL would not fold it and would convert per row.
   */
  override cast(sql: string, t: SqlType): string {
    const param = /^\$(\d+)::text$/.exec(sql);
    if (param && (t === 'date' || t === 'timestamp')) return `$${param[1]}::${TYPES[t]}`;
    return super.cast(sql, t);
  }

  /** Typed: `SELECT $1`, `coalesce($1, $2)` or `$1 || x` leave PostgreSQL no type to infer. */
  override placeholder(n: number, value: string | number | boolean | null): string {
    const type =
      typeof value === 'number'
        ? Number.isSafeInteger(value)
          ? 'bigint'
          : 'double precision'
        : typeof value === 'boolean'
          ? 'boolean'
          : 'text';
    return `$${n}::${type}`;
  }

  datePart(part: DatePart, sql: string): string {
    return `CAST(EXTRACT(${part} FROM ${sql}) AS INTEGER)`;
  }

  interval(unit: DateUnit, n: string): string {
    if (unit === 'quarter') return `make_interval(months => ${n} * 3)`;
    return `make_interval(${unit}s => ${n})`;
  }

  addDays(d: string, kind: 'date' | 'datetime', op: '+' | '-', n: string): string {
    return kind === 'date' ? `(${d} ${op} ${n})` : `(${d} ${op} make_interval(days => ${n}))`;
  }

  daysBetween(from: string, to: string): string {
    return `(CAST(${to} AS DATE) - CAST(${from} AS DATE))`;
  }

  unitsBetween(unit: DateUnit, x: string, y: string): string {
    const [a, b] = [this.cast(x, 'timestamp'), this.cast(y, 'timestamp')];
    const seconds = `EXTRACT(EPOCH FROM (${b} - ${a}))`;
    switch (unit) {
      case 'day':
        return `CAST(trunc(${seconds} / 86400) AS BIGINT)`;
      case 'week':
        return `CAST(trunc(${seconds} / 604800) AS BIGINT)`;
      case 'month':
        return `CAST(${ageMonths(a, b)} AS BIGINT)`;
      case 'quarter':
        return `CAST(trunc(${ageMonths(a, b)} / 3) AS BIGINT)`;
      case 'year':
        return `CAST(EXTRACT(YEAR FROM age(${b}, ${a})) AS BIGINT)`;
    }
  }

  /** Integers divide as integers in PostgreSQL; AQL divides numbers. */
  override divide(l: string, r: string): string {
    return `(${this.cast(l, 'double')} / NULLIF(${r}, 0))`;
  }

  /** round(double precision, int) does not exist, and numeric rounds half away from zero. */
  override round(x: string, digits: number | null): string {
    const rounded = `round(CAST(${x} AS NUMERIC)${digits === null ? '' : `, ${digits}`})`;
    return this.cast(rounded, 'double');
  }

  /** ESCAPE '': a backslash is an ordinary character, as in DuckDB. */
  override like(e: string, pattern: string, not: boolean, ci: boolean): string {
    return `(${e} ${not ? 'NOT ' : ''}${ci ? 'ILIKE' : 'LIKE'} ${pattern} ESCAPE '')`;
  }

  anyValue(sql: string, kind: ValueKind): string {
    return kind === 'boolean' ? `bool_or(${sql})` : `min(${sql})`;
  }

  /** min(boolean) does not exist: false < true, so MIN is "all true" and MAX "any true". */
  override minMax(fn: 'min' | 'max', sql: string, kind: ValueKind): string {
    if (kind === 'boolean') return `${fn === 'min' ? 'bool_and' : 'bool_or'}(${sql})`;
    return `${fn}(${sql})`;
  }

  percentile(sql: string, f: number): string {
    return `percentile_cont(${f}) WITHIN GROUP (ORDER BY ${sql})`;
  }

  /** Dates: the median instant (as DuckDB gives it), through seconds since 1970. */
  median(sql: string, kind: ValueKind): string {
    if (kind === 'date' || kind === 'datetime')
      return `CAST(to_timestamp(percentile_cont(0.5) WITHIN GROUP (ORDER BY EXTRACT(EPOCH FROM ${sql}))) AT TIME ZONE 'UTC' AS TIMESTAMP)`;
    return this.percentile(sql, 0.5);
  }

  /**
   * FULL JOIN needs hashable (or mergeable) conditions, and IS NOT DISTINCT FROM is neither:
   * the keys are compared as text, with null apart from every value.
   */
  override sameKey(a: string, b: string): string {
    return `coalesce(CAST(${a} AS TEXT), '') = coalesce(CAST(${b} AS TEXT), '') AND (${a} IS NULL) = (${b} IS NULL)`;
  }

  /**
   * No QUALIFY: the rows, the condition and the order's values are computed in a subquery,
   * and the outer query keeps the rows meeting the condition.
   */
  jsonList(
    fields: { name: string; sql: string }[],
    order: string,
    filter: string,
    bind: (v: string) => string,
  ): string {
    const pairs = fields.map((f) => `CAST(${bind(f.name)} AS text), ${f.sql}`).join(', ');
    return `coalesce(CAST(json_agg(json_build_object(${pairs}) ORDER BY ${order}) FILTER (WHERE ${filter}) AS text), '[]')`;
  }

  assemble(a: Assembly): string {
    const head = `WITH ${a.ctes.join(', ')} SELECT `;
    const where = a.where ? ` WHERE ${a.where}` : '';
    if (!a.qualify) {
      const select = a.select.map((s) => `${s.sql} AS ${s.as}`).join(', ');
      return `${head}${select} FROM ${a.from}${where}${this.tail(a)}`;
    }
    const names = new Set(a.select.map((s) => s.as));
    const inner = [
      ...a.select.map((s) => `${s.sql} AS ${s.as}`),
      `(${a.qualify}) AS qualify_`,
      ...a.order.flatMap((o, i) => (names.has(o.sql) ? [] : [`${o.sql} AS order_${i}`])),
    ];
    const order = a.order.map((o, i) => ({
      sql: names.has(o.sql) ? `q.${o.sql}` : `q.order_${i}`,
      desc: o.desc,
    }));
    const outer = a.select.map((s) => `q.${s.as}`).join(', ');
    return `${head}${outer} FROM (SELECT ${inner.join(', ')} FROM ${a.from}${where}) q WHERE q.qualify_${this.tail({ ...a, order })}`;
  }
}

export const POSTGRES = new PostgresDialect();
