// A NEST(SELECT …) item as CTEs named `name`…: the nested query's rows numbered within each
// result row by its ORDER BY (then its dimensions), kept within its OFFSET and LIMIT, and put
// together as one JSON list per result row (`name`: k<d>, x<d> of the outer dimensions, v0).
import type { Pos } from './ast.js';
import type { V } from './ir.js';
import type { ResolvedQuery } from './query-resolve.js';
import type { Params } from './sqlgen.js';

/** What sql-query.ts's parts() gives for a query's plan. */
export interface NestParts {
  ctes: string[];
  frame: string;
  from: string;
  assemble: (v: V, pos: Pos, condition?: boolean) => string;
}

/**
 * `rq`: the nested query with the outer dimensions first (plan-nest.ts); `outer`: how many;
 * `q`: its parts.
 */
export function nestCtes(
  rq: ResolvedQuery,
  outer: number,
  q: NestParts,
  params: Params,
  name: string,
): string[] {
  const { dialect } = params;
  const inner = rq.dims.map((_, d) => d).filter((d) => d >= outer);
  const cells = rq.items.map((it, i) =>
    it.kind === 'dimension'
      ? `${q.frame}.x${outer + rq.dims.slice(outer).findIndex((d) => d.item === i)}`
      : q.assemble(it.v, it.pos),
  );
  const order = [
    ...rq.order.map(
      (o) =>
        `${'col' in o.ref ? cells[o.ref.col]! : q.assemble(o.ref.v, o.pos)} ${o.desc ? 'DESC' : 'ASC'} NULLS LAST`,
    ),
    ...inner.flatMap((d) => [`${q.frame}.x${d} ASC NULLS LAST`, `${q.frame}.k${d} ASC NULLS LAST`]),
  ];
  const keys = Array.from({ length: outer }, (_, d) => `k${d}, x${d}`);
  const partition = keys.length
    ? `PARTITION BY ${Array.from({ length: outer }, (_, d) => `${q.frame}.k${d}`).join(', ')} `
    : '';
  // Rows HAVING drops are numbered last and left out of the list, not out of the result: a
  // result row whose nested rows all fail HAVING (or lie past OFFSET) shows an empty list.
  const having = rq.having ? q.assemble(rq.having, rq.having.pos, true) : null;
  if (having) order.unshift(`(CASE WHEN ${having} THEN 0 ELSE 1 END)`);
  const rn = `row_number() OVER (${partition}${order.length ? `ORDER BY ${order.join(', ')}` : ''})`;
  const select = [
    ...Array.from(
      { length: outer },
      (_, d) => `${q.frame}.k${d} AS k${d}, ${q.frame}.x${d} AS x${d}`,
    ),
    ...cells.map((c, i) => `${c} AS c${i}`),
    `${rn} AS rn`,
    `${having ?? 'true'} AS ok`,
  ];
  const numbered = `${name}r AS (SELECT ${select.join(', ')} FROM ${q.from})`;
  const from = rq.offset ?? 0;
  const keep = [
    'ok',
    ...(from ? [`rn > ${from}`] : []),
    ...(rq.limit !== null ? [`rn <= ${from + rq.limit}`] : []),
  ];
  const list = dialect.jsonList(
    rq.items.map((it, i) => ({ name: it.title, sql: `c${i}` })),
    'rn',
    keep.join(' AND '),
    (v) => params.add(v),
  );
  const grouped = `${name} AS (SELECT ${[...keys, `${list} AS v0`].join(', ')} FROM ${name}r${keys.length ? ` GROUP BY ${keys.join(', ')}` : ''})`;
  return [...q.ctes, numbered, grouped];
}
