// The first question on a dataset in Explore (pure: no API here, so tests import it): its
// rows counted, and its first facts summed, by an attribute of few values, by month of a date,
// or the top 10 of an attribute; in the builder's shape, objects named by identifier.
import type { Prescription, PrescriptionColumn } from '../../../contract/guess.js';

/** Facts summed beside the count. */
const FACTS = 2;

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The count of a dataset's rows, with a key or without. */
export const count = (ds: string) => `COUNT([dataset.${ds}]) AS ${quote(`Count of ${ds}`)}`;

export type Loaded = Pick<Prescription, 'clustername' | 'columns' | 'primarykey'>;

/** How the first question breaks the rows down. */
export type FirstBreakdown =
  /** By an attribute of few values, most rows first. */
  | { kind: 'few'; column: PrescriptionColumn }
  /** By month of a date. */
  | { kind: 'month'; column: PrescriptionColumn }
  /** The 10 values of an attribute with most rows. */
  | { kind: 'top'; column: PrescriptionColumn }
  | { kind: 'none' };

/** At most this many values make an attribute one to break a first look down by. */
export const FEW_VALUES = 20;
const TOP = 10;

const isDateColumn = (c: PrescriptionColumn) => c.dataType === 'date' || c.dataType === 'datetime';

/** The attributes a first look may break down by: not the key, dates apart. */
export function breakdownCandidates(p: Loaded): {
  plain: PrescriptionColumn[];
  dates: PrescriptionColumn[];
} {
  const attrs = p.columns.filter((c) => c.objectType === 'A' && c.id !== p.primarykey);
  return { plain: attrs.filter((c) => !isDateColumn(c)), dates: attrs.filter(isDateColumn) };
}

/** The first question on a dataset: its rows counted (and its first facts summed) by `by`. */
export function datasetQuery(p: Loaded, by?: FirstBreakdown): string {
  const ds = p.clustername;
  const b = by ?? fallbackBreakdown(p);
  const sums = p.columns
    .filter((c) => c.objectType === 'F')
    .slice(0, FACTS)
    .map((c) => `SUM([fact.${ds}.${c.id}]) AS ${quote(`Sum of ${c.label || c.id}`)}`);
  const ref = b.kind === 'none' ? '' : `[attr.${ds}.${b.column.id}]`;
  const dim =
    b.kind === 'none'
      ? []
      : b.kind === 'month'
        ? [`DATE_TRUNC("month", ${ref}) AS ${quote(`${b.column.label || b.column.id} (month)`)}`]
        : [ref];
  const select = `SELECT ${[...dim, count(ds), ...sums].join(', ')}`;
  if (b.kind === 'few') return `${select}\nORDER BY 2 DESC`;
  if (b.kind === 'month') return `${select}\nORDER BY 1`;
  if (b.kind === 'top') return `${select}\nORDER BY 2 DESC\nLIMIT ${TOP}`;
  return select;
}

/** Without knowing the values: by month of a date, else the top 10 of an attribute. */
export function fallbackBreakdown(p: Loaded): FirstBreakdown {
  const { plain, dates } = breakdownCandidates(p);
  if (dates[0]) return { kind: 'month', column: dates[0] };
  return plain[0] ? { kind: 'top', column: plain[0] } : { kind: 'none' };
}
