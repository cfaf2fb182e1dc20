// The AQL of saved metrics, filters and reports as stored and as shown (aql/ref-rewrite.ts):
// stored with references as identifiers plus `aqlByTitle`, the positions written by title;
// shown with those positions as the objects' current titles and without `aqlByTitle`.
import { positions, showRefs, storeRefs, type RefModel } from '../aql/ref-rewrite.js';
import { AQL_KIND, type ObjectType } from './defs.js';

/** The def key holding the positions written by title; never shown, never accepted. */
export const BY_TITLE_KEY = 'aqlByTitle';

type Def = Record<string, unknown>;

const holdsAql = (type: string, def: Def): def is Def & { aql: string } =>
  AQL_KIND[type as ObjectType] !== undefined && typeof def.aql === 'string';

function withPositions(def: Def, aql: string, byTitle: number[]): Def {
  const { [BY_TITLE_KEY]: _old, ...rest } = def;
  return { ...rest, aql, ...(byTitle.length ? { [BY_TITLE_KEY]: byTitle } : {}) };
}

/**
 * The def to store, from a def as written. When it stores the same text as `previous` (a def
 * read and sent back), what `previous` knew was written by title is kept: a reference shown
 * as an identifier because its title was ambiguous then reads by title again later.
 */
export function storeDef(type: string, def: Def, model: RefModel, previous?: Def): Def {
  if (!holdsAql(type, def)) return def;
  const s = storeRefs(def.aql, model);
  const kept = previous && previous.aql === s.aql ? positions(previous[BY_TITLE_KEY]) : [];
  return withPositions(
    def,
    s.aql,
    [...new Set([...s.byTitle, ...kept])].sort((a, b) => a - b),
  );
}

/** A stored def brought up to date: titles still in its text become identifiers too. */
export function migrateDef(type: string, def: Def, model: RefModel): Def {
  if (!holdsAql(type, def)) return def;
  const s = storeRefs(def.aql, model, positions(def[BY_TITLE_KEY]));
  return withPositions(def, s.aql, s.byTitle);
}

/** The def as the API shows it. */
export function showDef(type: string, def: Def, model: RefModel): Def {
  if (!holdsAql(type, def) || !(BY_TITLE_KEY in def)) return def;
  const { [BY_TITLE_KEY]: byTitle, ...rest } = def;
  return { ...rest, aql: showRefs(def.aql, positions(byTitle), model) };
}
