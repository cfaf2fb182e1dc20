// The SQL dialect seam (modelled on Malloy's packages/malloy/src/dialect): every choice the
// compiler makes that one database spells differently from another goes through a Dialect.
// The base class writes standard SQL; DuckDbDialect and PostgresDialect override what their
// database spells its own way. (Every construct of AQL has a PostgreSQL form; a dialect that
// lacks one would throw an AqlError naming it here, at compile time.)

/** The SQL types the compiler casts to. */
export type SqlType = 'double' | 'text' | 'date' | 'timestamp' | 'integer' | 'bigint' | 'whole';

export type DatePart = 'YEAR' | 'QUARTER' | 'MONTH' | 'WEEK' | 'DAY';
export type DateUnit = 'year' | 'quarter' | 'month' | 'week' | 'day';
/** A value's kind as the compiler knows it (sqlgen.ts Kind). */
export type ValueKind = 'number' | 'string' | 'date' | 'datetime' | 'boolean' | 'unknown';

/** The final SELECT over the assembled rows (sql-query.ts). */
export interface Assembly {
  ctes: string[];
  select: { sql: string; as: string }[];
  /** FROM and its joins. */
  from: string;
  where: string | null;
  qualify: string | null;
  order: { sql: string; desc: boolean }[];
  limit: number | null;
  offset: number | null;
}

export abstract class Dialect {
  abstract readonly name: string;
  /** How messages name the database ("PostgreSQL"). */
  abstract readonly title: string;

  /** The n-th bound value (1-based) as the statement refers to it. */
  placeholder(n: number, _value: string | number | boolean | null): string {
    return `$${n}`;
  }

  protected abstract typeName(t: SqlType): string;

  cast(sql: string, t: SqlType): string {
    return `CAST(${sql} AS ${this.typeName(t)})`;
  }

  quote(name: string): string {
    return `"${name.replace(/"/g, '""')}"`;
  }

  /** YEAR(d), MONTH(d)…: a whole number. */
  abstract datePart(part: DatePart, sql: string): string;

  /** n units as a value a date or timestamp can be moved by (`n`: SQL of an integer). */
  abstract interval(unit: DateUnit, n: string): string;

  /** A date (or timestamp) moved by n days; `n` is SQL of an integer. */
  abstract addDays(d: string, kind: 'date' | 'datetime', op: '+' | '-', n: string): string;

  /** Calendar days from `from` to `to` (d - d). */
  abstract daysBetween(from: string, to: string): string;

  /** Whole units from x to y (complete units, as DATE_DIFF counts them). */
  abstract unitsBetween(unit: DateUnit, x: string, y: string): string;

  /** The start of the unit holding a date, as a date. */
  truncDate(unit: DateUnit, d: string): string {
    return this.cast(`date_trunc('${unit}', ${d})`, 'date');
  }

  /** Division; by zero gives null, not an error. */
  divide(l: string, r: string): string {
    return `(${l} / NULLIF(${r}, 0))`;
  }

  round(x: string, digits: number | null): string {
    return `round(${x}${digits === null ? '' : `, ${digits}`})`;
  }

  /** `e` (text) matched against a pattern, case-sensitively or not. */
  like(e: string, pattern: string, not: boolean, ci: boolean): string {
    return `(${e} ${not ? 'NOT ' : ''}${ci ? 'ILIKE' : 'LIKE'} ${pattern})`;
  }

  /**
   * Whether a label fixed by its key is read with anyValue (grouping by the key alone)
   * rather than grouped by with the key.
   */
  readonly anyValueForLabels: boolean = true;

  /** One value of a group whose values are all equal (a label fixed by its key). */
  abstract anyValue(sql: string, kind: ValueKind): string;

  /** MIN and MAX of a group. */
  minMax(fn: 'min' | 'max', sql: string, _kind: ValueKind): string {
    return `${fn}(${sql})`;
  }

  /** The continuous percentile `f` (0–1) of a group. */
  abstract percentile(sql: string, f: number): string;

  /** The median of a group; dates give a timestamp. */
  abstract median(sql: string, kind: ValueKind): string;

  /**
   * The rows of a group meeting `filter` as one JSON list of objects (text), ordered by
   * `order`; `[]` when none does (NEST). `bind` makes a value a parameter (the keys are titles
   * a query may choose).
   */
  abstract jsonList(
    fields: { name: string; sql: string }[],
    order: string,
    filter: string,
    bind: (v: string) => string,
  ): string;

  stddev(sql: string): string {
    return `stddev_samp(${sql})`;
  }

  /** Two dimension keys are the same value (nulls equal) in a join condition. */
  sameKey(a: string, b: string): string {
    return `${a} IS NOT DISTINCT FROM ${b}`;
  }

  /** The statement over the assembled rows, QUALIFY included. */
  abstract assemble(a: Assembly): string;

  /** ORDER BY, LIMIT and OFFSET. */
  protected tail(a: Pick<Assembly, 'order' | 'limit' | 'offset'>): string {
    const order = a.order.length
      ? ` ORDER BY ${a.order.map((o) => `${o.sql} ${o.desc ? 'DESC' : 'ASC'} NULLS LAST`).join(', ')}`
      : '';
    return (
      order +
      (a.limit !== null ? ` LIMIT ${a.limit}` : '') +
      (a.offset !== null ? ` OFFSET ${a.offset}` : '')
    );
  }
}

/** Where a project's datasets are: the relation of each and its columns' names there. */
export interface Relations {
  /** SQL naming a dataset's rows (a table or view). */
  table(dataset: string): string;
  /** A dataset column's name in that relation, quoted. */
  column(dataset: string, column: string): string;
}

/** What a query compiles for: the SQL dialect and the relations it reads. */
export interface SqlTarget {
  dialect: Dialect;
  relations: Relations;
}
