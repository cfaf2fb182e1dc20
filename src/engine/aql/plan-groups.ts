// The query inside an aggregation over groups (resolve-groups.ts): its dimensions are the
// outer leaf's grain followed by the BY dimensions, its one measure the aggregated one, and it
// keeps the outer query's WHERE and row filter. Planned and written like any query.
import { checkAssembled, dimTitle, dimsAsColumns, type Dim } from './dims.js';
import { shapeKey, type Leaf } from './ir.js';
import type { ResolvedQuery } from './query-resolve.js';
import { dataTypeOf } from './dims.js';

export function groupsQuery(l: Leaf, grain: number[], rq: ResolvedQuery): ResolvedQuery {
  const outer = grain.map((d) => rq.dims[d]!);
  const extra = l.by!.filter((b) => !outer.some((o) => shapeKey(o.key) === shapeKey(b.key)));
  const dims: Dim[] = [...outer, ...extra].map((d, i) => ({ ...d, item: i }));
  // The measure may repeat a dimension outside its aggregations, as a SELECT measure may.
  const measure = dimsAsColumns(l.arg, dims);
  checkAssembled(measure, dims, 'SELECT');
  return {
    items: [
      ...dims.map((d) => ({
        v: d.display,
        kind: 'dimension' as const,
        pos: d.pos,
        title: dimTitle(d),
        dataType: d.dataType,
      })),
      {
        v: measure,
        kind: 'measure' as const,
        pos: l.pos,
        title: l.text,
        dataType: dataTypeOf(measure),
      },
    ],
    dims,
    where: rq.where,
    having: null,
    qualify: null,
    order: [],
    security: rq.security,
    limit: null,
    offset: null,
    objects: [],
    valueChecks: [],
  };
}
