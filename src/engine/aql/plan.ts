// Phase 3 of compiling a query (parse → resolve → plan → SQL): one aggregation leaf per
// measure on its own anchor dataset, joined only many-to-one (so no row is ever counted
// twice); leaves sharing anchor, conditions and grain computed by one scan; a coarser leaf
// rolled up from its full-grain twin where that gives the same value; and the frame — every
// combination of dimension values the result shows.
import type { Pos } from './ast.js';
import type { Relations } from './dialect/dialect.js';
import { dimTitle, grainFor, type Dim } from './dims.js';
import { columnsIn, leavesIn, shapeKey, type Column, type Leaf, type V } from './ir.js';
import { describePath, type Edge, type ModelSnapshot } from './model.js';
import type { ResolvedQuery } from './query-resolve.js';
import { fail } from './resolve.js';
import { groupsQuery } from './plan-groups.js';
import { nestQuery } from './plan-nest.js';
import { anchorHint } from './plan-hints.js';
import { AqlError, type AqlErrorContext } from './errors.js';

export interface LeafPlan {
  leaf: string;
  anchor: string;
  grain: string[];
  joins: string[];
  filters: number;
  /** An aggregation over groups: the BY dimensions (its measure's leaves are listed after it). */
  groupedBy?: string[];
  /** NEST(SELECT …): its own dimensions (its leaves are listed after it). */
  nested?: string[];
}

export interface PlannedLeaf {
  anchor: string;
  /** Metric WHERE, query WHERE and the row filter, ANDed. */
  conditions: V[];
  needed: { dataset: string; why: string }[];
  plan: LeafPlan;
  /** An aggregation over groups: the query computing its measure per group. */
  groups?: { rq: ResolvedQuery; plan: QueryPlan };
}

/** One aggregation query (l<g>): its leaves are its value columns v0, v1, … */
export interface Group {
  leaves: number[];
  grain: number[];
  /** Computed from another group's rows: `fn` of that group's value column. */
  /**
   * Computed from another group's rows: `fn` of that group's value column; with `inner`, of
   * group `inner` of the query inside group `from.g` (an aggregation over groups or a NEST).
   */
  rollup: { from: { g: number; j: number }; fn: string; inner?: number } | null;
}

export type FramePlan =
  | { kind: 'one' }
  | { kind: 'group'; g: number }
  | { kind: 'union'; groups: number[] }
  | {
      kind: 'distinct';
      dataset: string;
      conditions: V[];
      needed: { dataset: string; why: string }[];
      pos: Pos;
    };

export interface QueryPlan {
  leaves: Leaf[];
  /** Leaf id → index in `leaves` (equal leaves are computed once). */
  leafIndex: Map<number, number>;
  planned: PlannedLeaf[];
  groups: Group[];
  /** Leaf index → its group and value column. */
  slot: Map<number, { g: number; j: number }>;
  frame: FramePlan;
  frameDesc: string;
}

/** Aggregations whose value over a coarser grain is the same aggregation of finer groups. */
const REAGGREGATE: Partial<Record<Leaf['fn'], string>> = { SUM: 'sum', MIN: 'min', MAX: 'max' };

export function leafKey(l: Leaf): string {
  return shapeKey([
    l.fn,
    l.countIn,
    l.rows ?? false,
    l.distinct ?? false,
    l.fraction ?? null,
    l.arg,
    l.where,
    l.byAll?.map((c) => `${c.dataset}.${c.column}`) ?? null,
    l.by?.map((d) => d.key) ?? null,
    // Each NEST is its own query.
    l.nest ? l.id : null,
  ]);
}

export function planQuery(rq: ResolvedQuery, snap: ModelSnapshot): QueryPlan {
  const { dims } = rq;
  const all = [
    ...rq.items.filter((i) => i.kind === 'measure').flatMap((i) => leavesIn(i.v)),
    ...(rq.having ? leavesIn(rq.having) : []),
    ...(rq.qualify ? leavesIn(rq.qualify) : []),
    ...rq.order.flatMap((o) => ('v' in o.ref ? leavesIn(o.ref.v) : [])),
  ];
  const leafIndex = new Map<number, number>();
  const leaves: Leaf[] = [];
  const byKey = new Map<string, number>();
  for (const l of all) {
    const key = leafKey(l);
    let idx = byKey.get(key);
    if (idx === undefined) {
      idx = leaves.length;
      leaves.push(l);
      byKey.set(key, idx);
    }
    leafIndex.set(l.id, idx);
  }

  const grainOf = leaves.map((l) => grainFor(l, dims));
  // Each leaf is planned on its own (its anchor, join paths and errors); leaves with the same
  // anchor, metric conditions and grain are then computed by one aggregation query (one scan).
  // That never changes a value: every join is many-to-one onto a primary key, so another
  // leaf's joins neither add nor drop a row of the anchor.
  const planned = leaves.map((l, i) =>
    l.nest
      ? planNest(l, rq, snap)
      : l.by
        ? planGroups(l, grainOf[i]!, rq, snap)
        : planLeaf(l, grainOf[i]!, dims, rq.where, rq.security, snap),
  );
  // A leaf at a coarser grain (BY ALL) whose twin (same aggregation, argument and metric
  // WHERE) is computed at the full grain is that twin's groups added up again — a sum of
  // sums, a minimum of minimums, a maximum of maximums, a sum of row counts — since every
  // anchor row lies in exactly one full-grain group.
  // Not an aggregation over groups: its groups at a coarser grain are other groups.
  const rollupOf = (l: Leaf, anchor: string) =>
    l.by || l.nest
      ? undefined
      : (REAGGREGATE[l.fn] ?? (isRowCount(l, anchor, snap) ? 'sum' : undefined));
  const twinKey = (l: Leaf) => leafKey({ ...l, byAll: null });
  const fullTwin = new Map<string, number>();
  leaves.forEach((l, i) => {
    if (dims.length && grainOf[i]!.length === dims.length && rollupOf(l, planned[i]!.anchor))
      fullTwin.set(twinKey(l), i);
  });
  const derivedFrom = new Map<number, number>();
  leaves.forEach((l, i) => {
    const twin = grainOf[i]!.length < dims.length ? fullTwin.get(twinKey(l)) : undefined;
    if (twin !== undefined && rollupOf(l, planned[i]!.anchor)) derivedFrom.set(i, twin);
  });

  // A full-grain leaf whose twin the query of an aggregation over groups or of a NEST computes
  // at a finer grain (the full grain first, then theirs) is that twin's groups added up again:
  // the breakdown and its per-row total read the rows once.
  const external = new Map<number, { holder: number; t: number }>();
  if (dims.length)
    leaves.forEach((l, i) => {
      if (l.by || l.nest || derivedFrom.has(i) || grainOf[i]!.length !== dims.length) return;
      if (!rollupOf(l, planned[i]!.anchor)) return;
      const key = leafKey(l);
      planned.forEach((p, holder) => {
        const inner = p.groups;
        if (external.has(i) || !inner || grainOf[holder]!.length !== dims.length) return;
        if (leaves[holder]!.nest?.where) return; // a NEST's own WHERE filters its rows only
        const t = inner.plan.leaves.findIndex((x) => leafKey(x) === key);
        const at = t < 0 ? undefined : inner.plan.slot.get(t);
        const ig = at && inner.plan.groups[at.g]!;
        if (ig && !ig.rollup && ig.grain.length === inner.rq.dims.length)
          external.set(i, { holder, t });
      });
    });

  const groups: Group[] = [];
  const slot = new Map<number, { g: number; j: number }>();
  const groupOf = new Map<string, number>();
  leaves.forEach((l, i) => {
    if (derivedFrom.has(i) || external.has(i)) return;
    // An aggregation over groups is a query of its own: a group alone.
    const key =
      l.by || l.nest ? `groups ${i}` : shapeKey([planned[i]!.anchor, l.where, grainOf[i]]);
    let g = groupOf.get(key);
    if (g === undefined) {
      g = groups.length;
      groups.push({ leaves: [], grain: grainOf[i]!, rollup: null });
      groupOf.set(key, g);
    }
    slot.set(i, { g, j: groups[g]!.leaves.length });
    groups[g]!.leaves.push(i);
  });
  for (const [i, { holder, t }] of external) {
    const at = planned[holder]!.groups!.plan.slot.get(t)!;
    slot.set(i, { g: groups.length, j: 0 });
    groups.push({
      leaves: [i],
      grain: grainOf[i]!,
      rollup: {
        from: { g: slot.get(holder)!.g, j: at.j },
        fn: rollupOf(leaves[i]!, planned[i]!.anchor)!,
        inner: at.g,
      },
    });
  }
  for (const [i, twin] of derivedFrom) {
    const g = groups.length;
    groups.push({
      leaves: [i],
      grain: grainOf[i]!,
      rollup: { from: slot.get(twin)!, fn: rollupOf(leaves[i]!, planned[i]!.anchor)! },
    });
    slot.set(i, { g, j: 0 });
  }

  // The frame. With a single aggregation query at the full grain, its own rows are the frame.
  const full = groups.map((_, g) => g).filter((g) => groups[g]!.grain.length === dims.length);
  const fullText = () =>
    full.flatMap((g) => groups[g]!.leaves.map((i) => leaves[i]!.text)).join(', ');
  let frame: FramePlan;
  let frameDesc: string;
  if (!dims.length) {
    frame = { kind: 'one' };
    frameDesc = 'one row (no dimensions)';
  } else if (full.length === 1) {
    frame = { kind: 'group', g: full[0]! };
    frameDesc = `the dimension values of ${fullText()}`;
  } else if (full.length) {
    frame = { kind: 'union', groups: full };
    frameDesc = `the dimension values of ${fullText()}`;
  } else {
    const f = dimsOnlyFrame(dims, rq.where, rq.security, snap);
    frame = f;
    frameDesc = `distinct values in dataset ${f.dataset}`;
  }
  return { leaves, leafIndex, planned, groups, slot, frame, frameDesc };
}

/** COUNT of rows: of a dataset, of a fact's values, or of the anchor's own primary key. */
export function isRowCount(l: Leaf, anchor: string, snap: ModelSnapshot): boolean {
  if (l.rows) return true;
  if (l.fn !== 'COUNT' || l.distinct || l.arg.t !== 'col') return false;
  const c = l.arg.col;
  if (c.kind === 'fact') return true;
  // The anchor's own primary key is unique and never null (loads check it).
  return (
    c.kind === 'attribute' &&
    c.dataset === anchor &&
    snap.datasets.get(anchor)?.primaryKey === c.column
  );
}

/** The dataset an aggregation counts rows of. */
function anchorOf(l: Leaf, snap: ModelSnapshot, pos: Pos): string {
  if (l.countIn) return l.countIn;
  const cols = columnsIn(l.arg);
  if (l.fn === 'COUNT' && l.arg.t === 'col') return l.arg.col.dataset;
  const facts = cols.filter((c) => c.kind === 'fact');
  const pool = [...new Set((facts.length ? facts : cols).map((c) => c.dataset))];
  // resolve-call.ts refuses these first, with an example from the caller's model.
  if (!pool.length)
    throw fail(`${l.text} aggregates no fact or attribute; write e.g. SUM([<fact>])`, pos);
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

export interface JoinTree {
  from: string;
  aliasOf: Map<string, string>;
  relations: Relations;
  joins: string[];
  described: string[];
}

/** Relations named as the model names them: what a plan describes, before any target. */
const BY_NAME: Relations = { table: (dataset) => dataset, column: (_dataset, column) => column };

/** Joins from the anchor to every dataset needed, each by its one reference path. */
export function joinTree(
  anchor: string,
  needed: { dataset: string; why: string }[],
  snap: ModelSnapshot,
  pos: Pos,
  subject: string,
  relations: Relations,
): JoinTree {
  const { table, column } = relations;
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
        { paths: paths.map(describePath) },
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
          `LEFT JOIN ${table(e.to)} ${alias} ON ${alias}.${column(e.to, pk)} = ${parent}.${column(e.from, e.column)}`,
        );
        described.push(`${e.from}.${e.column} → ${e.to}`);
      }
      parent = alias;
    }
  }
  return { from: `${table(anchor)} t0`, aliasOf, relations, joins, described };
}

export function colRenderer(tree: JoinTree) {
  return (c: Column) =>
    `${tree.aliasOf.get(c.dataset)!}.${tree.relations.column(c.dataset, c.column)}`;
}

/** A missing path from an aggregation of attributes only: say where it is computed, and the fix. */
function withAnchorHint(err: unknown, l: Leaf, anchor: string, snap: ModelSnapshot): unknown {
  if (!(err instanceof AqlError) || l.origin) return err;
  const to = err.context?.to;
  if (typeof to !== 'string' || err.context?.from !== anchor) return err;
  const hint = anchorHint(l, anchor, to, snap);
  if (!hint) return err;
  const ctx = err.context as AqlErrorContext;
  const fix = hint.rewrite
    ? `, e.g. ${hint.rewrite}`
    : `, or count its rows with a condition: (SELECT COUNT([${hint.dataset}]) WHERE …)`;
  return new AqlError(
    `${err.message}. ${l.text} names only columns of dataset ${anchor}, so it is computed on the rows of ${anchor}; to compute it on the rows of ${hint.dataset}, name columns of ${hint.dataset}${fix}`,
    { ...ctx, ...(hint.rewrite ? { suggestions: [hint.rewrite] } : {}) },
  );
}

/** Conditions a dataset can evaluate: the row filter applies wherever it is reachable. */
function securityFor(anchor: string, security: V | null, snap: ModelSnapshot): V | null {
  if (!security) return null;
  const ds = new Set(columnsIn(security).map((c) => c.dataset));
  return [...ds].every((d) => d === anchor || snap.reaches(anchor, d)) ? security : null;
}

const title = (c: Column) => c.obj.name;

/** A leaf's anchor and the joins it needs (errors name the leaf, where it is written). */
function planLeaf(
  l: Leaf,
  grain: number[],
  dims: Dim[],
  where: V | null,
  security: V | null,
  snap: ModelSnapshot,
): PlannedLeaf {
  const pos = l.pos;
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
  // Planning checks the paths and describes them; the SQL joins are made for the target.
  let tree: JoinTree;
  try {
    tree = joinTree(anchor, needed, snap, pos, l.origin ?? l.text, BY_NAME);
  } catch (err) {
    throw withAnchorHint(err, l, anchor, snap);
  }
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

/** An aggregation over groups: its measure planned as a query at the grain plus BY. */
function planGroups(l: Leaf, grain: number[], rq: ResolvedQuery, snap: ModelSnapshot): PlannedLeaf {
  return planInner(
    l,
    groupsQuery(l, grain, rq),
    grain.map((d) => dimTitle(rq.dims[d]!)),
    snap,
    {
      groupedBy: l.by!.map(dimTitle),
    },
  );
}

/** NEST(SELECT …): its query planned with the outer dimensions first. */
function planNest(l: Leaf, rq: ResolvedQuery, snap: ModelSnapshot): PlannedLeaf {
  const inner = nestQuery(l, rq);
  return planInner(l, inner, rq.dims.map(dimTitle), snap, {
    nested: inner.dims.slice(rq.dims.length).map(dimTitle),
  });
}

/** A leaf computed by a query of its own: planned like any query, described by `about`. */
function planInner(
  l: Leaf,
  inner: ResolvedQuery,
  grain: string[],
  snap: ModelSnapshot,
  about: Pick<LeafPlan, 'groupedBy' | 'nested'>,
): PlannedLeaf {
  const plan = planQuery(inner, snap);
  const f = plan.frame;
  // The dataset its first aggregation counts in (what a metric "is on").
  const anchor = plan.planned[0]?.anchor ?? (f.kind === 'distinct' ? f.dataset : '');
  return {
    anchor,
    conditions: [],
    needed: [],
    groups: { rq: inner, plan },
    plan: { leaf: l.text, anchor, grain, joins: [], filters: 0, ...about },
  };
}

/** Every leaf's plan, those inside aggregations over groups after their own. */
export function leafPlans(plan: QueryPlan): LeafPlan[] {
  return plan.planned.flatMap((p) => [p.plan, ...(p.groups ? leafPlans(p.groups.plan) : [])]);
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
): Extract<FramePlan, { kind: 'distinct' }> {
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
  const names = dims.map((d) => dimTitle(d)).join(', ');
  const pos = { ...dims[0]!.pos, text: names };
  const best = candidates.find((c) => candidates.every((o) => o === c || snap.reaches(o, c)));
  if (!best)
    throw fail(
      `no dataset links the dimensions ${names}${reach.length > wanted.length ? ' and the attributes of the WHERE' : ''}: they come from datasets ${reach.join(', ')}, and no one dataset reaches them all by a single reference path each; add a measure to anchor the query, or drop one of them`,
      pos,
      { datasets: reach },
    );
  const sec = securityFor(best, security, snap);
  const conditions = [...(where ? [where] : []), ...(sec ? [sec] : [])];
  const needed = [...wanted, ...conditions.flatMap((c) => columnsIn(c).map((x) => x.dataset))].map(
    (dataset) => ({ dataset, why: 'shown with the other dimensions' }),
  );
  return { kind: 'distinct', dataset: best, conditions, needed, pos };
}
