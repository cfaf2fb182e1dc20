// The AQL queries that show a dataset in Explore, small enough to read and run at once, in the
// builder's shape (so they show in the builder): its rows counted, for a freshly loaded one by
// its first attribute that is not the key, with its first facts summed. Objects are named by
// identifier (titles may have been made unique), columns titled (no raw AQL as a header).
import { appPath } from '../../router';
import type { Prescription } from '../../../contract/guess';

/** Facts summed beside the count. */
const FACTS = 2;

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The count of a dataset's rows, with a key or without. */
const count = (ds: string) => `COUNT([dataset.${ds}]) AS ${quote(`Count of ${ds}`)}`;

export const countQuery = (ds: string) => `SELECT ${count(ds)}`;

export function datasetQuery(
  p: Pick<Prescription, 'clustername' | 'columns' | 'primarykey'>,
): string {
  const ds = p.clustername;
  const by = p.columns.find((c) => c.objectType === 'A' && c.id !== p.primarykey);
  const sums = p.columns
    .filter((c) => c.objectType === 'F')
    .slice(0, FACTS)
    .map((c) => `SUM([fact.${ds}.${c.id}]) AS ${quote(`Sum of ${c.label || c.id}`)}`);
  return `SELECT ${[...(by ? [`[attr.${ds}.${by.id}]`] : []), count(ds), ...sums].join(', ')}`;
}

export const exploreHref = (project: string, aql: string) =>
  `${appPath('p', project, 'explore')}?${new URLSearchParams({ aql })}`;
