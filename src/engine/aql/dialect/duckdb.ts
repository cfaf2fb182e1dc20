// DuckDB, the embedded engine: QUALIFY, any_value, quantile_cont, date_sub and to_<unit>s
// intervals are its own. Where an embedded project's datasets are is its backend's
// (backends/embedded/target.ts).
import { Dialect, type Assembly, type DatePart, type DateUnit, type SqlType } from './dialect.js';

const TYPES: Record<SqlType, string> = {
  double: 'DOUBLE',
  text: 'VARCHAR',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  integer: 'INTEGER',
  bigint: 'BIGINT',
  whole: 'BIGINT',
};

export class DuckDbDialect extends Dialect {
  readonly name = 'duckdb';
  readonly title = 'DuckDB';

  protected typeName(t: SqlType): string {
    return TYPES[t];
  }

  datePart(part: DatePart, sql: string): string {
    return `${part.toLowerCase()}(${sql})`;
  }

  interval(unit: DateUnit, n: string): string {
    if (unit === 'quarter') return `to_months(${n} * 3)`;
    return `to_${unit}s(${n})`;
  }

  addDays(d: string, kind: 'date' | 'datetime', op: '+' | '-', n: string): string {
    return kind === 'date' ? `(${d} ${op} ${n})` : `(${d} ${op} to_days(${n}))`;
  }

  daysBetween(from: string, to: string): string {
    return `date_diff('day', ${from}, ${to})`;
  }

  unitsBetween(unit: DateUnit, x: string, y: string): string {
    return `date_sub('${unit}', ${x}, ${y})`;
  }

  anyValue(sql: string): string {
    return `any_value(${sql})`;
  }

  percentile(sql: string, f: number): string {
    return `quantile_cont(${sql}, ${f})`;
  }

  median(sql: string): string {
    return `median(${sql})`;
  }

  /** Struct fields are identifiers: the titles are quoted, not bound. */
  jsonList(fields: { name: string; sql: string }[], order: string, filter: string): string {
    const struct = fields.map((f) => `${this.quote(f.name)} := ${f.sql}`).join(', ');
    return `coalesce(CAST(to_json(list(struct_pack(${struct}) ORDER BY ${order}) FILTER (WHERE ${filter})) AS VARCHAR), '[]')`;
  }

  assemble(a: Assembly): string {
    const select = a.select.map((s) => `${s.sql} AS ${s.as}`).join(', ');
    return (
      `WITH ${a.ctes.join(', ')} SELECT ${select} FROM ${a.from}` +
      (a.where ? ` WHERE ${a.where}` : '') +
      (a.qualify ? ` QUALIFY ${a.qualify}` : '') +
      this.tail(a)
    );
  }
}

export const DUCKDB = new DuckDbDialect();
