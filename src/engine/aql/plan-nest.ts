// The query of a NEST(SELECT …) item: its dimensions come after the outer query's (so each of
// its rows belongs to one result row), its WHERE adds to the outer WHERE, the row filter is the
// same, and its HAVING, ORDER BY and LIMIT apply within each result row (sql-nest.ts).
import { DIM, type Dim } from './dims.js';
import { mapV, type Leaf, type V } from './ir.js';
import type { ResolvedQuery } from './query-resolve.js';

export function nestQuery(l: Leaf, rq: ResolvedQuery): ResolvedQuery {
  const inner = l.nest!;
  const m = rq.dims.length;
  // The nested query's clauses name its own dimensions by position: they move up by m.
  const shift = (v: V): V =>
    mapV(v, (x) =>
      x.t === 'agg'
        ? x
        : x.t === 'col' && x.col.dataset === DIM
          ? { ...x, col: { ...x.col, column: String(Number(x.col.column) + m) } }
          : null,
    );
  const dims: Dim[] = [...rq.dims, ...inner.dims];
  const where: V | null =
    rq.where && inner.where
      ? { t: 'and', l: rq.where, r: inner.where, pos: inner.where.pos }
      : (rq.where ?? inner.where);
  return {
    ...inner,
    items: inner.items.map((i) => (i.kind === 'measure' ? { ...i, v: shift(i.v) } : i)),
    dims,
    where,
    having: inner.having ? shift(inner.having) : null,
    order: inner.order.map((o) => ('v' in o.ref ? { ...o, ref: { v: shift(o.ref.v) } } : o)),
    security: rq.security,
  };
}
