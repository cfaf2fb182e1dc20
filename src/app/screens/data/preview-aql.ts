// The AQL of a dataset's first rows (pure: tests import it): every attribute and label as it
// is, every fact summed at the grain of those (a dataset with a key: one row per row), in the
// key's order, the first PREVIEW_ROWS. Objects by identifier, each column titled.

/** A dataset as GET pmd/graph/ldm answers it (only what the reader may see). */
export interface LdmDataset {
  name: string;
  rows: number | null;
  primaryKey: string | null;
  columns: {
    id: string;
    ident: string;
    type: 'attribute' | 'label' | 'fact';
    name: string;
    dataType: string;
    primaryKey: boolean;
  }[];
}

export const PREVIEW_ROWS = 20;

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** null: nothing to show (a dataset whose only readable columns are facts). */
export function previewQuery(ds: LdmDataset): string | null {
  const key = ds.columns.find((c) => c.primaryKey);
  const others = ds.columns.filter((c) => c.type !== 'fact' && c !== key);
  const dims = [...(key ? [key] : []), ...others];
  if (!dims.length) return null;
  const facts = ds.columns.filter((c) => c.type === 'fact');
  const items = [
    ...dims.map((c) => `[${c.ident}] AS ${quote(c.name)}`),
    ...facts.map((c) => `SUM([${c.ident}]) AS ${quote(c.name)}`),
  ];
  return `SELECT ${items.join(', ')} ORDER BY 1 LIMIT ${PREVIEW_ROWS}`;
}
