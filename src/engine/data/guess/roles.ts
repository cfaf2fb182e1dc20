// Roles of the structure guess: attribute, label (of which identifier) or fact for each
// column, and the primary key.
import { PRIMARY_KEY_TYPES, type Column, type DataType, type ObjectType } from '../prescription.js';
import { slugId, uniqueId, words } from './names.js';
import { headerTitle } from './titles.js';
import { isUnique, type Table } from './table.js';

const ID_WORDS = new Set(['id', 'code', 'key', 'no']);
const LABEL_WORDS = new Set(['name', 'label', 'title', 'desc', 'description', 'text']);

interface Draft {
  column: Column;
  words: string[];
  index: number;
}

export function buildColumns(table: Table): Column[] {
  const used = new Set<string>();
  const drafts = table.types.map((t, index): Draft => {
    const original = table.header?.[index] ?? '';
    const trimmed = original.trim();
    const id = uniqueId(slugId(trimmed, `column_${index + 1}`), used);
    const w = words(trimmed || id);
    const column: Column = {
      id,
      originalheader: original,
      objectType: objectTypeOf(t.dataType, w, table, index),
      dataType: t.dataType,
      label: trimmed ? headerTitle(trimmed) : `Column ${index + 1}`,
      ...(t.dateFormat ? { dateFormat: t.dateFormat } : {}),
    };
    return { column, words: w, index };
  });
  pairLabels(drafts, table);
  return drafts.map((d) => d.column);
}

const isIdName = (w: string[]) => ID_WORDS.has(w[w.length - 1] ?? '');

/** Numbers are facts unless they identify or code something; everything else is an attribute. */
function objectTypeOf(t: DataType, w: string[], table: Table, index: number): ObjectType {
  if (t !== 'integer' && t !== 'number') return 'A';
  if (isIdName(w)) return 'A';
  const integer = t === 'integer';
  const s = table.stats[index]!;
  if (integer && index === 0 && s.nulls === 0 && s.values >= 2 && isUnique(table, 0)) return 'A';
  if (integer && s.yearLike && w[w.length - 1] === 'year') return 'A';
  return 'F';
}

/** 2: names an identifier (`*_id`, `code`); 1: a bare noun (`carrier`); 0: a label word. */
function idness(w: string[]): number {
  const last = w[w.length - 1] ?? '';
  if (ID_WORDS.has(last)) return 2;
  return LABEL_WORDS.has(last) ? 0 : 1;
}

/** `airport_code` and `airport_name` share the stem `airport`; `id` and `name` the empty one. */
function stem(w: string[]): string {
  const last = w[w.length - 1] ?? '';
  const core = ID_WORDS.has(last) || LABEL_WORDS.has(last) ? w.slice(0, -1) : w;
  return core.join('_');
}

/**
 * A string column becomes a label of an identifier column with the same stem and a more
 * identifier-like name, when each identifier value maps to one value of it in the sample.
 * Candidates go from least to most identifier-like, so an identifier is never turned into
 * a label after something was attached to it.
 */
function pairLabels(drafts: Draft[], table: Table): void {
  const candidates = drafts
    .filter((d) => d.column.dataType === 'string' && d.column.objectType === 'A')
    .sort((a, b) => idness(a.words) - idness(b.words) || a.index - b.index);
  for (const label of candidates) {
    const target = findIdentifier(label, drafts, table);
    if (!target) continue;
    label.column.objectType = 'L';
    label.column.labelOf = target.column.id;
  }
}

function findIdentifier(label: Draft, drafts: Draft[], table: Table): Draft | undefined {
  const rank = idness(label.words);
  const matches = drafts.filter(
    (d) =>
      d !== label &&
      d.column.objectType === 'A' &&
      (d.column.dataType === 'string' || d.column.dataType === 'integer') &&
      idness(d.words) > rank &&
      stem(d.words) === stem(label.words) &&
      determines(table, d.index, label.index),
  );
  // The most identifier-like wins (`carrier_code` over `carrier`), then the leftmost.
  return matches.sort((a, b) => idness(b.words) - idness(a.words) || a.index - b.index)[0];
}

/** Each non-null value of column `key` comes with exactly one value of column `dep`. */
function determines(table: Table, key: number, dep: number): boolean {
  const stats = table.stats[key]!;
  if (stats.values === 0) return false;
  if (isUnique(table, key)) return true; // every key value occurs once: nothing can conflict
  const seen = new Map<string, string>();
  for (const row of table.body) {
    const k = (row[key] ?? '').trim();
    if (k === '') continue;
    const v = (row[dep] ?? '').trim();
    const before = seen.get(k);
    if (before === undefined) seen.set(k, v);
    else if (before !== v) return false;
  }
  return seen.size > 0;
}

// ---------------------------------------------------------------------------------------
// Primary key

function keyPreference(id: string, cluster: string): number {
  const singular = cluster.replace(/s$/, '');
  if (id === 'id') return 0;
  if (id === `${cluster}_id` || id === `${singular}_id`) return 1;
  if (id.endsWith('_id')) return 2;
  if (id === 'code') return 3;
  if (id === 'key') return 4;
  if (id.endsWith('_code') || id.endsWith('_key')) return 5;
  return 6;
}

/** The best-named attribute that is unique and never null in the sample; '' when none. */
export function choosePrimaryKey(columns: Column[], table: Table, cluster: string): string {
  const candidates = columns
    .map((column, index) => ({ column, index, stats: table.stats[index]! }))
    .filter(
      ({ column, stats }) =>
        column.objectType === 'A' &&
        PRIMARY_KEY_TYPES.includes(column.dataType) &&
        stats.values > 0 &&
        stats.nulls === 0,
    );
  // Array.prototype.sort is stable: equal preference keeps column order. Uniqueness is
  // checked last and lazily, so usually only the preferred column is hashed.
  candidates.sort(
    (a, b) => keyPreference(a.column.id, cluster) - keyPreference(b.column.id, cluster),
  );
  return candidates.find((c) => isUnique(table, c.index))?.column.id ?? '';
}
