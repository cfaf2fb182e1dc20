// A SELECT over the model's tables → one AQL query, so AQL's planner answers it: joins follow
// the model's references (a fact is never multiplied by a join), metrics and row filters apply
// as in every other door. GROUP BY names the grain (AQL's dimensions); a SELECT without
// aggregates lists rows (by the first table's key, which the query then hides).
import { notSupported, SqlError } from './errors.js';
import { ExprTranslator, type Param, type Scope, type Translated } from './expr.js';
import { METRICS_TABLE, type SqlSchema, type SqlTable } from './schema.js';

type Node = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Rows a listing (a SELECT without aggregates) returns at most without a LIMIT of its own. */
export const LISTING_ROW_LIMIT = 100_000;

export interface TranslatedQuery {
  aql: string;
  /** The result's columns: their names; the AQL query's first columns, in order. */
  names: string[];
  /** Types SQL fixes where AQL's are wider (counts), by column; else AQL's. */
  types: (string | undefined)[];
  /** A listing without LIMIT: more rows than this is refused (never a silent cut). */
  rowLimit?: number;
}

const qualified = (r: Node) => (r.schemaname ? `${r.schemaname}.${r.relname}` : r.relname);

/** The FROM tables, by the name the query uses for each (its alias, else its name). */
function fromTables(
  schema: SqlSchema,
  from: Node[],
): { scope: Map<string, SqlTable>; order: SqlTable[] } {
  const scope = new Map<string, SqlTable>();
  const order: SqlTable[] = [];
  const add = (n: Node) => {
    if (n.RangeVar) {
      const r = n.RangeVar;
      if (r.schemaname && !['public'].includes(r.schemaname.toLowerCase()))
        throw new SqlError(
          '3F000',
          `schema "${r.schemaname}" does not exist; the model's tables are in "public"`,
        );
      const t = schema.tables.get(String(r.relname).toLowerCase());
      if (!t)
        throw new SqlError(
          '42P01',
          `relation "${qualified(r)}" does not exist`,
          `tables: ${[...schema.tables.values()].map((x) => x.name).join(', ')}`,
        );
      const as = (r.alias?.aliasname ?? t.name).toLowerCase();
      scope.set(as, t);
      order.push(t);
      return;
    }
    if (n.JoinExpr) {
      const j = n.JoinExpr;
      add(j.larg);
      add(j.rarg);
      if (j.quals) checkJoin(scope, j.quals);
      return;
    }
    if (n.RangeSubselect)
      throw notSupported('a subquery in FROM', 'compute it as AQL: /*aql*/ SELECT …');
    if (n.RangeFunction) throw notSupported('a function in FROM');
    throw notSupported(`${Object.keys(n)[0]} in FROM`);
  };
  for (const n of from) add(n);
  return { scope, order };
}

/**
 * A JOIN's ON must be what the model already joins by (a reference and the key it points
 * at): the join itself is the model's, whatever the SQL says.
 */
function checkJoin(scope: Map<string, SqlTable>, quals: Node): void {
  const conds: Node[] = quals.BoolExpr?.boolop === 'AND_EXPR' ? quals.BoolExpr.args : [quals];
  const tr = new ExprTranslator({
    tables: scope,
    anchor: [...scope.values()][0]!,
    params: [],
    metrics: undefined,
    all: scope,
  });
  for (const c of conds) {
    const e = c.A_Expr;
    const ok =
      e?.kind === 'AEXPR_OP' &&
      e.name?.[0]?.String?.sval === '=' &&
      e.lexpr?.ColumnRef &&
      e.rexpr?.ColumnRef &&
      (() => {
        const a = tr.column(e.lexpr.ColumnRef.fields);
        const b = tr.column(e.rexpr.ColumnRef.fields);
        const refs = (x: typeof a, y: typeof b) =>
          !!x.references &&
          !!y.primaryKey &&
          [...scope.values()].some((t) => t.dataset === x.references && t.key?.ident === y.ident);
        return refs(a, b) || refs(b, a);
      })();
    if (!ok)
      throw new SqlError(
        '0A000',
        "a JOIN's ON must be a reference of the model and the key it points at",
        'list the tables with commas (FROM flights, airports): Ursa joins them by the model',
      );
  }
}

export function translateSelect(schema: SqlSchema, s: Node, params: Param[]): TranslatedQuery {
  if (s.op && s.op !== 'SETOP_NONE') throw notSupported('UNION, INTERSECT and EXCEPT');
  if (s.withClause) throw notSupported('WITH', 'compute it as AQL: /*aql*/ SELECT …');
  if (s.valuesLists) throw notSupported('VALUES');
  if (s.intoClause) throw notSupported('SELECT INTO');
  if (s.lockingClause) throw notSupported('FOR UPDATE');
  if (s.windowClause) throw notSupported('WINDOW');
  const { scope: tables, order } = fromTables(schema, s.fromClause ?? []);
  const anchor = order.find((t) => t.dataset) ?? order[0]!;
  const scope: Scope = {
    tables,
    anchor,
    params,
    metrics: schema.tables.get(METRICS_TABLE),
    all: schema.tables,
  };
  const tr = new ExprTranslator(scope);

  // SELECT items, with * expanded to the FROM tables' columns.
  const items: { node: Node; alias?: string; t: Translated }[] = [];
  for (const rt of (s.targetList ?? []) as Node[]) {
    const r = rt.ResTarget;
    const fields = r.val?.ColumnRef?.fields as Node[] | undefined;
    if (fields?.at(-1)?.A_Star) {
      const q = fields.length > 1 ? fields.at(-2)?.String?.sval?.toLowerCase() : undefined;
      const ts = q ? [tables.get(q)].filter((t): t is SqlTable => !!t) : order;
      if (!ts.length) throw new SqlError('42P01', `missing FROM-clause entry for table "${q}"`);
      for (const t of ts)
        for (const c of t.columns) {
          const node = {
            ColumnRef: { fields: [{ String: { sval: t.name } }, { String: { sval: c.name } }] },
          };
          // Tables listed under their alias.
          const alias = [...tables.entries()].find(([, v]) => v === t)![0];
          node.ColumnRef.fields[0]!.String.sval = alias;
          items.push({ node, t: tr.expr(node) });
        }
      continue;
    }
    items.push({ node: r.val, alias: r.name, t: tr.expr(r.val) });
  }
  if (!items.length) throw new SqlError('42601', 'SELECT lists no columns');
  const having = s.havingClause ? tr.expr(s.havingClause) : undefined;
  const groupBy = (s.groupClause ?? []) as Node[];
  const grouped = !!(
    s.distinctClause ||
    groupBy.length ||
    items.some((i) => i.t.agg) ||
    having?.agg
  );
  if (s.distinctClause && s.distinctClause.length && Object.keys(s.distinctClause[0] ?? {}).length)
    throw notSupported('DISTINCT ON');

  const names = items.map((i) => i.alias ?? i.t.name);
  const select: string[] = [];
  const hidden: string[] = [];
  let rowLimit: number | undefined;

  if (grouped) {
    // The grain: GROUP BY's columns (by position, output name or expression).
    const grain: string[] = [];
    for (const g of groupBy) {
      if (g.GroupingSet)
        throw notSupported('GROUPING SETS, ROLLUP and CUBE', 'use BY ALL in AQL for totals');
      const pos = g.A_Const?.ival ? Number(g.A_Const.ival.ival) : undefined;
      if (pos !== undefined) {
        const it = items[pos - 1];
        if (!it) throw new SqlError('42P10', `GROUP BY position ${pos} is not in select list`);
        grain.push(it.t.aql);
        continue;
      }
      const byName =
        g.ColumnRef?.fields?.length === 1
          ? items.find((i) => i.alias && i.alias === g.ColumnRef.fields[0].String?.sval)
          : undefined;
      const t = byName ? byName.t : tr.expr(g);
      if (t.agg) throw new SqlError('42803', 'aggregate functions are not allowed in GROUP BY');
      grain.push(t.aql);
    }
    for (const [i, it] of items.entries()) {
      if (it.t.agg) {
        select.push(it.t.aql);
        continue;
      }
      if (it.t.bareFact)
        throw new SqlError(
          '42803',
          `column "${names[i]}" must appear in the GROUP BY clause or be used in an aggregate function`,
          `a fact is a measure: SUM("${names[i]}"), AVG(…), …`,
        );
      if (!s.distinctClause && !grain.includes(it.t.aql))
        throw new SqlError(
          '42803',
          `column "${names[i]}" must appear in the GROUP BY clause or be used in an aggregate function`,
        );
      select.push(it.t.aql);
    }
    // A GROUP BY column not shown still divides the rows: a hidden dimension.
    for (const g of grain) if (!select.includes(g)) hidden.push(g);
  } else {
    // A listing: one row per row of the first table, by its key.
    if (!anchor.dataset)
      throw notSupported('listing the metrics table', 'select metrics next to GROUP BY columns');
    if (!anchor.key)
      throw new SqlError(
        '0A000',
        `${anchor.name} has no key, so its rows cannot be listed one by one`,
        'aggregate them: SELECT …, count(*) FROM … GROUP BY …',
      );
    for (const it of items) select.push(it.t.bareFact ? `SUM(${it.t.aql})` : it.t.aql);
    const key = `[${anchor.key.ident}]`;
    if (!select.includes(key)) hidden.push(key);
    const limited = s.limitCount && !s.limitCount.A_Const?.isnull;
    if (!limited) rowLimit = LISTING_ROW_LIMIT;
  }

  const all = [...select, ...hidden];
  let aql = `SELECT ${all.join(', ')}`;
  if (s.whereClause) {
    const w = tr.expr(s.whereClause);
    if (w.agg)
      throw new SqlError('42803', 'aggregate functions are not allowed in WHERE', 'use HAVING');
    aql += ` WHERE ${w.aql}`;
  }
  if (having) aql += ` HAVING ${having.aql}`;
  const sorts = (s.sortClause ?? []) as Node[];
  if (sorts.length) {
    const keys = sorts.map((n) => {
      const sb = n.SortBy;
      if (sb.sortby_nulls && sb.sortby_nulls !== 'SORTBY_NULLS_DEFAULT')
        throw notSupported('NULLS FIRST / NULLS LAST');
      const dir = sb.sortby_dir === 'SORTBY_DESC' ? ' DESC' : '';
      const node = sb.node as Node;
      const pos = node.A_Const?.ival ? Number(node.A_Const.ival.ival) : undefined;
      if (pos !== undefined) {
        if (pos < 1 || pos > items.length)
          throw new SqlError('42P10', `ORDER BY position ${pos} is not in select list`);
        return `${pos}${dir}`;
      }
      const one =
        node.ColumnRef?.fields?.length === 1 ? node.ColumnRef.fields[0].String?.sval : undefined;
      const named =
        one !== undefined
          ? names.findIndex((x, i) => items[i]!.alias !== undefined && x === one)
          : -1;
      if (named >= 0) return `${named + 1}${dir}`;
      const t = tr.expr(node);
      const at = all.indexOf(grouped || !t.bareFact ? t.aql : `SUM(${t.aql})`);
      return `${at >= 0 ? at + 1 : t.aql}${dir}`;
    });
    aql += ` ORDER BY ${keys.join(', ')}`;
  }
  const num = (n: Node | undefined, what: string): number | undefined => {
    if (!n || n.A_Const?.isnull) return undefined;
    let v: unknown;
    if (n.A_Const)
      v = n.A_Const.ival
        ? (n.A_Const.ival.ival ?? 0)
        : Object.keys(n.A_Const.ival ?? {}).length === 0 && 'ival' in n.A_Const
          ? 0
          : undefined;
    else if (n.ParamRef) v = params[n.ParamRef.number - 1]?.value;
    const x = Number(v);
    if (!Number.isInteger(x) || x < 0)
      throw new SqlError('2201W', `${what} must be a whole number, 0 or more`);
    return x;
  };
  const limit = num(s.limitCount, 'LIMIT');
  const offset = num(s.limitOffset, 'OFFSET');
  if (limit !== undefined) aql += ` LIMIT ${limit}`;
  else if (rowLimit !== undefined) aql += ` LIMIT ${rowLimit + 1}`;
  if (offset !== undefined) {
    if (limit === undefined && rowLimit === undefined) aql += ` LIMIT ${Number.MAX_SAFE_INTEGER}`;
    aql += ` OFFSET ${offset}`;
  }
  return {
    aql,
    names,
    // A listed fact is the row's value: its own type, not its sum's.
    types: items.map((i) => (!grouped && i.t.bareFact ? i.t.column?.dataType : i.t.dataType)),
    ...(rowLimit !== undefined ? { rowLimit } : {}),
  };
}
