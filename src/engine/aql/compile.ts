// Compiling a query, in four named phases: parse (parser.ts) → resolve (query-resolve.ts:
// names, dimensions, measures, what each clause may hold) → plan (plan.ts: anchors, join
// paths, aggregation groups, the frame) → SQL (sql-query.ts). Each phase has its own tests.
import type { PlannedColumn } from '../../contract/queries.js';
import type { Query } from './ast.js';
import type { SqlTarget } from './dialect/dialect.js';
import { AqlError } from './errors.js';
import { examplesFor } from './examples.js';
import { columnsIn, leavesIn, type Leaf, type V } from './ir.js';
import type { ModelSnapshot } from './model.js';
import { leafPlans, planQuery, type LeafPlan } from './plan.js';
import { parse } from './parser.js';
import { resolveQuery, type ValueCheck } from './query-resolve.js';
import type { ResolveEnv } from './resolve.js';
import { toSql } from './sql-query.js';
import { offerRewrite } from './sql-rewrite.js';

export type { LeafPlan };

export interface Compiled {
  /** The SQL dialect of `sql` (duckdb, or postgres for a warehouse project). */
  dialect: string;
  sql: string;
  params: (string | number | boolean | null)[];
  columns: PlannedColumn[];
  /** For explain: the objects used and the plan of every leaf. */
  objects: { ident: string; type: string; title: string }[];
  leaves: LeafPlan[];
  frame: string;
  /** Text values compared in WHERE: a 0-row answer says which match no member. */
  valueChecks: ValueCheck[];
}

/**
 * `today`: what TODAY() means, "YYYY-MM-DD" in the project's time zone; `target`: the SQL
 * dialect and relations of the project's backend (backends/).
 */
export function compileQuery(
  q: Query,
  env: ResolveEnv,
  rowFilter: string | null,
  today: string | undefined,
  target: SqlTarget,
): Compiled {
  const rq = resolveQuery(q, env, rowFilter);
  const plan = planQuery(rq, env.snap);
  const day = today ?? new Date().toISOString().slice(0, 10);
  const { sql, params } = toSql(rq, plan, env.snap, day, target);
  return {
    dialect: target.dialect.name,
    sql,
    params,
    columns: rq.items.map((i) => ({
      title: i.title,
      kind: i.kind,
      dataType: i.dataType,
      ...(i.columns ? { columns: i.columns } : {}),
    })),
    objects: usedObjects(
      [
        ...rq.items.map((i) => i.v),
        ...(rq.where ? [rq.where] : []),
        ...(rq.having ? [rq.having] : []),
        ...rq.dims.flatMap((d) => [d.key, d.display]),
      ],
      allLeaves(plan.leaves).flatMap((l) => [
        l.arg,
        ...l.where,
        ...(l.by ?? []).flatMap((d) => [d.key, d.display]),
      ]),
    ),
    leaves: leafPlans(plan),
    frame: plan.frameDesc,
    valueChecks: rq.valueChecks,
  };
}

/**
 * A query's text compiled; the error of a SQL habit (FROM, COUNT(*), bare names…) offers the
 * whole query written in AQL, in the reader's names, when that compiles for them.
 */
export function compileText(
  text: string,
  env: ResolveEnv,
  rowFilter: string | null,
  today: string | undefined,
  target: SqlTarget,
): Compiled {
  const compile = (aql: string) => compileQuery(parse(aql, 'query'), env, rowFilter, today, target);
  try {
    return compile(text);
  } catch (err) {
    if (err instanceof AqlError && err.sqlHabit)
      throw offerRewrite(err, text, examplesFor(env), compile);
    throw err;
  }
}

/** The datasets a compiled query reads (an error of its database names them). */
export const datasetsOf = (c: Compiled): string[] => [
  ...new Set([
    ...c.leaves.map((l) => l.anchor),
    ...c.objects
      .filter((o) => ['attribute', 'label', 'fact'].includes(o.type))
      .map((o) => o.ident.split('.')[1]!),
  ]),
];

/** Leaves and the leaves of their measures (aggregations over groups), at every depth. */
function allLeaves(leaves: Leaf[]): Leaf[] {
  return leaves.flatMap((l) => [l, ...(l.by ? allLeaves(leavesIn(l.arg)) : [])]);
}

function usedObjects(top: V[], inLeaves: V[]): Compiled['objects'] {
  const used = new Map<string, Compiled['objects'][number]>();
  for (const v of [...top, ...inLeaves, ...top.flatMap((x) => leavesIn(x).map((l) => l.arg))])
    for (const c of columnsIn(v))
      if (!used.has(c.obj.ident))
        used.set(c.obj.ident, { ident: c.obj.ident, type: c.obj.type, title: c.obj.name });
  return [...used.values()];
}

export type { ModelSnapshot };
export { kindOf } from './sqlgen.js';
