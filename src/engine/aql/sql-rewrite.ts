// SQL written as AQL: an assistant with SQL habits (FROM, GROUP BY, column names without
// brackets, COUNT(*), TOP, table.column) gets back the query to write, in the names of its own
// model. The text is read with the AQL tokens plus "." and ";". FROM and JOIN name the
// datasets (and their aliases) that settle which column a name means and what COUNT(*)
// counts; GROUP BY is dropped (the dimensions are the grain); SELECT items with their
// aliases, WHERE, HAVING, QUALIFY, ORDER BY, LIMIT and OFFSET are carried over with names in
// brackets. A name that maps to no object of the reader is left out with the item or
// condition holding it, and said. The caller offers the result only if it compiles.
import { createToken, Lexer, type IToken, type TokenType } from 'chevrotain';
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';
import { AqlError, sqlHabit, type AqlErrorContext } from './errors.js';
import type { Examples } from './examples.js';
import * as T from './lexer.js';

const Dot = createToken({ name: 'Dot', pattern: /\./ });
const Semicolon = createToken({ name: 'Semicolon', pattern: /;/ });
const at = T.allTokens.indexOf(T.Select);
const sqlLexer = new Lexer(
  [...T.allTokens.slice(0, at), Dot, Semicolon, ...T.allTokens.slice(at)],
  {
    positionTracking: 'onlyOffset',
    ensureOptimizations: false,
  },
);

export interface Rewrite {
  aql: string;
  /** Names that map to no object the reader can see (their items and conditions are out). */
  leftOut: string[];
}

type Clause =
  'select' | 'from' | 'group' | 'where' | 'having' | 'qualify' | 'order' | 'limit' | 'offset';

const word = (t: IToken | undefined): string =>
  t && t.tokenType === T.Identifier ? t.image.toUpperCase() : '';
const is = (t: IToken | undefined, type: TokenType) => t?.tokenType === type;
const unquote = (image: string) =>
  image
    .slice(1, -1)
    .split(image[0]! + image[0]!)
    .join(image[0]!);
const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Words after a table (and its alias) in FROM. */
const JOIN_WORDS = new Set([
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'OUTER',
  'CROSS',
  'NATURAL',
  'ON',
  'USING',
]);
const DATE_PARTS = new Set(['YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY']);
const ENDS_VALUE = new Set([T.RParen, T.Ref, T.Identifier, T.Str, T.Num, T.End]);

/** Splits tokens at depth-0 tokens for which `cut` holds (the cut tokens are dropped). */
function split(tokens: IToken[], cut: (t: IToken) => boolean): IToken[][] {
  const out: IToken[][] = [[]];
  let depth = 0;
  for (const t of tokens) {
    if (is(t, T.LParen)) depth++;
    if (is(t, T.RParen)) depth--;
    if (depth === 0 && cut(t)) out.push([]);
    else out[out.length - 1]!.push(t);
  }
  return out.filter((p) => p.length);
}

/** The clauses of a SELECT at depth 0, or null when it is not one query we can read. */
function clauses(tokens: IToken[]): Map<Clause, IToken[]> | null {
  const out = new Map<Clause, IToken[]>();
  let current: Clause = 'select';
  let depth = 0;
  out.set(current, []);
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (is(t, T.LParen)) depth++;
    if (is(t, T.RParen)) depth--;
    let next: Clause | null = null;
    if (depth === 0) {
      if (word(t) === 'FROM' && current === 'select') next = 'from';
      else if (word(t) === 'GROUP' && is(tokens[i + 1], T.By)) next = 'group';
      else if (is(t, T.Where)) next = 'where';
      else if (is(t, T.Having)) next = 'having';
      else if (is(t, T.Qualify)) next = 'qualify';
      else if (is(t, T.Order) && is(tokens[i + 1], T.By)) next = 'order';
      else if (is(t, T.Limit)) next = 'limit';
      else if (is(t, T.Offset)) next = 'offset';
    }
    if (!next) {
      out.get(current)!.push(t);
      continue;
    }
    if (out.has(next)) return null;
    current = next;
    out.set(current, []);
    if (next === 'group' || next === 'order') i++; // BY
  }
  return out;
}

interface Piece {
  text: string;
  /** No space before it. */
  glue: boolean;
}

const render = (pieces: Piece[]) =>
  pieces.map((p, i) => (i === 0 || p.glue ? p.text : ` ${p.text}`)).join('');

class Rewriter {
  /** Alias or table name (lower case) → dataset, from FROM and JOIN. */
  private tables = new Map<string, string>();
  private from: string[] = [];
  private used = new Set<string>();
  private leftOut = new Set<string>();
  /** SELECT aliases (lower case) → the item's tokens. */
  private aliases = new Map<string, IToken[]>();
  private countStar = '\u0000rows\u0000';

  constructor(private readonly ex: Examples) {}

  private dataset(name: string): string | undefined {
    const key = name.toLowerCase().replace(/^ds_/, '');
    return this.ex.datasets().find((d) => d === key);
  }

  /** Reads the datasets (and aliases) of FROM and JOIN; false for a sub-query. */
  readFrom(tokens: IToken[]): boolean {
    let table = true; // a table comes next: first, after JOIN and after a comma
    let depth = 0;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (depth === 0 && table) {
        if (is(t, T.LParen)) return false;
        table = false;
        let name = is(t, T.Str) ? unquote(t.image) : t.image;
        while (is(tokens[i + 1], Dot) && tokens[i + 2]) name = tokens[(i += 2)]!.image; // schema.table
        const ds = this.dataset(name);
        if (!ds) this.leftOut.add(name);
        else {
          this.from.push(ds);
          this.tables.set(name.toLowerCase(), ds);
        }
        if (is(tokens[i + 1], T.As)) i++;
        const alias = tokens[i + 1];
        if (
          ds &&
          alias &&
          (is(alias, T.Identifier) || is(alias, T.Str)) &&
          !JOIN_WORDS.has(word(alias))
        ) {
          this.tables.set(
            (is(alias, T.Str) ? unquote(alias.image) : alias.image).toLowerCase(),
            ds,
          );
          i++;
        }
        continue;
      }
      if (is(t, T.LParen)) depth++;
      if (is(t, T.RParen)) depth--;
      if (depth === 0 && (is(t, T.Comma) || word(t) === 'JOIN')) table = true;
    }
    return true;
  }

  /** The object a column name means: in its table, in FROM's datasets, by title, anywhere. */
  private column(name: string, table: string | null): ObjectRow | null {
    const cols = this.ex.columns();
    const key = name.toLowerCase();
    const inDs = (d: string) => [...(cols.get(d)?.entries() ?? [])];
    const byColumn = (ds: string[]) =>
      ds.flatMap((d) =>
        inDs(d)
          .filter(([c]) => c.toLowerCase() === key)
          .map(([, o]) => o),
      );
    const all = this.ex.datasets();
    const byTitle = (t: string, ds: string[]) =>
      ds.flatMap((d) =>
        inDs(d)
          .filter(([, o]) => titleKey(o.name) === t)
          .map(([, o]) => o),
      );
    const one = (list: ObjectRow[]) => (list.length === 1 ? list[0]! : null);
    if (table !== null) {
      const ds = this.tables.get(table.toLowerCase()) ?? this.dataset(table);
      if (!ds) return null;
      return one(byColumn([ds])) ?? one(byTitle(titleKey(name), [ds]));
    }
    return (
      one(byColumn(this.from)) ??
      one(byTitle(titleKey(name), all)) ??
      one(byTitle(titleKey(name.replaceAll('_', ' ')), all)) ??
      one(byColumn(all))
    );
  }

  private name(name: string, table: string | null): string | null {
    const o = this.column(name, table);
    if (!o) {
      this.leftOut.add(table ? `${table}.${name}` : name);
      return null;
    }
    this.used.add((o.def as { dataset: string }).dataset);
    return this.ex.ref(o);
  }

  /** An expression in AQL, or null when it holds a name that maps to nothing. */
  expr(tokens: IToken[], clause: Clause): string | null {
    const out: Piece[] = [];
    let ok = true;
    const push = (text: string, glue = false) => out.push({ text, glue });
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      const next = tokens[i + 1];
      const glue = !!out.at(-1)?.text.endsWith('(');
      if (is(t, T.Identifier) && is(next, T.LParen)) {
        const fn = t.image.toUpperCase();
        const close = closing(tokens, i + 1);
        const args = tokens.slice(i + 2, close);
        if (
          fn === 'COUNT' &&
          args.length === 1 &&
          (is(args[0], T.Star) || args[0]!.image === '1')
        ) {
          push(`COUNT(${this.countStar})`, glue);
          i = close;
          continue;
        }
        if (fn === 'EXTRACT' && DATE_PARTS.has(word(args[0])) && word(args[1]) === 'FROM') {
          const inner = this.expr(args.slice(2), clause);
          if (inner === null) ok = false;
          push(`${word(args[0])}(${inner ?? ''})`, glue);
          i = close;
          continue;
        }
        push(fn, glue);
        push('(', true);
        i++;
        continue;
      }
      if (is(t, T.LParen)) {
        push('(', glue);
        continue;
      }
      if (is(t, T.RParen) || is(t, T.Comma)) {
        push(t.image, true);
        continue;
      }
      if (is(t, T.Identifier)) {
        const w = word(t);
        if (w === 'DISTINCT') continue; // COUNT(DISTINCT x) is COUNT(x)
        if (w === 'NULLS' && ['FIRST', 'LAST'].includes(word(next))) {
          i++; // AQL sorts nulls last
          continue;
        }
        if (is(next, Dot)) {
          const col = tokens[i + 2];
          const mapped = col && is(col, T.Identifier) ? this.name(col.image, t.image) : null;
          if (mapped === null) {
            if (!col || !is(col, T.Identifier)) this.leftOut.add(`${t.image}.${col?.image ?? ''}`);
            ok = false;
          }
          push(mapped ?? '', glue);
          i += 2;
          continue;
        }
        const alias = this.aliases.get(t.image.toLowerCase());
        if (alias && clause !== 'select') {
          if (clause === 'order') push(quote(aliasText(alias, t.image)), glue);
          else {
            // The aliased expression itself (SQL's HAVING total > 10), in parentheses unless
            // it is one name or one call.
            const e = itemExpr(alias);
            const inner = this.expr(e, clause);
            if (inner === null) ok = false;
            const whole = e.length === 1 || (is(e[1], T.LParen) && closing(e, 1) === e.length - 1);
            push(whole ? (inner ?? '') : `(${inner ?? ''})`, glue);
          }
          continue;
        }
        const mapped = this.name(t.image, null);
        if (mapped === null) ok = false;
        push(mapped ?? '', glue);
        continue;
      }
      if (is(t, T.Star) && clause === 'select' && tokens.length === 1) {
        this.leftOut.add('*');
        ok = false;
        continue;
      }
      // Keywords in upper case; references, strings, numbers and operators as written.
      push(/^[A-Za-z]+$/.test(t.image) ? t.image.toUpperCase() : t.image, glue);
    }
    return ok ? render(out) : null;
  }

  rewrite(text: string): Rewrite | null {
    const lexed = sqlLexer.tokenize(text);
    if (lexed.errors.length) return null;
    let tokens = lexed.tokens;
    const end = tokens.findIndex((t) => is(t, Semicolon));
    if (end >= 0) {
      if (end < tokens.length - 1) return null; // more than one statement
      tokens = tokens.slice(0, end);
    }
    if (!is(tokens[0], T.Select)) return null;
    const parts = clauses(tokens);
    if (!parts) return null;
    if (parts.has('from') && !this.readFrom(parts.get('from')!)) return null;

    let select = parts.get('select')!;
    let limit: string | null = null;
    if (word(select[0]) === 'DISTINCT') select = select.slice(1);
    if (word(select[0]) === 'TOP' && is(select[1], T.Num)) {
      limit = select[1]!.image;
      select = select.slice(2);
    }
    const items = split(select, (t) => is(t, T.Comma)).map((item) => {
      const alias = aliasOf(item);
      if (alias) this.aliases.set(alias.toLowerCase(), item);
      return { item, alias };
    });
    const shown = items
      .map(({ item, alias }) => {
        const e = this.expr(itemExpr(item), 'select');
        return e === null ? null : alias ? `${e} AS ${quote(alias)}` : e;
      })
      .filter((e): e is string => e !== null);
    if (!shown.length) return null;

    const conditions = (clause: Clause) => {
      const tokens = parts.get(clause);
      if (!tokens) return null;
      const kept = conjuncts(tokens)
        .map((c) => this.expr(c, clause))
        .filter((c): c is string => c !== null);
      return kept.length ? kept.join(' AND ') : null;
    };
    const where = conditions('where');
    const having = conditions('having');
    const qualify = conditions('qualify');
    const order = parts.has('order')
      ? split(parts.get('order')!, (t) => is(t, T.Comma))
          .map((o) => this.expr(o, 'order'))
          .filter((o): o is string => o !== null)
      : [];
    let offset = parts.get('offset')?.find((t) => is(t, T.Num))?.image ?? null;
    const [first, comma, count] = parts.get('limit') ?? [];
    if (first && is(first, T.Num)) {
      // LIMIT offset, count (MySQL)
      if (comma && count && is(comma, T.Comma) && is(count, T.Num)) {
        offset = first.image;
        limit = count.image;
      } else limit = first.image;
    }

    let aql = `SELECT ${shown.join(', ')}`;
    if (where) aql += ` WHERE ${where}`;
    if (having) aql += ` HAVING ${having}`;
    if (qualify) aql += ` QUALIFY ${qualify}`;
    if (order.length) aql += ` ORDER BY ${order.join(', ')}`;
    if (limit) aql += ` LIMIT ${limit}`;
    if (offset) aql += ` OFFSET ${offset}`;
    return { aql: aql.replaceAll(this.countStar, this.rowsOf()), leftOut: [...this.leftOut] };
  }

  /**
   * What COUNT(*) counts: FROM's first dataset, else the one that reaches every dataset the
   * query names (the finest grain among them).
   */
  private rowsOf(): string {
    if (this.from.length) return this.ex.datasetRef(this.from[0]!);
    const { snap } = this.ex.env;
    const all = this.ex.datasets();
    const reach = (d: string) => all.filter((o) => o !== d && snap.reaches(d, o)).length;
    const fits = all.filter((d) => [...this.used].every((u) => u === d || snap.reaches(d, u)));
    const best = fits.reduce<string | null>(
      (b, d) => (b === null || reach(d) > reach(b) ? d : b),
      null,
    );
    return best ? this.ex.datasetRef(best) : this.ex.dataset();
  }
}

/** The index of the parenthesis closing the one at `open`. */
function closing(tokens: IToken[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (is(tokens[i], T.LParen)) depth++;
    if (is(tokens[i], T.RParen) && --depth === 0) return i;
  }
  return tokens.length;
}

/** A SELECT item's alias: after AS, or a trailing word after a value (`COUNT(*) n`). */
function aliasOf(item: IToken[]): string | null {
  const as = item.findIndex((t) => is(t, T.As));
  const name = as >= 0 ? item[as + 1] : item.length > 1 ? item.at(-1) : undefined;
  if (!name || (as < 0 && (!is(name, T.Identifier) || !ENDS_VALUE.has(item.at(-2)!.tokenType))))
    return null;
  if (as < 0 && is(item.at(-2), Dot)) return null;
  return is(name, T.Str) ? unquote(name.image) : is(name, T.Identifier) ? name.image : null;
}

/** A SELECT item without its alias. */
function itemExpr(item: IToken[]): IToken[] {
  const as = item.findIndex((t) => is(t, T.As));
  if (as >= 0) return item.slice(0, as);
  return aliasOf(item) ? item.slice(0, -1) : item;
}

const aliasText = (item: IToken[], fallback: string) => aliasOf(item) ?? fallback;

/** The conditions ANDed at the top (one, when an OR at the top binds them together). */
function conjuncts(tokens: IToken[]): IToken[][] {
  let depth = 0;
  let or = false;
  for (const t of tokens) {
    if (is(t, T.LParen)) depth++;
    if (is(t, T.RParen)) depth--;
    if (depth === 0 && is(t, T.Or)) or = true;
  }
  if (or) return [tokens];
  let between = false;
  return split(tokens, (t) => {
    if (is(t, T.Between)) between = true;
    if (!is(t, T.And)) return false;
    if (between) {
      between = false; // the AND of BETWEEN … AND …
      return false;
    }
    return true;
  });
}

/** The query `text` written in AQL for the reader of `ex`, or null when it cannot be read. */
export function rewriteSql(text: string, ex: Examples): Rewrite | null {
  return new Rewriter(ex).rewrite(text);
}

/**
 * A SQL habit's error with the query written in AQL (in its message and, last, in its
 * suggestions) — when `compiles` accepts that query; else the error as it was.
 */
export function offerRewrite(
  err: AqlError,
  text: string,
  ex: Examples,
  compiles: (aql: string) => unknown,
): AqlError {
  const r = rewriteSql(text, ex);
  if (!r || r.aql === text.trim()) return err;
  try {
    compiles(r.aql);
  } catch {
    return err;
  }
  const c = err.context as AqlErrorContext;
  const left = r.leftOut.length
    ? ` (left out: ${r.leftOut.join(', ')}; no object or dataset you can read is named so)`
    : '';
  return sqlHabit(
    new AqlError(`${err.message}. In AQL: ${r.aql}${left}`, {
      ...c,
      suggestions: [...(c.suggestions ?? []), r.aql],
      ...(r.leftOut.length ? { leftOut: r.leftOut } : {}),
    }),
  );
}
