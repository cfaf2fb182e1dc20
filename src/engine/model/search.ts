// Ranking of app/obj/search: a hit in a more important field always ranks above a hit in a
// less important one (a name hit above any description hit); within a field, an exact match
// ranks above a prefix, a prefix above the start of a word, that above any substring.
import {
  MATCH_KINDS,
  SEARCH_FIELDS,
  type MatchKind,
  type SearchField,
} from '../../contract/model.js';
import { invalid } from '../errors.js';
import type { ObjectRow } from './store.js';

export { MATCH_KINDS, SEARCH_FIELDS, type MatchKind, type SearchField };

/** What a search reads of an object (a dataset is searched by its name as one). */
export type Searchable = Pick<ObjectRow, 'ident' | 'type' | 'name' | 'description' | 'tags'>;

export interface SearchHit<T extends Searchable = ObjectRow> {
  row: T;
  field: SearchField;
  match: MatchKind;
  /** Lower is better: field rank × 4 + match rank. */
  rank: number;
}

/** `params` as given (comma list); `tag` is accepted for `tags`. Empty → every field. */
export function parseSearchFields(raw: string | undefined): SearchField[] {
  if (raw === undefined || raw.trim() === '') return [...SEARCH_FIELDS];
  const asked = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (p === 'tag' ? 'tags' : p));
  const unknown = asked.filter((p) => !(SEARCH_FIELDS as readonly string[]).includes(p));
  if (unknown.length)
    throw invalid(
      `unknown search field ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${SEARCH_FIELDS.join(', ')}`,
      { field: 'params', invalid: unknown, allowed: [...SEARCH_FIELDS] },
    );
  return SEARCH_FIELDS.filter((f) => asked.includes(f));
}

export function searchRows<T extends Searchable>(
  rows: T[],
  query: string,
  fields: SearchField[],
): SearchHit<T>[] {
  const q = query.trim().toLowerCase();
  const hits: SearchHit<T>[] = [];
  for (const row of rows) {
    let best: SearchHit<T> | null = null;
    for (const field of fields) {
      const fieldRank = SEARCH_FIELDS.indexOf(field);
      for (const text of valuesOf(row, field)) {
        const kind = matchKind(text.toLowerCase(), q);
        if (kind === null) continue;
        const rank = fieldRank * 4 + MATCH_KINDS.indexOf(kind);
        if (!best || rank < best.rank) best = { row, field, match: kind, rank };
      }
      if (best) break; // fields are in rank order: a later field cannot beat this one
    }
    if (best) hits.push(best);
  }
  return hits.sort(
    (a, b) =>
      a.rank - b.rank ||
      a.row.name.localeCompare(b.row.name) ||
      a.row.ident.localeCompare(b.row.ident),
  );
}

function valuesOf(row: Searchable, field: SearchField): string[] {
  if (field === 'tags') return row.tags;
  return [row[field]];
}

function matchKind(text: string, q: string): MatchKind | null {
  if (text === q) return 'exact';
  if (text.startsWith(q)) return 'prefix';
  const at = text.indexOf(q);
  if (at < 0) return null;
  // The start of a later word: a hit right after a non-alphanumeric character.
  for (let i = at; i >= 0; i = text.indexOf(q, i + 1)) {
    if (!/[\p{L}\p{N}]/u.test(text[i - 1]!)) return 'word';
  }
  return 'substring';
}
