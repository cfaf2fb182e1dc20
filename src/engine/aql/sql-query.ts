// Phase 4 of compiling a query (parse → resolve → plan → SQL): the plan as one statement of
// the target's dialect (dialect/). Each group is a CTE l<g> with columns k<d>/x<d> (the key and the shown value of
// dimension d) and v<j> (its j-th leaf); the frame f lists the result's rows; the assembly
// joins every group onto the frame by the dimension keys, then applies HAVING, windows,
// QUALIFY, ORDER BY and LIMIT.
import type { Pos } from './ast.js';
import type { Relations, SqlTarget } from './dialect/dialect.js';
import { DIM, sameCol, type Dim } from './dims.js';
import { hasWindow, type Leaf, type V } from './ir.js';
import type { ModelSnapshot } from './model.js';
import { colRenderer, isRowCount, joinTree, type QueryPlan } from './plan.js';
import type { ResolvedQuery } from './query-resolve.js';
import { fail } from './resolve.js';
import { kindOf, Params, render, renderCondition } from './sqlgen.js';
import { nestCtes } from './sql-nest.js';

export interface QuerySql {
  sql: string;
  params: (string | number | boolean | null)[];
}

export function toSql(
  rq: ResolvedQuery,
  plan: QueryPlan,
  snap: ModelSnapshot,
  today: string,
  target: SqlTarget,
): QuerySql {
  const { dialect } = target;
  const params = new Params(today, dialect);
  const { dims } = rq;
  const q = parts(rq, plan, snap, params, target.relations, '');
  const select = rq.items.map((it, i) => ({
    sql:
      it.kind === 'dimension'
        ? `${q.frame}.x${dims.findIndex((x) => x.item === i)}`
        : q.assemble(it.v, it.pos),
    as: `c${i}`,
  }));
  const where = rq.having ? q.assemble(rq.having, rq.having.pos, true) : null;
  const qualify = rq.qualify ? q.assemble(rq.qualify, rq.qualify.pos, true) : null;
  const order = rq.order.map((o) => ({
    sql: 'col' in o.ref ? `c${o.ref.col}` : q.assemble(o.ref.v, o.pos),
    desc: o.desc,
  }));
  // Dimensions break ties, so results are stable: the shown value, then the key (two
  // customers of one name are two rows, always in the same order).
  order.push(
    ...dims.flatMap((_, d) => [
      { sql: `${q.frame}.x${d}`, desc: false },
      { sql: `${q.frame}.k${d}`, desc: false },
    ]),
  );
  return {
    sql: dialect.assemble({
      ctes: q.ctes,
      select,
      from: q.from,
      where,
      qualify,
      order,
      limit: rq.limit,
      offset: rq.offset,
    }),
    params: params.values,
  };
}

/** The CTEs of a plan, the assembled rows' FROM and how to write a value over them. */
interface Parts {
  ctes: string[];
  /** The CTE whose rows are the result's (its k<d>, x<d>). */
  frame: string;
  from: string;
  assemble: (v: V, pos: Pos, condition?: boolean) => string;
}

/**
 * `p`: a prefix for every CTE name, so the query inside an aggregation over groups puts its
 * CTEs beside the outer ones.
 */
function parts(
  rq: ResolvedQuery,
  plan: QueryPlan,
  snap: ModelSnapshot,
  params: Params,
  relations: Relations,
  p: string,
  /** Whether values may be windows (NEST numbers its rows by them: they may not). */
  windows = true,
): Parts {
  const { dialect } = params;
  const { dims } = rq;
  const ctes: string[] = [];
  const f = plan.frame;
  /** Groups the frame's rows are (or carry): one frame row per row of theirs. */
  const framed = new Set(f.kind === 'group' ? [f.g] : f.kind === 'union' ? f.groups : []);
  // A coarser sum, minimum or maximum of a framed group is a window over the frame's rows
  // (`sum(v) OVER (PARTITION BY kept dimensions)`): one pass over the aggregated rows instead
  // of a second aggregation joined back. Not under HAVING, which drops rows before windows,
  // nor beside the query's own windows (a window cannot hold another).
  const windowed = new Map<number, string>();
  const ownWindows =
    rq.qualify !== null ||
    rq.items.some((i) => hasWindow(i.v)) ||
    rq.order.some((o) => 'v' in o.ref && hasWindow(o.ref.v));
  if (windows && !rq.having && !ownWindows)
    plan.groups.forEach((grp, g) => {
      if (!grp.rollup || grp.rollup.inner !== undefined || !framed.has(grp.rollup.from.g)) return;
      const kind = kindOf(plan.leaves[grp.leaves[0]!]!.arg);
      const v = '\u0000';
      const fn = grp.rollup.fn;
      const agg = fn === 'min' || fn === 'max' ? dialect.minMax(fn, v, kind) : `${fn}(${v})`;
      if (agg === `${fn}(${v})`) windowed.set(g, fn);
    });
  plan.groups.forEach((grp, g) => {
    if (windowed.has(g)) return;
    const inner = plan.planned[grp.leaves[0]!]!.groups;
    const nest = plan.leaves[grp.leaves[0]!]!.nest;
    if (inner && nest) {
      const name = `${p}l${g}`;
      const q = parts(inner.rq, inner.plan, snap, params, relations, `${name}_`, false);
      ctes.push(...nestCtes(inner.rq, dims.length, q, params, name));
      return;
    }
    if (inner) {
      ctes.push(
        ...groupsCtes(
          plan.leaves[grp.leaves[0]!]!,
          inner,
          grp.grain,
          snap,
          params,
          relations,
          `${p}l${g}`,
        ),
      );
      return;
    }
    if (grp.rollup) {
      const keys = grp.grain.map((d) => `k${d}, x${d}`).join(', ');
      const fn = grp.rollup.fn;
      const v = `v${grp.rollup.from.j}`;
      const kind = kindOf(plan.leaves[grp.leaves[0]!]!.arg);
      const agg = `${fn === 'min' || fn === 'max' ? dialect.minMax(fn, v, kind) : `${fn}(${v})`} AS v0`;
      ctes.push(
        `${p}l${g} AS (SELECT ${keys ? `${keys}, ` : ''}${agg} FROM ${p}l${grp.rollup.from.g}${grp.rollup.inner !== undefined ? `_l${grp.rollup.inner}` : ''}${keys ? ` GROUP BY ${keys}` : ''})`,
      );
      return;
    }
    const sql = groupSql(
      grp.leaves.map((i) => ({ leaf: plan.leaves[i]!, planned: plan.planned[i]! })),
      grp.grain,
      dims,
      snap,
      params,
      relations,
    );
    ctes.push(`${p}l${g} AS (${sql})`);
  });

  let frame = `${p}f`;
  /** Groups whose values the frame itself carries (as g<g>_v<j>). */
  const inFrame = new Set<number>();
  if (f.kind === 'one') ctes.push(`${p}f AS (SELECT 1 AS one)`);
  else if (f.kind === 'group') frame = `${p}l${f.g}`;
  else if (f.kind === 'union') {
    // Full-grain groups of different anchors: one FULL JOIN on the dimension keys (a row
    // missing on one side keeps the other's values), carrying every group's values along.
    const [first, ...rest] = f.groups as [number, ...number[]];
    const either = (col: string, upTo: number) => {
      const cols = f.groups.slice(0, upTo + 1).map((g) => `${p}l${g}.${col}`);
      return cols.length === 1 ? cols[0]! : `coalesce(${cols.join(', ')})`;
    };
    const from = rest
      .map((g, i) => {
        const on = dims.map((_, d) => dialect.sameKey(either(`k${d}`, i), `${p}l${g}.k${d}`));
        return ` FULL JOIN ${p}l${g} ON ${on.join(' AND ')}`;
      })
      .join('');
    const keys = dims.map(
      (_, d) =>
        `${either(`k${d}`, f.groups.length - 1)} AS k${d}, ${either(`x${d}`, f.groups.length - 1)} AS x${d}`,
    );
    const values = f.groups.flatMap((g) =>
      plan.groups[g]!.leaves.map((_, j) => `${p}l${g}.v${j} AS g${g}_v${j}`),
    );
    ctes.push(`${p}f AS (SELECT ${[...keys, ...values].join(', ')} FROM ${p}l${first}${from})`);
    f.groups.forEach((g) => inFrame.add(g));
  } else ctes.push(`${p}f AS (${distinctSql(f, dims, snap, params, relations)})`);

  const joins = plan.groups
    .map((grp, g) => {
      if (`${p}l${g}` === frame || inFrame.has(g) || windowed.has(g)) return '';
      const on = grp.grain.map((d) => dialect.sameKey(`${p}l${g}.k${d}`, `${frame}.k${d}`));
      return ` LEFT JOIN ${p}l${g} ON ${on.length ? on.join(' AND ') : 'true'}`;
    })
    .join('');
  const tiebreak = dims.flatMap((_, d) => [
    `${frame}.x${d} ASC NULLS LAST`,
    `${frame}.k${d} ASC NULLS LAST`,
  ]);
  const assemble = (v: V, pos: Pos, condition = false) =>
    (condition ? renderCondition : render)(v, {
      params,
      pos,
      tiebreak,
      agg: (a) => {
        const s = plan.slot.get(plan.leafIndex.get(a.leaf.id)!)!;
        const at = (x: { g: number; j: number }) =>
          inFrame.has(x.g) ? `${p}f.g${x.g}_v${x.j}` : `${p}l${x.g}.v${x.j}`;
        const grp = plan.groups[s.g]!;
        const fn = windowed.get(s.g);
        const keys = grp.grain.map((d) => `${frame}.k${d}`).join(', ');
        const value = fn
          ? `${fn}(${at(grp.rollup!.from)}) OVER (${keys ? `PARTITION BY ${keys}` : ''})`
          : at(s);
        // A group with nothing to count has a count of 0, not an empty cell.
        return a.leaf.fn === 'COUNT' ? `coalesce(${value}, 0)` : value;
      },
      col: (c) => {
        if (c.dataset === DIM) return `${frame}.x${c.column}`;
        const d = dims.findIndex((x) => sameCol(x.display, c) || sameCol(x.key, c));
        if (d < 0) throw fail(`[${c.obj.name}] is not a dimension of this query`, pos);
        return `${frame}.x${d}`;
      },
    });
  return { ctes, frame, from: `${frame}${joins}`, assemble };
}

/**
 * An aggregation over groups as CTEs named `name`…: the query of its measure per group
 * (`name`q: k<i>, x<i> of its dimensions, v), then the outer function over those values per
 * the leaf's grain (`name`: k<d>, x<d>, v0, like any group). The inner query's first
 * dimensions are the grain's, in order (plan-groups.ts).
 */
function groupsCtes(
  leaf: Leaf,
  inner: NonNullable<QueryPlan['planned'][number]['groups']>,
  grain: number[],
  snap: ModelSnapshot,
  params: Params,
  relations: Relations,
  name: string,
): string[] {
  const { dialect } = params;
  const q = parts(inner.rq, inner.plan, snap, params, relations, `${name}_`);
  const measure = inner.rq.items.at(-1)!;
  const cols = inner.rq.dims.map((_, i) => `${q.frame}.k${i} AS k${i}, ${q.frame}.x${i} AS x${i}`);
  const perGroup = `${name}q AS (SELECT ${[...cols, `${q.assemble(measure.v, measure.pos)} AS v`].join(', ')} FROM ${q.from})`;
  const agg =
    leaf.fn === 'COUNT'
      ? `count(${leaf.distinct ? 'DISTINCT ' : ''}v)`
      : valueAgg(leaf, 'v', dialect);
  const keys = grain.map((d, i) => `k${i} AS k${d}, x${i} AS x${d}`);
  const groupBy = grain.map((_, i) => `k${i}, x${i}`);
  const outer = `${name} AS (SELECT ${[...keys, `${agg} AS v0`].join(', ')} FROM ${name}q${groupBy.length ? ` GROUP BY ${groupBy.join(', ')}` : ''})`;
  return [...q.ctes, perGroup, outer];
}

/** A leaf's aggregation other than COUNT, of `arg` (its argument's SQL, or per-group values). */
function valueAgg(l: Leaf, arg: string, dialect: Params['dialect']): string {
  const kind = kindOf(l.arg);
  if (l.fn === 'PERCENTILE') return dialect.percentile(arg, Number(l.fraction));
  if (l.fn === 'MEDIAN') return dialect.median(arg, kind);
  if (l.fn === 'STDDEV') return dialect.stddev(arg);
  if (l.fn === 'MIN' || l.fn === 'MAX')
    return dialect.minMax(l.fn === 'MIN' ? 'min' : 'max', arg, kind);
  return `${l.fn.toLowerCase()}(${arg})`;
}

/** One aggregation query for leaves sharing anchor, conditions and grain. */
function groupSql(
  leaves: { leaf: Leaf; planned: QueryPlan['planned'][number] }[],
  grain: number[],
  dims: Dim[],
  snap: ModelSnapshot,
  params: Params,
  relations: Relations,
): string {
  const { dialect } = params;
  const first = leaves[0]!;
  const pos = first.leaf.pos;
  const { anchor, conditions } = first.planned;
  const tree = joinTree(
    anchor,
    leaves.flatMap((x) => x.planned.needed),
    snap,
    pos,
    first.leaf.text,
    relations,
  );
  const r = { params, pos, col: colRenderer(tree), agg: () => 'NULL' };
  const select: string[] = [];
  const groupBy: string[] = [];
  for (const d of grain) {
    const key = render(dims[d]!.key, r);
    const shown = render(dims[d]!.display, r);
    // An attribute is its own shown value: grouping by it once is enough. A label of a
    // primary key has one value per key, so grouping by the key alone gives the same groups
    // without hashing the (longer) label of every row. Grouping by the expressions (not the
    // aliases) keeps a dataset column named like an alias harmless.
    const fixed = shown !== key && dialect.anyValueForLabels && keyFixes(dims[d]!, snap);
    const anyShown = () => dialect.anyValue(shown, kindOf(dims[d]!.display));
    select.push(`${key} AS k${d}`, `${fixed ? anyShown() : shown} AS x${d}`);
    groupBy.push(shown === key || fixed ? key : `${key}, ${shown}`);
  }
  leaves.forEach(({ leaf: l }, j) => {
    const arg = render(l.arg, r);
    let agg: string;
    // COUNT([dataset]) and a count of the anchor's own key (never null) count rows, reading
    // no column; a fact counts its values, an attribute its distinct values.
    if (l.rows) agg = 'count(*)';
    else if (l.fn === 'COUNT')
      agg = !isRowCount(l, anchor, snap)
        ? `count(DISTINCT ${arg})`
        : l.arg.t === 'col' && l.arg.col.kind === 'attribute'
          ? 'count(*)'
          : `count(${arg})`;
    else agg = valueAgg(l, arg, dialect);
    select.push(`${agg} AS v${j}`);
  });
  const whereSql = conditions.length
    ? ` WHERE ${conditions.map((c) => renderCondition(c, { ...r, pos: c.pos })).join(' AND ')}`
    : '';
  const group = groupBy.length ? ` GROUP BY ${groupBy.join(', ')}` : '';
  return `SELECT ${select.join(', ')} FROM ${tree.from} ${tree.joins.join(' ')}${whereSql}${group}`;
}

/** The dimension shows a label of its dataset's primary key: the key alone fixes the label. */
function keyFixes(d: Dim, snap: ModelSnapshot): boolean {
  const { key, display } = d;
  return (
    key.t === 'col' &&
    display.t === 'col' &&
    display.col.kind === 'label' &&
    display.col.dataset === key.col.dataset &&
    display.col.keyColumn === key.col.column &&
    snap.datasets.get(key.col.dataset)?.primaryKey === key.col.column
  );
}

function distinctSql(
  f: Extract<QueryPlan['frame'], { kind: 'distinct' }>,
  dims: Dim[],
  snap: ModelSnapshot,
  params: Params,
  relations: Relations,
): string {
  const tree = joinTree(
    f.dataset,
    f.needed,
    snap,
    f.pos,
    `the dimensions ${f.pos.text}`,
    relations,
  );
  const r = { params, pos: f.pos, col: colRenderer(tree), agg: () => 'NULL' };
  const select = dims
    .map((d, i) => `${render(d.key, r)} AS k${i}, ${render(d.display, r)} AS x${i}`)
    .join(', ');
  const whereSql = f.conditions.length
    ? ` WHERE ${f.conditions.map((c) => renderCondition(c, { ...r, pos: c.pos })).join(' AND ')}`
    : '';
  return `SELECT DISTINCT ${select} FROM ${tree.from} ${tree.joins.join(' ')}${whereSql}`;
}
