// AQL row expressions over a box's input columns (FLOWS.md): `[amount] > 10`,
// `UPPER([name])`, `SUM([amount])`. Parsed by the AQL parser, resolved against a model made
// of the input's columns only, and rendered by the AQL SQL generator. The grammar has no
// table functions, and a reference can only become a column of the input: nothing can read a
// file, the network or the process, by construction.
import type { Expr } from '../aql/ast.js';
import { AqlError } from '../aql/errors.js';
import type { V } from '../aql/ir.js';
import { ModelSnapshot } from '../aql/model.js';
import { parse } from '../aql/parser.js';
import { rootCtx, resolveExpr } from '../aql/resolve.js';
import { Params, render, renderCondition, type RenderCtx } from '../aql/sqlgen.js';
import { closest } from '../aql/suggest.js';
import { ident } from '../data/databases.js';
import { CSV_FORMAT, type DataType } from '../data/prescription.js';
import type { ObjectRow } from '../model/store.js';
import { BoxError } from './errors.js';

/** A column of a box's output: its name and type as AQL sees it (null: not usable in AQL). */
export interface FlowColumn {
  name: string;
  type: DataType | null;
  /** The DuckDB type, for messages and outputs. */
  duck: string;
}

export type ExprKind = 'condition' | 'value' | 'measure';

/** Values are written into the SQL as literals: flow SQL runs as views, which take no parameters. */
class LiteralParams extends Params {
  override add(v: string | number | boolean | null): string {
    if (v === null) return 'NULL';
    if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error('not a finite number');
      return Number.isInteger(v) ? `${v}` : `CAST(${v} AS DOUBLE)`;
    }
    // DuckDB string literals have no backslash escapes: doubling quotes is the whole escape.
    return `'${v.replace(/'/g, "''")}'`;
  }
}

const DATASET = '\u0000input';
const AGGS = new Set(['SUM', 'AVG', 'MIN', 'MAX', 'MEDIAN', 'COUNT', 'COUNT_DISTINCT']);

/** Parses an expression (save-time check: the syntax only; columns are known at run time). */
export function parseFlowExpr(text: string, box: string, field: string): Expr {
  try {
    return parse(text, 'condition');
  } catch (err) {
    if (err instanceof AqlError) throw new BoxError(box, field, err.message);
    throw err;
  }
}

/**
 * Compiles `text` over `columns` to DuckDB SQL. A `measure` must be an aggregation (SUM, AVG,
 * MIN, MAX, MEDIAN, COUNT, COUNT_DISTINCT) of the input's columns; a `value` or `condition`
 * must not contain one.
 */
export function compileFlowExpr(
  text: string,
  kind: ExprKind,
  columns: FlowColumn[],
  box: string,
  field: string,
  today: string,
): { sql: string; type: DataType | null } {
  const expr = parseFlowExpr(text, box, field);
  checkNames(expr, kind, columns, box, field);
  const snap = snapshotOf(columns);
  try {
    const v = resolveExpr(expr, rootCtx({ snap, visible: () => true, counter: { n: 0 } }, true));
    checkShape(v, kind, box, field);
    const r: RenderCtx = {
      params: new LiteralParams(today),
      col: (c) => ident(c.column),
      agg: (a) => renderAgg(a, r),
      pos: v.pos,
    };
    const sql = kind === 'condition' ? renderCondition(v, r) : render(v, r);
    return { sql, type: typeOf(v, columns) };
  } catch (err) {
    if (err instanceof AqlError) throw new BoxError(box, field, err.message);
    throw err;
  }
}

function renderAgg(a: Extract<V, { t: 'agg' }>, r: RenderCtx): string {
  const leaf = a.leaf;
  const arg = render(leaf.arg, r);
  if (leaf.distinct) return `count(DISTINCT ${arg})`;
  return `${leaf.fn.toLowerCase()}(${arg})`;
}

/** References must name input columns; sub-selects and windows have no meaning on rows. */
function checkNames(
  e: Expr,
  kind: ExprKind,
  columns: FlowColumn[],
  box: string,
  field: string,
): void {
  const names = columns.map((c) => c.name);
  const byKey = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  const visit = (x: Expr, inAgg: boolean): void => {
    switch (x.k) {
      case 'ref': {
        const col = byKey.get(x.name.toLowerCase());
        if (!col) {
          const near = closest(x.name, names, 3);
          throw new BoxError(
            box,
            field,
            `unknown column [${x.name}] at line ${x.pos.line}, column ${x.pos.column}${near.length ? `; did you mean ${near.map((n) => `[${n}]`).join(', ')}?` : ''} The input has ${names.length} column(s): ${names
              .slice(0, 50)
              .map((n) => `[${n}]`)
              .join(', ')}`,
          );
        }
        if (!col.type)
          throw new BoxError(
            box,
            field,
            `column [${col.name}] is of type ${col.duck}, which expressions cannot use; leave it out with transform.select, or flatten it at the source (for an HTTP API, point records at the nested array or object)`,
          );
        return;
      }
      case 'sub':
        throw new BoxError(
          box,
          field,
          'a sub-select (SELECT …) has no meaning in a flow expression',
        );
      case 'window':
        throw new BoxError(box, field, 'window functions (… OVER (…)) are not available in flows');
      case 'call': {
        const agg = AGGS.has(x.name) || x.name === 'PERCENTILE' || x.name === 'STDDEV';
        if (agg && kind !== 'measure')
          throw new BoxError(
            box,
            field,
            `${x.name} aggregates rows: use it in a transform.aggregate measure, not in a ${kind === 'condition' ? 'condition' : 'row expression'}`,
          );
        if (agg && !AGGS.has(x.name))
          throw new BoxError(
            box,
            field,
            `${x.name} is not a flow measure; measures are SUM, AVG, MIN, MAX, MEDIAN, COUNT and COUNT_DISTINCT`,
          );
        if (x.name === 'COUNT' && x.args.length > 1)
          throw new BoxError(box, field, 'COUNT takes one column in a flow: COUNT([column])');
        for (const a of x.args) visit(a, inAgg || agg);
        return;
      }
      default:
        for (const child of childrenOf(x)) visit(child, inAgg);
    }
  };
  visit(e, false);
}

function childrenOf(e: Expr): Expr[] {
  switch (e.k) {
    case 'neg':
    case 'not':
    case 'isnull':
      return [e.e];
    case 'arith':
    case 'cmp':
    case 'and':
    case 'or':
      return [e.l, e.r];
    case 'in':
      return [e.e, ...e.list];
    case 'between':
      return [e.e, e.lo, e.hi];
    case 'like':
      return [e.e, e.pattern];
    case 'case':
      return [...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else ? [e.else] : [])];
    default:
      return [];
  }
}

function hasAggregate(v: V): boolean {
  let found = false;
  const visit = (x: unknown): void => {
    if (!x || typeof x !== 'object') return;
    if ((x as V).t === 'agg') found = true;
    for (const val of Object.values(x)) if (val && typeof val === 'object') visit(val);
  };
  visit(v);
  return found;
}

function checkShape(v: V, kind: ExprKind, box: string, field: string): void {
  if (kind === 'measure' && !hasAggregate(v))
    throw new BoxError(
      box,
      field,
      'a measure aggregates its group: write SUM([col]), AVG, MIN, MAX, MEDIAN, COUNT([col]) or COUNT_DISTINCT([col])',
    );
}

/** The model AQL resolves against: one dataset holding the input's columns. */
function snapshotOf(columns: FlowColumn[]): ModelSnapshot {
  const usable = columns.filter((c) => c.type);
  const now = new Date(0).toISOString();
  const rows: ObjectRow[] = usable.map((c, i) => ({
    projectId: '',
    // Not a writable identifier: only titles (the column names) resolve.
    ident: `\u0000col${i}`,
    type: c.type === 'integer' || c.type === 'number' ? 'fact' : 'attribute',
    name: c.name,
    description: '',
    def: { dataset: DATASET, column: c.name, dataType: c.type },
    acl: [],
    tags: [],
    revision: 1,
    createdBy: '',
    created: now,
    updatedBy: '',
    updated: now,
  }));
  return new ModelSnapshot(rows, [
    {
      name: DATASET,
      prescription: {
        clustername: 'input',
        primarykey: '',
        columns: usable.map((c) => ({
          id: c.name,
          originalheader: c.name,
          objectType: 'A' as const,
          dataType: c.type!,
          label: c.name,
        })),
        format: { ...CSV_FORMAT },
      },
    },
  ]);
}

/** The data type of a resolved expression when it is a plain column; else left to DuckDB. */
function typeOf(v: V, columns: FlowColumn[]): DataType | null {
  if (v.t === 'col') return columns.find((c) => c.name === v.col.column)?.type ?? null;
  return null;
}
