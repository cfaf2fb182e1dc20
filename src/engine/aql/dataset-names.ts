// Datasets as names in AQL: `COUNT([flights])` counts the rows of dataset flights. A dataset
// is named by its identifier `dataset.<name>` or by its name, after the objects: an object's
// identifier, then the dataset identifier, then an object's title, then the dataset name.
// As an argument of COUNT only what can be counted takes a title first (attributes, labels,
// facts): a metric titled "Flights" leaves COUNT([flights]) to the dataset. The compiler
// (resolve.ts) and saved AQL (ref-rewrite.ts) resolve by this one rule.
import { LOAD_TYPES, titleKey } from '../model/defs.js';

export const DATASET_PREFIX = 'dataset.';

export const datasetIdent = (name: string): string => `${DATASET_PREFIX}${name}`;

/** What COUNT can count by title: a dataset's name comes before other titles there. */
export const COUNTABLE_TYPES: readonly string[] = LOAD_TYPES;

/** The dataset a column object belongs to, or undefined for any other object. */
export function datasetOfColumn(o: { type: string; def?: unknown }): string | undefined {
  if (!(LOAD_TYPES as readonly string[]).includes(o.type)) return undefined;
  const ds = (o.def as { dataset?: unknown } | undefined)?.dataset;
  return typeof ds === 'string' ? ds : undefined;
}

/**
 * The dataset `name` means, when no object takes it first: `isIdent(name)` says an object
 * has that identifier, `isTitle(name)` that an object has that title, `has(d)` that dataset
 * `d` exists (for the reader).
 */
export function datasetNamed(
  name: string,
  isIdent: (name: string) => boolean,
  isTitle: (name: string) => boolean,
  has: (dataset: string) => boolean,
): string | null {
  if (isIdent(name)) return null;
  if (name.startsWith(DATASET_PREFIX)) {
    const d = name.slice(DATASET_PREFIX.length);
    if (has(d)) return d;
  }
  if (isTitle(name)) return null;
  const d = titleKey(name);
  return has(d) ? d : null;
}
