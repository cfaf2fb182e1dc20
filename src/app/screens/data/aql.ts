// The AQL queries that show a dataset in Explore, small enough to read and run at once, in the
// builder's shape (so they show in the builder): its rows counted, for a freshly loaded one by
// an attribute of few values (else by month of a date, else the top 10 of an attribute), with
// its first facts summed. Objects are named by identifier (titles may have been made unique),
// columns titled (no raw AQL as a header).
import { get, projectApi } from '../../api';
import { appPath } from '../../router';
import type { AttributeValues } from '../../../contract/model';
import {
  breakdownCandidates,
  count,
  fallbackBreakdown,
  FEW_VALUES,
  type FirstBreakdown,
  type Loaded,
} from './first-question';

export const countQuery = (ds: string) => `SELECT ${count(ds)}`;

export { datasetQuery } from './first-question';

/**
 * The breakdown of a first look at a loaded dataset: the first attribute with at most
 * FEW_VALUES values (asked of the API, GET pmd/obj/{id}/values), else by month of a date,
 * else the top 10 of the first attribute. Never a list of every day or every key.
 */
export async function firstBreakdown(project: string, p: Loaded): Promise<FirstBreakdown> {
  const { plain } = breakdownCandidates(p);
  for (const column of plain.slice(0, 5)) {
    try {
      const v = await get<AttributeValues>(
        `${projectApi(project)}/pmd/obj/${encodeURIComponent(`attr.${p.clustername}.${column.id}`)}/values?limit=${FEW_VALUES}`,
      );
      if (!v.truncated && v.values.length > 0) return { kind: 'few', column };
    } catch {
      // A value list the reader may not see: the next attribute, or the fallback.
    }
  }
  return fallbackBreakdown(p);
}

export const exploreHref = (project: string, aql: string) =>
  `${appPath('p', project, 'explore')}?${new URLSearchParams({ aql })}`;
