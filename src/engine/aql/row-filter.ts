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
  let condition: string;
  let named: Set<string>;
  try {
    const v = resolveExpr(
      parse(text, 'condition'),
      rootCtx({ snap, visible: () => true, counter: { n: 0 } }, true),
    );
    // The object rows are not part of the meaning; their dataset and column are.
    condition = JSON.stringify(v, (k, x: unknown) => (k === 'obj' ? undefined : x));
    named = new Set(columnsIn(v).map((c) => c.dataset));
  } catch (err) {
    if (err instanceof AqlError || err instanceof RangeError)
      return { condition: null, restricts: [] };
    throw err;
  }
  const restricts = [...snap.datasets.keys()]
    .filter((d) => [...named].every((n) => n === d || snap.reaches(d, n)))
    .sort();
  return { condition, restricts };
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
