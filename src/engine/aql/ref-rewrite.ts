// Saved AQL survives renames. A saved metric, filter or report (and a member's row-level
// filter) is stored with every reference that resolves written as `[identifier]`, and with
// the positions of the references its author wrote by title. Reading shows those positions
// as `[Current Title]` again, so a load that relabels `Amount` to `Sales Amount` breaks
// nothing and the definition reads with the new title. References are found by the AQL
// lexer itself: a `[x]` inside a string or a comment is not one.
import type { IToken } from 'chevrotain';
import { titleKey, TITLED_TYPES } from '../model/defs.js';
import {
  COUNTABLE_TYPES,
  DATASET_PREFIX,
  datasetIdent,
  datasetNamed,
  datasetOfColumn,
} from './dataset-names.js';
import { Comma, Identifier, LParen, lexer, Ref, RParen } from './lexer.js';

/** One `[x]` of a text: where it is (end exclusive) and what it names, trimmed as AQL does. */
export interface RefToken {
  start: number;
  end: number;
  name: string;
  /** An argument of COUNT (`COUNT([x])`, `COUNT([a], [x])`), where a dataset may be named. */
  count: boolean;
}

const isCount = (t: IToken | undefined) =>
  t?.tokenType === Identifier && t.image.toUpperCase() === 'COUNT';

/** Every bracketed reference in order (empty `[]` included, so positions stay stable). */
export function refTokens(text: string): RefToken[] {
  const tokens = lexer.tokenize(text).tokens;
  const out: RefToken[] = [];
  tokens.forEach((t, i) => {
    if (t.tokenType !== Ref) return;
    const at = (k: number) => tokens[i + k];
    const closes = at(1)?.tokenType === RParen || at(1)?.tokenType === Comma;
    const first = at(-1)?.tokenType === LParen && isCount(at(-2)) && closes;
    const second =
      at(-1)?.tokenType === Comma &&
      at(-2)?.tokenType === Ref &&
      at(-3)?.tokenType === LParen &&
      isCount(at(-4)) &&
      at(1)?.tokenType === RParen;
    out.push({
      start: t.startOffset,
      end: t.startOffset + t.image.length,
      name: t.image.slice(1, -1).trim(),
      count: first || second,
    });
  });
  return out;
}

interface Named {
  ident: string;
  type: string;
  name: string;
  /** A column's def names its dataset: datasets are names too (dataset-names.ts). */
  def?: unknown;
}

/**
 * How AQL resolves a name in saved definitions: exact identifier, then title in any case —
 * and a dataset (type `dataset`, identifier `dataset.<name>`) where no object takes the name
 * (`counting`: as an argument of COUNT, where only what can be counted does).
 */
export interface RefModel {
  byIdent(ident: string): Named | undefined;
  byTitle(title: string, counting?: boolean): readonly Named[];
}

/** A RefModel over a project's objects (the same rule as aql/model.ts and dependencies.ts). */
export function refModel(rows: Iterable<Named>): RefModel {
  const ids = new Map<string, Named>();
  const titles = new Map<string, Named[]>();
  const datasets = new Map<string, Named>();
  for (const r of rows) {
    ids.set(r.ident, r);
    const ds = datasetOfColumn(r);
    if (ds && !datasets.has(ds))
      datasets.set(ds, { ident: datasetIdent(ds), type: 'dataset', name: ds });
    if (!TITLED_TYPES.includes(r.type)) continue;
    const key = titleKey(r.name);
    titles.set(key, [...(titles.get(key) ?? []), r]);
  }
  const byIdent = (ident: string) => ids.get(ident);
  const titled = (title: string) => titles.get(titleKey(title)) ?? [];
  const countable = (o: Named) => COUNTABLE_TYPES.includes(o.type);
  const dataset = (name: string, counting: boolean) =>
    datasetNamed(
      name,
      (n) => ids.has(n),
      (n) => titled(n).some((o) => !counting || countable(o)),
      (d) => datasets.has(d),
    );
  return {
    byIdent: (ident) => {
      const d = byIdent(ident) ? null : dataset(ident, false);
      return d && ident.startsWith(DATASET_PREFIX) ? datasets.get(d) : byIdent(ident);
    },
    byTitle: (title, counting = false) => {
      const all = titled(title);
      const d = title.startsWith(DATASET_PREFIX) ? null : dataset(title, counting);
      return d ? [datasets.get(d)!] : all;
    },
  };
}

/** A stored AQL text: references as identifiers, and which of them were written by title. */
export interface StoredAql {
  aql: string;
  /** Positions (0-based, among the text's references) the author wrote by title. */
  byTitle: number[];
}

function splice(text: string, tokens: RefToken[], replace: Map<number, string>): string {
  if (!replace.size) return text;
  let out = '';
  let at = 0;
  tokens.forEach((t, i) => {
    const r = replace.get(i);
    if (r === undefined) return;
    out += `${text.slice(at, t.start)}[${r}]`;
    at = t.end;
  });
  return out + text.slice(at);
}

/**
 * The text to store. A reference naming an identifier stays as written; one naming exactly
 * one object by title becomes `[ident]` and its position is remembered; one that resolves to
 * nothing, or to several objects, stays as written (validation reports it as before).
 * `keep`: positions already known to be written by title (a stored text migrated again).
 */
export function storeRefs(text: string, model: RefModel, keep: readonly number[] = []): StoredAql {
  const tokens = refTokens(text);
  const replace = new Map<number, string>();
  const byTitle = new Set(keep.filter((i) => Number.isInteger(i) && i >= 0 && i < tokens.length));
  tokens.forEach((t, i) => {
    if (!t.name || model.byIdent(t.name)) return;
    const owners = model.byTitle(t.name, t.count);
    if (owners.length !== 1) return;
    replace.set(i, owners[0]!.ident);
    byTitle.add(i);
  });
  return { aql: splice(text, tokens, replace), byTitle: [...byTitle].sort((a, b) => a - b) };
}

/**
 * The text to show: each position written by title as `[Current Title]`, unless that title
 * would not name the same object again (it holds `]` or a line break, is another object's
 * identifier, or is shared by several objects): then the identifier stays.
 */
export function showRefs(aql: string, byTitle: readonly number[] | undefined, model: RefModel) {
  if (!byTitle?.length) return aql;
  const tokens = refTokens(aql);
  const replace = new Map<number, string>();
  for (const i of byTitle) {
    const t = tokens[i];
    const target = t && model.byIdent(t.name);
    if (!target) continue;
    const title = target.name.trim();
    if (!title || /[\]\r\n]/.test(title)) continue;
    const other = model.byIdent(title);
    if (other && other !== target) continue;
    const owners = model.byTitle(title, t.count);
    if (!other && (owners.length !== 1 || owners[0] !== target)) continue;
    replace.set(i, title);
  }
  return splice(aql, tokens, replace);
}

/** The positions list as stored (defensive: old or hand-edited rows may hold anything). */
export function positions(v: unknown): number[] {
  return Array.isArray(v) ? v.filter((x): x is number => Number.isInteger(x) && x >= 0) : [];
}
