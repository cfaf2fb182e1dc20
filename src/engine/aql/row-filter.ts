// What a row-level filter means on a given model: the condition it resolves to (saved filters
// expanded, titles turned into dataset columns) and the datasets it restricts (those that
// reach every dataset it names; compile.ts applies it there). Two states of the model give
// the filter the same meaning when both agree, so cached results stay valid, and a model
// change that alters them changes what a member may see.
import { AqlError } from './errors.js';
import { columnsIn } from './ir.js';
import type { ModelSnapshot } from './model.js';
import { parse } from './parser.js';
import { resolveExpr, rootCtx } from './resolve.js';

export interface FilterMeaning {
  /** The resolved condition (JSON), or null when it does not resolve on this model. */
  condition: string | null;
  /** Datasets whose rows it restricts, sorted. */
  restricts: string[];
}

export function filterMeaning(snap: ModelSnapshot, text: string): FilterMeaning {
  const r = resolveFilter(snap, text);
  if (!r) return { condition: null, restricts: [] };
  return { condition: r.condition, restricts: restrictedBy(snap, r.named) };
}

/**
 * The datasets whose rows decide what the filter selects: those it names columns of, and
 * those a restricted dataset reaches them through. Loading one changes which rows it lets
 * through elsewhere; loading a dataset it only restricts changes just the rows loaded.
 */
export function filterReads(snap: ModelSnapshot, text: string): string[] {
  const r = resolveFilter(snap, text);
  if (!r) return [];
  const out = new Set([...r.named].filter((n) => snap.datasets.has(n)));
  for (const d of restrictedBy(snap, r.named))
    for (const n of r.named)
      for (const path of snap.paths(d, n)) for (const e of path) out.add(e.to);
  return [...out].sort();
}

function resolveFilter(
  snap: ModelSnapshot,
  text: string,
): { condition: string; named: Set<string> } | null {
  try {
    const v = resolveExpr(
      parse(text, 'condition'),
      rootCtx({ snap, visible: () => true, counter: { n: 0 } }, true),
    );
    // The object rows are not part of the meaning; their dataset and column are.
    const condition = JSON.stringify(v, (k, x: unknown) => (k === 'obj' ? undefined : x));
    return { condition, named: new Set(columnsIn(v).map((c) => c.dataset)) };
  } catch (err) {
    if (err instanceof AqlError || err instanceof RangeError) return null;
    throw err;
  }
}

/** Datasets that reach every named one: the filter restricts their rows. */
function restrictedBy(snap: ModelSnapshot, named: Set<string>): string[] {
  return [...snap.datasets.keys()]
    .filter((d) => [...named].every((n) => n === d || snap.reaches(d, n)))
    .sort();
}

/** A stable key of a filter's meaning (for result caches). */
export const meaningKey = (m: FilterMeaning): string => JSON.stringify(m);

/**
 * Whether `after` lets the filter select other rows than `before` did: another condition
 * (including one that no longer resolves, or now does), or a dataset it restricted that still
 * exists but is no longer restricted. A new dataset it restricts widens nothing.
 */
export function meaningChanged(
  before: FilterMeaning,
  after: FilterMeaning,
  datasetsAfter: ReadonlySet<string>,
): boolean {
  if (before.condition !== after.condition) return true;
  return before.restricts.some((d) => datasetsAfter.has(d) && !after.restricts.includes(d));
}
