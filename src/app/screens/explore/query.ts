// Running a query: POST app/aql/execute with `Prefer: wait=30` answers the result inline when
// it ends within 30 s; a longer one answers 202 and its data link is polled until it ends.
import type { PlannedColumn, QueryAnswer } from '../../../contract/queries';
import { API, api, get, projectApi } from '../../api';
import { readableTitle } from './builder-aql';
import type { ResultColumn } from './chart-data';
import type { Problem } from './fixes';

export interface QueryResult {
  /** Titles, with each column's kind and data type from the query's plan when it was read. */
  columns: ResultColumn[];
  rows: string[][];
  /** The data link without /api/v1 (for the CSV download). */
  data: string;
  /** Values in WHERE that match no member (only on results without rows). */
  warnings: Problem[];
}

const WAIT_S = 30;
const POLL_MS = 500;

/** Rows of `values`: rows joined by newlines, cells by tabs (docs/aql.md §9). */
export const rowsOf = (values: string): string[][] =>
  values === '' ? [] : values.split('\n').map((r) => r.split('\t'));

/**
 * Runs `aql` and answers its result; null once `stale()` says a newer run took over. Invalid
 * AQL throws the API's 400 (an ApiError with `context.line`, `column`, `found`, …).
 */
export async function runQuery(
  project: string,
  aql: string,
  stale: () => boolean,
): Promise<QueryResult | null> {
  const first = await api<QueryAnswer>(
    'POST',
    `${projectApi(project)}/app/aql/execute`,
    { aql },
    { prefer: `wait=${WAIT_S}` },
  );
  const href = first.link?.find((l) => l.rel === 'data.created')?.href;
  if (!href) throw new Error('the query answered no data link');
  let data = first.data;
  while (!data) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (stale()) return null;
    data = (await get<QueryAnswer>(href)).data;
  }
  // The plan (nothing runs) tells dimensions from measures and their types, for the chart;
  // asked once the query ran, so a mistake is refused once.
  const planned = (
    await api<{ explain: { columns: PlannedColumn[] } }>(
      'POST',
      `${projectApi(project)}/app/aql/explain`,
      { aql },
    ).catch(() => null)
  )?.explain.columns;
  if (stale()) return null;
  const same = planned?.length === data.visual.column.length;
  return {
    columns: data.visual.column.map((c, j) => ({
      title: readableTitle(c.title),
      ...(readableTitle(c.title) !== c.title ? { aql: c.title } : {}),
      ...(same ? { kind: planned[j]!.kind, dataType: planned[j]!.dataType } : {}),
      ...(same && planned[j]!.columns ? { columns: planned[j]!.columns } : {}),
    })),
    rows: rowsOf(data.values),
    data: href.startsWith(`${API}/`) ? href.slice(API.length) : href,
    warnings: data.warnings ?? [],
  };
}
