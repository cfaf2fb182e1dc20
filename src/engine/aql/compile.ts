// The planner: query grain from the SELECT dimensions; one aggregation leaf per metric on its
// own anchor dataset, joined only many-to-one (so no row is ever counted twice); leaves put
// together on the dimension values (full outer join); HAVING, ORDER BY and LIMIT last.
import { datasetTable, ident } from '../data/databases.js';
import type { Pos, Query } from './ast.js';
import { columnsIn, hasAgg, leavesIn, type Column, type Leaf, type V } from './ir.js';
import { describePath, type Edge, type ModelSnapshot } from './model.js';
import { parse } from './parser.js';
import { fail, resolveExpr, rootCtx, type ResolveEnv } from './resolve.js';
import { colSql, kindOf, Params, render, renderCondition } from './sqlgen.js';

interface Dim {
  /** What groups (an attribute, or the attribute of a label, or a date part of it). */
  key: V;
  /** What is shown (the label for a label). */
  display: V;
  /** The attribute's column: BY ALL [x] removes the dimensions built on it. */
  attr: Column;
  item: number;
  /** The SELECT item's text, the title of a date-part column. */
  text: string;
}

interface Output {
  title: string;
  kind: 'dimension' | 'measure';
  /** SQL in the assembly query. */
  sql: string;
  dataType: string;
}

export interface LeafPlan {
  leaf: string;
  anchor: string;
  grain: string[];
  joins: string[];
  filters: number;
}

export interface Compiled {
  sql: string;
  params: (string | number | boolean | null)[];
  columns: { title: string; kind: 'dimension' | 'measure'; dataType: string }[];
  /** For explain: the objects used and the plan of every leaf. */
  objects: { ident: string; type: string; title: string }[];
  leaves: LeafPlan[];
  frame: string;
}

const title = (c: Column) => c.obj.name;

/** Aggregations whose value over a coarser grain is the same aggregation of finer groups. */
const REAGGREGATE: Partial<Record<Leaf['fn'], string>> = { SUM: 'sum', MIN: 'min', MAX: 'max' };

export function compileQuery(q: Query, env: ResolveEnv, rowFilter: string | null): Compiled {
  const ctx = rootCtx(env);
  const snap = env.snap;
  const used = new Map<string, { ident: string; type: string; title: string }>();
  const note = (v: V) =>
    columnsIn(v).forEach((c) =>
      used.set(c.obj.ident, { ident: c.obj.ident, type: c.obj.type, title: c.obj.name }),
    );

  // 1. SELECT items: dimensions and measures.
  const dims: Dim[] = [];
  const measures: { v: V; item: number }[] = [];
  const items = q.items.map((it, i) => {
    const v = resolveExpr(it.expr, ctx);
    if (hasAgg(v)) {
      checkMeasure(v, it.pos);
      measures.push({ v, item: i });
      return { v, kind: 'measure' as const };
    }
    dims.push(toDim(v, it.pos, i));
    return { v, kind: 'dimension' as const };
  });

  // 2. Conditions.
  const where = q.where ? resolveExpr(q.where, ctx) : null;
  if (where && hasAgg(where))
    throw fail(
      'WHERE cannot hold an aggregation; use HAVING for conditions on measures',
      q.where!.pos,
    );
  const havingRaw = q.having ? resolveExpr(q.having, ctx) : null;
  const having = havingRaw ? dimsAsColumns(havingRaw, dims) : null;
  if (having) checkAssembled(having, dims, q.having!.pos, 'HAVING');
  const security = rowFilter
    ? resolveExpr(parse(rowFilter, 'condition'), rootCtx(env, true))
    : null;

  // 3. ORDER BY targets (an expression may add hidden leaves).
  type OrderRef = { col: number } | { v: V };
  const order = q.orderBy.map((o): { ref: OrderRef; desc: boolean } => {
    if (o.target.k === 'position') {
      if (!Number.isInteger(o.target.n) || o.target.n < 1 || o.target.n > q.items.length)
        throw fail(
          `ORDER BY ${o.target.pos.text}: a column position is a whole number from 1 to ${q.items.length}`,
          o.target.pos,
        );
      return { ref: { col: o.target.n - 1 }, desc: o.desc };
    }
    if (o.target.k === 'alias') {
      const target = o.target;
      const i = q.items.findIndex(
        // Aliases are case-insensitive, like keywords.
        (it) =>
          (it.alias ?? '').toLowerCase() === target.name.toLowerCase() ||
          (!it.alias && it.pos.text === target.name),
      );
      if (i < 0)
        throw fail(
          `ORDER BY "${target.name}": no column has that alias; aliases: ${
            q.items
              .filter((x) => x.alias)
              .map((x) => `"${x.alias}"`)
              .join(', ') || 'none'
          }`,
          target.pos,
        );
      return { ref: { col: i }, desc: o.desc };
    }
    const v = dimsAsColumns(resolveExpr(o.target.e, ctx), dims);
    checkAssembled(v, dims, o.target.e.pos, 'ORDER BY');
    // A constant orders nothing (and DuckDB refuses a bare parameter there).
    if (!columnsIn(v).length && !hasAgg(v))
      throw fail(
        `ORDER BY ${o.target.e.pos.text} orders nothing: order by a column's position, its alias in quotes, a dimension or a measure`,
        o.target.e.pos,
      );
    return { ref: { v }, desc: o.desc };
  });

  [...items.map((x) => x.v), ...(where ? [where] : []), ...(having ? [having] : [])].forEach(note);

  // 4. Leaves: deduplicated, each planned on its anchor.
  const allLeaves = [
    ...measures.flatMap((m) => leavesIn(m.v)),
    ...(having ? leavesIn(having) : []),
    ...order.flatMap((o) => ('v' in o.ref ? leavesIn(o.ref.v) : [])),
  ];
  const leafIndex = new Map<number, number>();
  const unique: Leaf[] = [];
  const byKey = new Map<string, number>();
  for (const l of allLeaves) {
    l.where.forEach(note);
    note(l.arg);
    const key = leafKey(l);
    let idx = byKey.get(key);
    if (idx === undefined) {
      idx = unique.length;
      unique.push(l);
      byKey.set(key, idx);
    }
    leafIndex.set(l.id, idx);
  }

  const params = new Params();
  const ctes: string[] = [];
  const grainOf = unique.map((l) => grainFor(l, dims));
  // Each leaf is planned on its own (its anchor, join paths and errors); leaves with the same
  // anchor, metric conditions and grain are then computed by one aggregation query (one scan).
  // That never changes a value: every join is many-to-one onto a primary key, so another
  // leaf's joins neither add nor drop a row of the anchor.
  const planned = unique.map((l, i) => planLeaf(l, grainOf[i]!, dims, where, security, snap));
  const plans = planned.map((p) => p.plan);
  // A BY ALL leaf whose twin (same aggregation, argument and metric WHERE) is computed at the
  // full grain is that twin's groups added up again — a sum of sums, a minimum of minimums, a
  // maximum of maximums — since every anchor row lies in exactly one full-grain group.
  const twinKey = (l: Leaf) => leafKey({ ...l, byAll: null });
  const fullTwin = new Map<string, number>();
  unique.forEach((l, i) => {
    if (dims.length && grainOf[i]!.length === dims.length && REAGGREGATE[l.fn])
      fullTwin.set(twinKey(l), i);
  });
  const derivedFrom = new Map<number, number>();
  unique.forEach((l, i) => {
    const twin = grainOf[i]!.length < dims.length ? fullTwin.get(twinKey(l)) : undefined;
    if (twin !== undefined && REAGGREGATE[l.fn]) derivedFrom.set(i, twin);
  });
  const groups: { leaves: number[]; grain: number[] }[] = [];
  const slot = new Map<number, { g: number; j: number }>();
  const groupOf = new Map<string, number>();
  unique.forEach((l, i) => {
    if (derivedFrom.has(i)) return;
    const key = JSON.stringify([planned[i]!.plan.anchor, l.where.map(strip), grainOf[i]]);
    let g = groupOf.get(key);
    if (g === undefined) {
      g = groups.length;
      groups.push({ leaves: [], grain: grainOf[i]! });
      groupOf.set(key, g);
    }
    slot.set(i, { g, j: groups[g]!.leaves.length });
    groups[g]!.leaves.push(i);
  });
  groups.forEach((grp, g) => {
    const sql = groupSql(
      grp.leaves.map((i) => ({ leaf: unique[i]!, planned: planned[i]! })),
      grp.grain,
      dims,
      snap,
      params,
    );
    ctes.push(`l${g} AS (${sql})`);
  });
  for (const [i, twin] of derivedFrom) {
    const from = slot.get(twin)!;
    const grain = grainOf[i]!;
    const g = groups.length;
    groups.push({ leaves: [i], grain });
    slot.set(i, { g, j: 0 });
    const keys = grain.map((d) => `k${d}, x${d}`).join(', ');
    const agg = `${REAGGREGATE[unique[i]!.fn]}(v${from.j}) AS v0`;
    ctes.push(
      `l${g} AS (SELECT ${keys ? `${keys}, ` : ''}${agg} FROM l${from.g}${keys ? ` GROUP BY ${keys}` : ''})`,
    );
  }

  // 5. The frame: every combination of dimension values the result shows. With a single
  // aggregation query at the full grain, that query's own rows are the frame.
  let frameSql: string | null = null;
  let frameDesc: string;
  let frame = 'f';
  const full = groups.map((_, g) => g).filter((g) => groups[g]!.grain.length === dims.length);
  const fullText = () =>
    full.flatMap((g) => groups[g]!.leaves.map((i) => unique[i]!.text)).join(', ');
  if (!dims.length) {
    frameSql = 'SELECT 1 AS one';
    frameDesc = 'one row (no dimensions)';
  } else if (full.length === 1) {
    frame = `l${full[0]}`;
    frameDesc = `the dimension values of ${fullText()}`;
  } else if (full.length) {
    const cols = dims.map((_, d) => `k${d}, x${d}`).join(', ');
    frameSql = full.map((g) => `SELECT ${cols} FROM l${g}`).join(' UNION ');
    frameDesc = `the dimension values of ${fullText()}`;
  } else {
    const f = dimsOnlyFrame(dims, where, security, snap, params);
    frameSql = f.sql;
    frameDesc = f.desc;
  }
  if (frameSql !== null) ctes.push(`f AS (${frameSql})`);

  // 6. Assembly.
  const joins = groups
    .map((grp, g) => {
      if (`l${g}` === frame) return '';
      const on = grp.grain.map((d) => `l${g}.k${d} IS NOT DISTINCT FROM ${frame}.k${d}`);
      return ` LEFT JOIN l${g} ON ${on.length ? on.join(' AND ') : 'true'}`;
    })
    .join('');
  const assemble = (v: V, pos: Pos, condition = false) =>
    (condition ? renderCondition : render)(v, {
      params,
      pos,
      agg: (a) => {
        const s = slot.get(leafIndex.get(a.leaf.id)!)!;
        // A group with nothing to count has a count of 0, not an empty cell.
        return a.leaf.fn === 'COUNT' ? `coalesce(l${s.g}.v${s.j}, 0)` : `l${s.g}.v${s.j}`;
      },
      col: (c) => {
        if (c.dataset === DIM) return `${frame}.x${c.column}`;
        const d = dims.findIndex((x) => sameCol(x.display, c) || sameCol(x.key, c));
        if (d < 0) throw fail(`[${c.obj.name}] is not a dimension of this query`, pos);
        return `${frame}.x${d}`;
      },
    });
  const outputs: Output[] = q.items.map((it, i) => {
    const entry = items[i]!;
    if (entry.kind === 'dimension') {
      const d = dims.findIndex((x) => x.item === i);
      return {
        title: it.alias ?? dimTitle(dims[d]!),
        kind: 'dimension',
        sql: `${frame}.x${d}`,
        dataType: dataTypeOf(dims[d]!.display),
      };
    }
    const single =
      it.expr.k === 'ref'
        ? (env.snap.byIdent.get(it.expr.name) ??
          env.snap.byTitle.get(it.expr.name.toLowerCase())?.[0])
        : undefined;
    return {
      title: it.alias ?? single?.name ?? it.pos.text,
      kind: 'measure',
      sql: assemble(entry.v, it.pos),
      dataType: 'number',
    };
  });
  const select = outputs.map((o, i) => `${o.sql} AS c${i}`).join(', ');
  const whereSql = having ? ` WHERE ${assemble(having, q.having!.pos, true)}` : '';
  const orderParts = order.map(
    (o) =>
      `${'col' in o.ref ? `c${o.ref.col}` : assemble(o.ref.v, q.items[0]!.pos)} ${o.desc ? 'DESC' : 'ASC'} NULLS LAST`,
  );
  // Dimensions break ties, so results are stable: the shown value, then the key (two
  // customers of one name are two rows, always in the same order).
  for (let d = 0; d < dims.length; d++)
    orderParts.push(`${frame}.x${d} ASC NULLS LAST`, `${frame}.k${d} ASC NULLS LAST`);
  const orderSql = orderParts.length ? ` ORDER BY ${orderParts.join(', ')}` : '';
  for (const [word, n, pos] of [
    ['LIMIT', q.limit, q.limitPos],
    ['OFFSET', q.offset, q.offsetPos],
  ] as const) {
    if (n !== null && !(Number.isSafeInteger(n) && n >= 0))
      throw fail(
        `${word} takes a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`,
        pos ?? { offset: 0, line: 1, column: 1, text: `${word} ${n}` },
      );
  }
  const limitSql =
    (q.limit !== null ? ` LIMIT ${q.limit}` : '') +
    (q.offset !== null ? ` OFFSET ${q.offset}` : '');
  const sql = `WITH ${ctes.join(', ')} SELECT ${select} FROM ${frame}${joins}${whereSql}${orderSql}${limitSql}`;
  return {
    sql,
    params: params.values,
    columns: outputs.map((o) => ({ title: o.title, kind: o.kind, dataType: o.dataType })),
    objects: [...used.values()],
    leaves: plans,
    frame: frameDesc,
  };
}

function toDim(v: V, pos: Pos, item: number): Dim {
  if (v.t === 'col') {
    if (v.col.kind === 'fact')
      throw fail(`[${title(v.col)}] is a fact: aggregate it, e.g. SUM([${title(v.col)}])`, pos, {
        suggestions: [`SUM([${title(v.col)}])`],
      });
    const key: Column =
      v.col.kind === 'label' ? { ...v.col, column: v.col.keyColumn, kind: 'attribute' } : v.col;
    return { key: { t: 'col', col: key }, display: v, attr: key, item, text: pos.text };
  }
  if (v.t === 'part' && v.e.t === 'col')
    return { key: v, display: v, attr: v.e.col, item, text: pos.text };
  throw fail(
    `"${pos.text}" is neither a dimension (an attribute, a label or a date part of a date attribute) nor a measure (an aggregation or a metric)`,
    pos,
  );
}

/** A measure may not use a column outside an aggregation. */
function checkMeasure(v: V, pos: Pos): void {
  for (const c of columnsIn(v)) {
    if (c.kind === 'fact')
      throw fail(
        `[${title(c)}] is a fact outside an aggregation: write SUM([${title(c)}]) (or AVG, MIN, MAX, MEDIAN)`,
        pos,
        { suggestions: [`SUM([${title(c)}])`] },
      );
    throw fail(
      `[${title(c)}] is an attribute inside a calculation: put it in SELECT as a dimension, or count it with COUNT([${title(c)}])`,
      pos,
    );
  }
}

/** HAVING and ORDER BY see the assembled rows: measures and the query's dimensions only. */
function checkAssembled(v: V, dims: Dim[], pos: Pos, clause: string): void {
  for (const c of columnsIn(v)) {
    if (c.dataset !== DIM && !dims.some((d) => sameCol(d.display, c) || sameCol(d.key, c))) {
      throw fail(
        `${clause} uses [${title(c)}], which is not a dimension of this query; filter rows with WHERE, or add it to SELECT`,
        pos,
      );
    }
  }
}

/** Marks a synthetic column standing for a query dimension (see dimsAsColumns). */
const DIM = '\u0000dim';

/**
 * HAVING and ORDER BY may repeat a dimension's expression (`ORDER BY QUARTER([Date])`):
 * every subtree equal to a dimension becomes a column that renders as that dimension.
 */
function dimsAsColumns(v: V, dims: Dim[]): V {
  const keys = dims.map((d) => [JSON.stringify(strip(d.display)), JSON.stringify(strip(d.key))]);
  const map = (x: V): V => {
    const k = JSON.stringify(strip(x));
    const d = keys.findIndex((pair) => pair.includes(k));
    if (d >= 0 && x.t !== 'const') {
      const like = dims[d]!.attr;
      // A date part is a number, whatever the date column it comes from.
      const dataType = dims[d]!.display.t === 'part' ? 'integer' : like.dataType;
      return { t: 'col', col: { ...like, dataType, dataset: DIM, column: String(d) } };
    }
    switch (x.t) {
      case 'part':
      case 'neg':
      case 'not':
        return { ...x, e: map(x.e) };
      case 'isnull':
        return { ...x, e: map(x.e) };
      case 'arith':
      case 'cmp':
      case 'and':
      case 'or':
        return { ...x, l: map(x.l), r: map(x.r) } as V;
      case 'fn':
        return { ...x, args: x.args.map(map) };
      case 'case':
        return {
          ...x,
          whens: x.whens.map((w) => ({ when: map(w.when), then: map(w.then) })),
          else: x.else ? map(x.else) : null,
        };
      case 'in':
        return { ...x, e: map(x.e), list: x.list.map(map) };
      case 'between':
        return { ...x, e: map(x.e), lo: map(x.lo), hi: map(x.hi) };
      case 'like':
        return { ...x, e: map(x.e), pattern: map(x.pattern) };
      default:
        return x;
    }
  };
  return map(v);
}

function sameCol(v: V, c: Column): boolean {
  return v.t === 'col' && v.col.dataset === c.dataset && v.col.column === c.column;
}

function dimTitle(d: Dim): string {
  return d.display.t === 'col' ? d.display.col.obj.name : d.text;
}

function dataTypeOf(v: V): string {
  return v.t === 'col' ? v.col.dataType : 'integer';
}

/** Indexes of the query dimensions a leaf groups by (BY ALL removes some or all). */
function grainFor(l: Leaf, dims: Dim[]): number[] {
  if (l.byAll === null) return dims.map((_, i) => i);
  if (l.byAll.length === 0) return [];
  return dims
    .map((_, i) => i)
    .filter(
      (i) =>
        !l.byAll!.some(
          // A label stands for its attribute: BY ALL [Month Name] removes [Month] too.
          (c) => c.dataset === dims[i]!.attr.dataset && c.keyColumn === dims[i]!.attr.column,
        ),
    );
}

function leafKey(l: Leaf): string {
  return JSON.stringify([
    l.fn,
    l.countIn,
    strip(l.arg),
    l.where.map(strip),
    l.byAll?.map((c) => `${c.dataset}.${c.column}`) ?? null,
  ]);
}

function strip(v: V): unknown {
  return JSON.parse(
    JSON.stringify(v, (k, x) => (k === 'obj' ? undefined : k === 'leaf' ? leafKey(x as Leaf) : x)),
  );
}

/** The dataset an aggregation counts rows of. */
function anchorOf(l: Leaf, snap: ModelSnapshot, pos: Pos): string {
  if (l.countIn) return l.countIn;
  const cols = columnsIn(l.arg);
  if (l.fn === 'COUNT' && l.arg.t === 'col') return l.arg.col.dataset;
  const facts = cols.filter((c) => c.kind === 'fact');
  const pool = [...new Set((facts.length ? facts : cols).map((c) => c.dataset))];
  if (!pool.length)
    throw fail(`${l.text} aggregates no fact or attribute; write e.g. SUM([Amount])`, pos);
  // The anchor reaches every other dataset of the aggregation many-to-one.
  const anchor = pool.find((d) => pool.every((o) => o === d || snap.reaches(d, o)));
  if (!anchor)
    throw fail(
      `${l.text} combines columns of datasets ${pool.join(' and ')}, which are not linked many-to-one`,
      pos,
      { datasets: pool },
    );
  return anchor;
}

interface JoinTree {
  from: string;
  aliasOf: Map<string, string>;
  joins: string[];
  described: string[];
}

/** Joins from the anchor to every dataset needed, each by its one reference path. */
function joinTree(
  anchor: string,
  needed: { dataset: string; why: string }[],
  snap: ModelSnapshot,
  pos: Pos,
  subject: string,
): JoinTree {
  const aliasOf = new Map<string, string>([[anchor, 't0']]);
  const joins: string[] = [];
  const described: string[] = [];
  for (const n of needed) {
    if (aliasOf.has(n.dataset)) continue;
    const paths = snap.paths(anchor, n.dataset);
    if (!paths.length) {
      throw fail(
        `${subject} cannot be ${n.why}: no reference path from dataset ${anchor} to dataset ${n.dataset}`,
        pos,
        { from: anchor, to: n.dataset },
      );
    }
    if (paths.length > 1) {
      throw fail(
        `${subject} reaches dataset ${n.dataset} by ${paths.length} paths, so ${n.why.replace(/^broken down by |^filtered by /, '')} is ambiguous: ${paths.map(describePath).join('; ')}`,
        pos,
        {
          paths: paths.map(describePath),
        },
      );
    }
    let parent = 't0';
    for (const e of paths[0]! as Edge[]) {
      let alias = aliasOf.get(e.to);
      if (!alias) {
        alias = `t${aliasOf.size}`;
        aliasOf.set(e.to, alias);
        const pk = snap.datasets.get(e.to)!.primaryKey!;
        joins.push(
          `LEFT JOIN ${datasetTable(e.to)} ${alias} ON ${alias}.${ident(pk)} = ${parent}.${ident(e.column)}`,
        );
        described.push(`${e.from}.${e.column} → ${e.to}`);
      }
      parent = alias;
    }
  }
  return { from: `${datasetTable(anchor)} t0`, aliasOf, joins, described };
}

function colRenderer(tree: JoinTree) {
  return (c: Column) => colSql(tree.aliasOf.get(c.dataset)!, c.column);
}

/** Conditions a dataset can evaluate: the row filter applies wherever it is reachable. */
function securityFor(anchor: string, security: V | null, snap: ModelSnapshot): V | null {
  if (!security) return null;
  const ds = new Set(columnsIn(security).map((c) => c.dataset));
  return [...ds].every((d) => d === anchor || snap.reaches(anchor, d)) ? security : null;
}

interface PlannedLeaf {
  anchor: string;
  /** Metric WHERE, query WHERE and the row filter, ANDed. */
  conditions: V[];
  needed: { dataset: string; why: string }[];
  plan: LeafPlan;
}

/** A leaf's anchor and the joins it needs (errors name the leaf). */
function planLeaf(
  l: Leaf,
  grain: number[],
  dims: Dim[],
  where: V | null,
  security: V | null,
  snap: ModelSnapshot,
): PlannedLeaf {
  const pos = { offset: 0, line: 1, column: 1, text: l.text };
  const anchor = anchorOf(l, snap, pos);
  const sec = securityFor(anchor, security, snap);
  const conditions = [...l.where, ...(where ? [where] : []), ...(sec ? [sec] : [])];
  const needed = [
    ...grain.flatMap((d) =>
      [...columnsIn(dims[d]!.key), ...columnsIn(dims[d]!.display)].map((c) => ({
        dataset: c.dataset,
        why: `broken down by [${title(c)}]`,
      })),
    ),
    ...conditions.flatMap((c) =>
      columnsIn(c).map((x) => ({ dataset: x.dataset, why: `filtered by [${title(x)}]` })),
    ),
    ...columnsIn(l.arg).map((c) => ({ dataset: c.dataset, why: `computed from [${title(c)}]` })),
  ];
  const tree = joinTree(anchor, needed, snap, pos, l.origin ?? l.text);
  return {
    anchor,
    conditions,
    needed,
    plan: {
      leaf: l.text,
      anchor,
      grain: grain.map((d) => dimTitle(dims[d]!)),
      joins: tree.described,
      filters: conditions.length,
    },
  };
}

/**
 * One aggregation query for leaves sharing anchor, conditions and grain: columns k<d>/x<d>
 * (the key and the shown value of each dimension) and v<j> (the j-th leaf's value).
 */
function groupSql(
  leaves: { leaf: Leaf; planned: PlannedLeaf }[],
  grain: number[],
  dims: Dim[],
  snap: ModelSnapshot,
  params: Params,
): string {
  const first = leaves[0]!;
  const pos = { offset: 0, line: 1, column: 1, text: first.leaf.text };
  const { anchor, conditions } = first.planned;
  const tree = joinTree(
    anchor,
    leaves.flatMap((x) => x.planned.needed),
    snap,
    pos,
    first.leaf.text,
  );
  const r = { params, pos, col: colRenderer(tree), agg: () => 'NULL' };
  const select: string[] = [];
  const groupBy: string[] = [];
  for (const d of grain) {
    const key = render(dims[d]!.key, r);
    const shown = render(dims[d]!.display, r);
    select.push(`${key} AS k${d}`, `${shown} AS x${d}`);
    // An attribute is its own shown value: grouping by it once is enough. Grouping by the
    // expressions (not the aliases) keeps a dataset column named like an alias harmless.
    groupBy.push(shown === key ? key : `${key}, ${shown}`);
  }
  leaves.forEach(({ leaf: l }, j) => {
    const arg = render(l.arg, r);
    let agg: string;
    if (l.fn !== 'COUNT') agg = `${l.fn.toLowerCase()}(${arg})`;
    else if (l.arg.t !== 'col' || l.arg.col.kind === 'fact') agg = `count(${arg})`;
    // The anchor's own primary key is unique and never null (loads check it): no DISTINCT.
    else if (
      l.arg.col.kind === 'attribute' &&
      l.arg.col.dataset === anchor &&
      snap.datasets.get(anchor)?.primaryKey === l.arg.col.column
    )
      agg = `count(${arg})`;
    else agg = `count(DISTINCT ${arg})`;
    select.push(`${agg} AS v${j}`);
  });
  const whereSql = conditions.length
    ? ` WHERE ${conditions.map((c) => renderCondition(c, r)).join(' AND ')}`
    : '';
  const group = groupBy.length ? ` GROUP BY ${groupBy.join(', ')}` : '';
  return `SELECT ${select.join(', ')} FROM ${tree.from} ${tree.joins.join(' ')}${whereSql}${group}`;
}

/**
 * Dimensions without a measure at their grain: the distinct combinations in the dataset
 * closest to them that reaches them all (every other such dataset reaches it).
 */
function dimsOnlyFrame(
  dims: Dim[],
  where: V | null,
  security: V | null,
  snap: ModelSnapshot,
  params: Params,
): { sql: string; desc: string } {
  const wanted = [
    ...new Set(
      dims.flatMap((d) => [...columnsIn(d.key), ...columnsIn(d.display)]).map((c) => c.dataset),
    ),
  ];
  // The dataset must also reach what the WHERE uses (not the row filter: it applies where
  // it can). `SELECT [Region] WHERE [Status] = "void"` lists the regions of void orders.
  const filtered = where ? columnsIn(where).map((c) => c.dataset) : [];
  const reach = [...new Set([...wanted, ...filtered])];
  const candidates = [...snap.datasets.keys()].filter((d) =>
    reach.every((w) => d === w || snap.paths(d, w).length === 1),
  );
  const pos = { offset: 0, line: 1, column: 1, text: dims.map((d) => dimTitle(d)).join(', ') };
  const best = candidates.find((c) => candidates.every((o) => o === c || snap.reaches(o, c)));
  if (!best)
    throw fail(
      `no dataset links the dimensions ${pos.text}${reach.length > wanted.length ? ' and the attributes of the WHERE' : ''}: they come from datasets ${reach.join(', ')}, and no one dataset reaches them all by a single reference path each; add a measure to anchor the query, or drop one of them`,
      pos,
      { datasets: reach },
    );
  const sec = securityFor(best, security, snap);
  const conditions = [...(where ? [where] : []), ...(sec ? [sec] : [])];
  const needed = [...wanted, ...conditions.flatMap((c) => columnsIn(c).map((x) => x.dataset))].map(
    (dataset) => ({ dataset, why: 'shown with the other dimensions' }),
  );
  const tree = joinTree(best, needed, snap, pos, `the dimensions ${pos.text}`);
  const r = { params, pos, col: colRenderer(tree), agg: () => 'NULL' };
  const select = dims
    .map((d, i) => `${render(d.key, r)} AS k${i}, ${render(d.display, r)} AS x${i}`)
    .join(', ');
  const whereSql = conditions.length
    ? ` WHERE ${conditions.map((c) => renderCondition(c, r)).join(' AND ')}`
    : '';
  return {
    sql: `SELECT DISTINCT ${select} FROM ${tree.from} ${tree.joins.join(' ')}${whereSql}`,
    desc: `distinct values in dataset ${best}`,
  };
}

export { kindOf };
