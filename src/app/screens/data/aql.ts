// The AQL query that shows a freshly loaded dataset in Explore: its attributes and labels by
// identifier (titles may have been made unique), its facts summed per row of attributes.
import { appPath } from '../../router';
import type { Prescription } from './types';

export function datasetQuery(p: Pick<Prescription, 'clustername' | 'columns'>): string {
  const ds = p.clustername;
  const items = p.columns.map((c) =>
    c.objectType === 'F'
      ? `SUM([fact.${ds}.${c.id}])`
      : `[${c.objectType === 'L' ? 'label' : 'attr'}.${ds}.${c.id}]`,
  );
  return `SELECT ${items.join(', ')}\nLIMIT 100`;
}

export const exploreHref = (project: string, aql: string) =>
  `${appPath('p', project, 'explore')}?${new URLSearchParams({ aql })}`;
