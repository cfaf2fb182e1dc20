// One SQL expression (PostgreSQL's parse tree) → AQL text. Columns become references by
// identifier, aggregates AQL's, PostgreSQL's date functions AQL's date functions. What has no
// AQL meaning is refused by name, never guessed.
import { notSupported, SqlError } from './errors.js';
import type { SqlColumn, SqlTable } from './schema.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A bound parameter: its text (null for NULL) and its type OID (0: unspecified). */
export interface Param {
  value: string | null;
  type: number;
}

export interface Scope {
  /** The FROM tables by the name a query uses for them (alias, else name), lower case. */
  tables: Map<string, SqlTable>;
  /** The table whose rows `count(*)` counts: the first in FROM. */
  anchor: SqlTable;
  params: Param[];
  /** The metrics table (MEASURE("…") finds metrics by title). */
  metrics: SqlTable | undefined;
  /** Every table of the schema (to say where a column not in FROM is). */
  all: Map<string, SqlTable>;
}

export interface Translated {
  aql: string;
  /** Holds an aggregation or a metric (a measure). */
  agg: boolean;
  /** Holds a fact outside any aggregation. */
  bareFact: boolean;
  /** The single column it is, when it is one (for names and types). */
  column?: SqlColumn;
  /** PostgreSQL's output name for it. */
  name: string;
  /** Its type when SQL fixes it where AQL's is wider (a count is a whole number). */
  dataType?: string;
}

const AGGREGATES: Record<string, string> = {
  sum: 'SUM',
  avg: 'AVG',
  min: 'MIN',
  max: 'MAX',
  median: 'MEDIAN',
  stddev: 'STDDEV',
  stddev_samp: 'STDDEV',
};

const SCALARS: Record<string, string> = {
  abs: 'ABS',
  round: 'ROUND',
  coalesce: 'COALESCE',
  nullif: 'NULLIF',
  upper: 'UPPER',
  lower: 'LOWER',
  trim: 'TRIM',
  btrim: 'TRIM',
  length: 'LENGTH',
  char_length: 'LENGTH',
  left: 'LEFT',
  right: 'RIGHT',
  substring: 'SUBSTRING',
  substr: 'SUBSTRING',
  concat: 'CONCAT',
  replace: 'REPLACE',
  ifnull: 'IFNULL',
};

const DATE_PARTS: Record<string, string> = {
  year: 'YEAR',
  quarter: 'QUARTER',
  month: 'MONTH',
  week: 'WEEK',
  day: 'DAY',
};

const TRUNC_UNITS = new Set(['year', 'quarter', 'month', 'week', 'day']);

const OPS = new Set(['=', '<>', '!=', '<', '>', '<=', '>=', '+', '-', '*', '/', '||']);

export const quoteText = (s: string) => `'${s.replace(/'/g, "''")}'`;

const NUMERIC_OIDS = new Set([20, 21, 23, 26, 700, 701, 1700]);
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A parameter's value as an AQL literal; `hint`: the type of what it is compared with. */
function paramLiteral(p: Param | undefined, n: number, hint?: string): string {
  if (!p) throw new SqlError('08P01', `there is no parameter $${n}`);
  if (p.value === null) return 'NULL';
  const numeric =
    NUMERIC_OIDS.has(p.type) ||
    (p.type === 0 && (hint === 'integer' || hint === 'number' || (!hint && NUMBER.test(p.value))));
  if (numeric) {
    if (!NUMBER.test(p.value.trim()))
      throw new SqlError('22P02', `invalid input syntax for a number: "${p.value}"`);
    return p.value.trim();
  }
  if (p.type === 16) return /^(t|true|1|on|yes)$/i.test(p.value) ? 'TRUE' : 'FALSE';
  return quoteText(p.value);
}

const strOf = (n: Node | undefined): string | undefined => n?.String?.sval;

/** A list operand (IN's values, BETWEEN's bounds): a List node in PostgreSQL 18's tree. */
const listOf = (n: Node | Node[] | undefined): Node[] =>
  Array.isArray(n) ? n : ((n?.List?.items as Node[] | undefined) ?? []);

/** The text of a string constant (date_trunc's unit, MEASURE's name). */
function constText(n: Node | undefined, what: string): string {
  const s = n?.A_Const?.sval?.sval;
  if (typeof s !== 'string') throw new SqlError('42601', `${what} must be a text constant`);
  return s;
}

export class ExprTranslator {
  constructor(private readonly scope: Scope) {}

  column(fields: Node[]): SqlColumn {
    const names = fields.map((f) => {
      const s = strOf(f);
      if (s === undefined) throw notSupported('* inside an expression');
      return s;
    });
    const colName = names.at(-1)!;
    const qualifier = names.length >= 2 ? names.at(-2)!.toLowerCase() : undefined;
    const candidates = qualifier
      ? [this.scope.tables.get(qualifier)].filter((t): t is SqlTable => !!t)
      : [...this.scope.tables.values()];
    if (qualifier && !candidates.length)
      throw new SqlError('42P01', `missing FROM-clause entry for table "${names.at(-2)}"`);
    for (const t of candidates) {
      const c = t.byName.get(colName.toLowerCase());
      if (c) return c;
    }
    const where = candidates.map((t) => t.name).join(', ');
    // A column of a table not in FROM: say which, and how the model joins it.
    const elsewhere = [...this.scope.all.values()].find(
      (t) => !candidates.includes(t) && t.byName.has(colName.toLowerCase()),
    );
    if (elsewhere && !qualifier)
      throw new SqlError(
        '42703',
        `column "${colName}" does not exist in ${where}; it is a column of ${elsewhere.name}`,
        `add ${elsewhere.name} to FROM (FROM ${[...candidates.map((t) => t.name), elsewhere.name].join(', ')}): Ursa joins the tables by the model's references`,
      );
    const all = candidates.flatMap((t) => t.columns.map((c) => c.name));
    const close = all
      .filter((n) => n.toLowerCase().includes(colName.toLowerCase().slice(0, 4)))
      .slice(0, 5);
    throw new SqlError(
      '42703',
      `column "${colName}" does not exist in ${where}`,
      close.length
        ? `columns with a similar name: ${close.map((n) => `"${n}"`).join(', ')}`
        : `columns: ${all
            .slice(0, 12)
            .map((n) => `"${n}"`)
            .join(', ')}${all.length > 12 ? ', …' : ''}`,
    );
  }

  /** `inAgg`: inside an aggregation (facts allowed); `hint`: a parameter's expected type. */
  expr(n: Node, inAgg = false, hint?: string): Translated {
    const leaf = (aql: string, name = '?column?'): Translated => ({
      aql,
      agg: false,
      bareFact: false,
      name,
    });
    if (n.ColumnRef) {
      const c = this.column(n.ColumnRef.fields);
      return {
        aql: `[${c.ident}]`,
        agg: c.kind === 'metric',
        bareFact: c.kind === 'fact' && !inAgg,
        column: c,
        name: c.name,
      };
    }
    if (n.A_Const) {
      const k = n.A_Const;
      if (k.isnull) return leaf('NULL');
      if (k.ival) return leaf(String(k.ival.ival ?? 0));
      if (k.ival !== undefined && !Object.keys(k.ival).length) return leaf('0');
      if (k.fval) return leaf(String(k.fval.fval));
      if (k.boolval) return leaf(k.boolval.boolval ? 'TRUE' : 'FALSE', 'bool');
      if (k.sval) return leaf(quoteText(k.sval.sval ?? ''), 'text');
      throw notSupported('this constant');
    }
    if (n.ParamRef) {
      const i = n.ParamRef.number as number;
      return leaf(paramLiteral(this.scope.params[i - 1], i, hint));
    }
    if (n.TypeCast) return this.cast(n.TypeCast, inAgg);
    if (n.A_Expr) return this.aExpr(n.A_Expr, inAgg);
    if (n.BoolExpr) {
      const b = n.BoolExpr;
      const args = (b.args as Node[]).map((a) => this.expr(a, inAgg));
      const aql =
        b.boolop === 'NOT_EXPR'
          ? `NOT (${args[0]!.aql})`
          : args.map((a) => `(${a.aql})`).join(b.boolop === 'AND_EXPR' ? ' AND ' : ' OR ');
      return this.combine(aql, args, 'bool');
    }
    if (n.NullTest) {
      const a = this.expr(n.NullTest.arg, inAgg);
      const not = n.NullTest.nulltesttype === 'IS_NOT_NULL' ? ' NOT' : '';
      return this.combine(`${a.aql} IS${not} NULL`, [a], '?column?');
    }
    if (n.CaseExpr) return this.caseExpr(n.CaseExpr, inAgg);
    if (n.CoalesceExpr) return this.call('COALESCE', n.CoalesceExpr.args, inAgg, 'coalesce');
    if (n.MinMaxExpr) {
      const f = n.MinMaxExpr.op === 'IS_GREATEST' ? 'GREATEST' : 'LEAST';
      return this.call(f, n.MinMaxExpr.args, inAgg, f.toLowerCase());
    }
    if (n.FuncCall) return this.func(n.FuncCall, inAgg);
    if (n.SQLValueFunction) {
      if (n.SQLValueFunction.op === 'SVFOP_CURRENT_DATE') return leaf('TODAY()', 'current_date');
      throw notSupported('this SQL value function inside a query over the model');
    }
    if (n.SubLink) throw notSupported('a subquery', 'compute it as AQL: /*aql*/ SELECT …');
    if (n.BooleanTest) throw notSupported('IS TRUE / IS FALSE', 'compare with = TRUE');
    throw notSupported(`the expression ${Object.keys(n)[0]}`);
  }

  private combine(aql: string, parts: Translated[], name: string): Translated {
    return {
      aql,
      agg: parts.some((p) => p.agg),
      bareFact: parts.some((p) => p.bareFact),
      name,
    };
  }

  private call(fn: string, args: Node[] | undefined, inAgg: boolean, name: string): Translated {
    const t = (args ?? []).map((a) => this.expr(a, inAgg));
    return this.combine(`${fn}(${t.map((a) => a.aql).join(', ')})`, t, name);
  }

  private aExpr(e: Node, inAgg: boolean): Translated {
    const op = strOf(e.name?.[0]) ?? '';
    const side = (x: Node | undefined, other?: Node) =>
      this.expr(x!, inAgg, other ? this.typeHint(other) : undefined);
    switch (e.kind) {
      case 'AEXPR_OP': {
        if (!e.lexpr) {
          const r = side(e.rexpr);
          if (op === '-') return this.combine(`-(${r.aql})`, [r], r.name);
          if (op === '+') return r;
          throw notSupported(`the operator ${op}`);
        }
        const l = side(e.lexpr, e.rexpr);
        const r = side(e.rexpr, e.lexpr);
        const like: Record<string, string> = {
          '~~': 'LIKE',
          '!~~': 'NOT LIKE',
          '~~*': 'ILIKE',
          '!~~*': 'NOT ILIKE',
        };
        if (like[op]) return this.combine(`${l.aql} ${like[op]} ${r.aql}`, [l, r], '?column?');
        if (!OPS.has(op))
          throw notSupported(
            `the operator ${op}`,
            op === '%' ? 'there is no modulo in AQL' : 'use LIKE for patterns',
          );
        return this.combine(`(${l.aql} ${op === '!=' ? '<>' : op} ${r.aql})`, [l, r], '?column?');
      }
      case 'AEXPR_LIKE':
      case 'AEXPR_ILIKE': {
        const l = side(e.lexpr);
        const r = side(e.rexpr);
        const word = e.kind === 'AEXPR_LIKE' ? 'LIKE' : 'ILIKE';
        return this.combine(
          `${l.aql} ${op.startsWith('!') ? 'NOT ' : ''}${word} ${r.aql}`,
          [l, r],
          '?column?',
        );
      }
      case 'AEXPR_IN': {
        const l = side(e.lexpr);
        const hint = this.typeHint(e.lexpr);
        const items = listOf(e.rexpr).map((x) => this.expr(x, inAgg, hint));
        return this.combine(
          `${l.aql} ${op === '<>' ? 'NOT IN' : 'IN'} (${items.map((i) => i.aql).join(', ')})`,
          [l, ...items],
          '?column?',
        );
      }
      case 'AEXPR_BETWEEN':
      case 'AEXPR_NOT_BETWEEN': {
        const l = side(e.lexpr);
        const hint = this.typeHint(e.lexpr);
        const [lo, hi] = listOf(e.rexpr).map((x) => this.expr(x, inAgg, hint));
        const not = e.kind === 'AEXPR_NOT_BETWEEN' ? 'NOT ' : '';
        return this.combine(
          `${l.aql} ${not}BETWEEN ${lo!.aql} AND ${hi!.aql}`,
          [l, lo!, hi!],
          '?column?',
        );
      }
      case 'AEXPR_NULLIF':
        return this.call('NULLIF', [e.lexpr, e.rexpr], inAgg, 'nullif');
      default:
        throw notSupported(`the comparison ${String(e.kind).replace('AEXPR_', '')}`);
    }
  }

  /** The AQL type a column operand has: a parameter beside it takes that type. */
  private typeHint(n: Node | undefined): string | undefined {
    if (!n?.ColumnRef) return undefined;
    try {
      return this.column(n.ColumnRef.fields).dataType;
    } catch {
      return undefined;
    }
  }

  private caseExpr(c: Node, inAgg: boolean): Translated {
    const subject = c.arg ? this.expr(c.arg, inAgg) : undefined;
    const parts: Translated[] = subject ? [subject] : [];
    const whens = (c.args as Node[]).map((w) => {
      const cond = this.expr(w.CaseWhen.expr, inAgg, c.arg ? this.typeHint(c.arg) : undefined);
      const then = this.expr(w.CaseWhen.result, inAgg);
      parts.push(cond, then);
      const test = subject ? `${subject.aql} = ${cond.aql}` : cond.aql;
      return `WHEN ${test} THEN ${then.aql}`;
    });
    let aql = `CASE ${whens.join(' ')}`;
    if (c.defresult) {
      const d = this.expr(c.defresult, inAgg);
      parts.push(d);
      aql += ` ELSE ${d.aql}`;
    }
    return this.combine(`${aql} END`, parts, 'case');
  }

  private cast(c: Node, inAgg: boolean): Translated {
    const type = (c.typeName.names as Node[]).map(strOf).at(-1)!.toLowerCase();
    const inner = this.expr(c.arg, inAgg);
    const numeric = ['int2', 'int4', 'int8', 'integer', 'bigint', 'numeric', 'float4', 'float8'];
    const k = inner.column?.dataType;
    // A cast that changes nothing AQL can tell apart passes; others are refused by name.
    if (numeric.includes(type) && (k === undefined || k === 'integer' || k === 'number'))
      return inner;
    if (['text', 'varchar', 'bpchar'].includes(type) && (k === undefined || k === 'string'))
      return inner;
    if (['date', 'timestamp', 'timestamptz'].includes(type) && c.arg.A_Const?.sval) return inner;
    if (type === 'date' && (k === 'date' || k === 'datetime')) return inner;
    throw notSupported(`a cast to ${type} of ${inner.name}`);
  }

  private func(f: Node, inAgg: boolean): Translated {
    const name = (f.funcname as Node[]).map(strOf).at(-1)!.toLowerCase();
    const args = (f.args ?? []) as Node[];
    if (f.over) throw notSupported(`the window function ${name}() OVER`, 'use AQL windows');
    if (f.agg_within_group) {
      // percentile_cont(p) WITHIN GROUP (ORDER BY x)
      if (name !== 'percentile_cont' || args.length !== 1 || f.agg_order?.length !== 1)
        throw notSupported(`${name}() WITHIN GROUP`);
      const p = this.expr(args[0]!, true);
      const x = this.expr(f.agg_order[0].SortBy.node, true);
      return { aql: `PERCENTILE(${x.aql}, ${p.aql})`, agg: true, bareFact: false, name };
    }
    if (name === 'count') return this.count(f, args);
    const agg = AGGREGATES[name];
    if (agg) {
      if (inAgg) throw new SqlError('42803', 'aggregate function calls cannot be nested');
      if (f.agg_distinct) throw notSupported(`${name}(DISTINCT …)`);
      let arg = this.expr(args[0]!, true);
      if (f.agg_filter) {
        const cond = this.expr(f.agg_filter, true);
        arg = { ...arg, aql: `CASE WHEN ${cond.aql} THEN ${arg.aql} END` };
      }
      return { aql: `${agg}(${arg.aql})`, agg: true, bareFact: false, name };
    }
    if (name === 'measure') {
      const title = constText(args[0], 'MEASURE()’s argument');
      const m = this.scope.metrics?.byName.get(title.toLowerCase());
      if (!m)
        throw new SqlError(
          '42703',
          `no metric "${title}"`,
          this.scope.metrics
            ? `metrics: ${this.scope.metrics.columns.map((c) => `"${c.name}"`).join(', ')}`
            : 'the project has no saved metrics',
        );
      return { aql: `[${m.ident}]`, agg: true, bareFact: false, name: m.name };
    }
    if (name === 'date_trunc') {
      const unit = constText(args[0], "date_trunc's unit").toLowerCase();
      if (!TRUNC_UNITS.has(unit))
        throw notSupported(`date_trunc('${unit}', …)`, `units: ${[...TRUNC_UNITS].join(', ')}`);
      const d = this.expr(args[1]!, inAgg);
      return { ...this.combine(`DATE_TRUNC('${unit}', ${d.aql})`, [d], 'date_trunc') };
    }
    if (name === 'date_part' || name === 'extract') {
      const unit = constText(args[0], `${name}'s field`).toLowerCase();
      const fn = DATE_PARTS[unit];
      if (!fn) throw notSupported(`${name}('${unit}', …)`, `fields: ${Object.keys(DATE_PARTS)}`);
      const d = this.expr(args[1]!, inAgg);
      return this.combine(`${fn}(${d.aql})`, [d], name);
    }
    const scalar = SCALARS[name];
    if (scalar) return this.call(scalar, args, inAgg, name);
    if (name === 'greatest' || name === 'least')
      return this.call(name.toUpperCase(), args, inAgg, name);
    if (name === 'now' || name === 'current_date') return this.call('TODAY', [], inAgg, name);
    throw notSupported(`the function ${name}()`);
  }

  /** SQL's counts in AQL's words: rows, non-null values, distinct values. */
  private count(f: Node, args: Node[]): Translated {
    const name = 'count';
    const filter = f.agg_filter ? this.expr(f.agg_filter, true) : undefined;
    if (f.agg_star) {
      // The rows of the first FROM table (a join of a fact with what it references has as
      // many rows as the fact).
      const t = this.scope.anchor;
      if (!t.dataset) throw notSupported('count(*) over the metrics table');
      return filter
        ? {
            aql: `SUM(CASE WHEN ${filter.aql} THEN 1 ELSE 0 END)`,
            agg: true,
            bareFact: false,
            name,
            dataType: 'integer',
          }
        : {
            aql: `COUNT([dataset.${t.dataset}])`,
            agg: true,
            bareFact: false,
            name,
            dataType: 'integer',
          };
    }
    const x = this.expr(args[0]!, true);
    if (f.agg_distinct) {
      const arg = filter ? `CASE WHEN ${filter.aql} THEN ${x.aql} END` : x.aql;
      return {
        aql: `COUNT_DISTINCT(${arg})`,
        agg: true,
        bareFact: false,
        name,
        dataType: 'integer',
      };
    }
    // count(x): the rows where x is not null (AQL's COUNT of an attribute counts distinct
    // values, so it is said as a sum).
    const cond = filter ? `(${filter.aql}) AND ${x.aql} IS NOT NULL` : `${x.aql} IS NOT NULL`;
    if (x.column?.kind === 'fact' && !filter)
      return { aql: `COUNT(${x.aql})`, agg: true, bareFact: false, name, dataType: 'integer' };
    return {
      aql: `SUM(CASE WHEN ${cond} THEN 1 ELSE 0 END)`,
      agg: true,
      bareFact: false,
      name,
      dataType: 'integer',
    };
  }
}
