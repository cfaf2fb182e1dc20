// How a planning error suggests its fix. An aggregation that names only attributes is computed
// on the dataset they come from: `SUM(CASE WHEN [Year] = 2024 THEN 1 ELSE 0 END)` counts
// calendar days, so it cannot be broken down by a flight's origin. The fix is to name the
// columns of a dataset that reaches both, e.g. `YEAR([Flight Date])` for the calendar's [Year].
import type { Leaf, V } from './ir.js';
import { columnsIn, walk } from './ir.js';
import type { ModelSnapshot } from './model.js';

/** Calendar columns that are a date part of the calendar's date (data/packages/calendar.ts). */
const PARTS: Record<string, string> = {
  year: 'YEAR',
  quarter: 'QUARTER',
  month: 'MONTH',
  week: 'WEEK',
};

/**
 * For a leaf without facts whose anchor cannot reach `to`: the dataset that reaches both and a
 * rewrite of the leaf on it (null when the rewrite is not mechanical).
 */
export function anchorHint(
  l: Leaf,
  anchor: string,
  to: string,
  snap: ModelSnapshot,
): { dataset: string; rewrite: string | null } | null {
  if (l.countIn || l.by || columnsIn(l.arg).some((c) => c.kind === 'fact')) return null;
  const candidates = [...snap.datasets.keys()].filter(
    (d) => d !== anchor && snap.paths(d, anchor).length === 1 && snap.paths(d, to).length === 1,
  );
  // The closest: the one every other candidate reaches.
  const best =
    candidates.find((c) => candidates.every((o) => o === c || snap.reaches(o, c))) ?? candidates[0];
  if (!best) return null;
  const path = snap.paths(best, anchor)[0]!;
  const target = snap.datasets.get(anchor)!;
  if (path.length !== 1 || target.columns.get(target.primaryKey ?? '') !== 'date')
    return { dataset: best, rewrite: null };
  const refersBy = [...snap.byIdent.values()].find((o) => {
    const def = o.def as { dataset?: string; column?: string };
    return o.type === 'attribute' && def.dataset === best && def.column === path[0]!.column;
  });
  if (!refersBy) return { dataset: best, rewrite: null };
  let rewrite = l.text;
  let all = true;
  const cols: V[] = [];
  walk(l.arg, (x) => {
    if (x.t === 'col') cols.push(x);
  });
  for (const x of cols) {
    if (x.t !== 'col' || x.col.dataset !== anchor) continue;
    const part = PARTS[x.col.column];
    if (!part || !rewrite.includes(x.pos.text)) {
      all = false;
      continue;
    }
    rewrite = rewrite.split(x.pos.text).join(`${part}([${refersBy.name}])`);
  }
  return { dataset: best, rewrite: all && rewrite !== l.text ? rewrite : null };
}
