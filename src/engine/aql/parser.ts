// AQL parser: chevrotain with error recovery, building the syntax tree directly (embedded
// actions: no concrete syntax tree in between, so a query parses in microseconds). This file
// holds the statements (query, metric, condition) and the entry point with its error messages;
// the expression grammar is in expr-grammar.ts and window-grammar.ts.
import type { IToken, TokenType } from 'chevrotain';
import type { Expr, MetricBody, OrderTarget, Pos, Query, SelectItem } from './ast.js';
import { AqlError, sqlHabit } from './errors.js';
import { unquote } from './expr-grammar.js';
import * as T from './lexer.js';
import { aliasHint, refuseSqlHabits } from './sql-habits.js';
import { WindowGrammar } from './window-grammar.js';

const POSITION_FOLLOW = new Set(['Comma', 'ASC', 'DESC', 'LIMIT', 'OFFSET', 'EOF']);

class AqlParser extends WindowGrammar {
  constructor() {
    super();
    // After every rule of the hierarchy is defined (class fields run before this line).
    this.performSelfAnalysis();
  }

  query = this.RULE('query', (): Query => {
    this.CONSUME(T.Select);
    const items: SelectItem[] = [];
    this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => items.push(this.SUBRULE(this.selectItem)) });
    let where: Expr | null = null;
    let having: Expr | null = null;
    let qualify: Expr | null = null;
    const orderBy: Query['orderBy'] = [];
    let limit: number | null = null;
    let offset: number | null = null;
    let limitPos: Pos | undefined;
    let offsetPos: Pos | undefined;
    this.OPTION(() => {
      this.CONSUME(T.Where);
      where = this.SUBRULE(this.orExpr);
    });
    this.OPTION2(() => {
      this.CONSUME(T.Having);
      having = this.SUBRULE2(this.orExpr);
    });
    this.OPTION6(() => {
      this.CONSUME(T.Qualify);
      qualify = this.SUBRULE3(this.orExpr);
    });
    this.OPTION3(() => {
      this.CONSUME(T.Order);
      this.CONSUME(T.By);
      this.AT_LEAST_ONE_SEP2({
        SEP: T.Comma,
        DEF: () => orderBy.push(this.SUBRULE(this.orderItem)),
      });
    });
    this.OPTION4(() => {
      this.CONSUME(T.Limit);
      const l = this.CONSUME(T.Num);
      limit = this.ACTION(() => Number(l.image));
      limitPos = this.ACTION(() => this.span(l, l));
      this.OPTION5(() => {
        this.CONSUME(T.Offset);
        const o = this.CONSUME2(T.Num);
        offset = this.ACTION(() => Number(o.image));
        offsetPos = this.ACTION(() => this.span(o, o));
      });
    });
    return { items, where, having, qualify, orderBy, limit, offset, limitPos, offsetPos };
  });

  override metric = this.RULE('metric', (): MetricBody => {
    const start = this.CONSUME(T.Select);
    const expr = this.SUBRULE(this.orExpr);
    let byAll: Expr[] | null = null;
    let where: Expr | null = null;
    this.OPTION(() => {
      this.CONSUME(T.By);
      this.CONSUME(T.All);
      byAll = [];
      this.MANY_SEP({ SEP: T.Comma, DEF: () => byAll!.push(this.SUBRULE(this.primary)) });
    });
    this.OPTION2(() => {
      this.CONSUME(T.Where);
      where = this.SUBRULE2(this.orExpr);
    });
    return { expr, byAll, where, pos: this.ACTION(() => this.span(start, this.last())) };
  });

  /** A lone condition (saved filters, row-level filters). */
  condition = this.RULE('condition', (): Expr => this.SUBRULE(this.orExpr));

  private selectItem = this.RULE('selectItem', (): SelectItem => {
    const start = this.LA(1);
    const expr = this.OR7([
      {
        // NEST(SELECT …): a breakdown inside each result row (sql-nest.ts).
        GATE: () =>
          this.LA(1).image?.toUpperCase() === 'NEST' &&
          this.LA(2).tokenType === T.LParen &&
          this.LA(3).tokenType === T.Select,
        ALT: () => {
          const name = this.CONSUME2(T.Identifier);
          this.CONSUME(T.LParen);
          const query = this.SUBRULE(this.query);
          this.CONSUME(T.RParen);
          return { k: 'nest' as const, query, pos: this.within(name) } as Expr;
        },
      },
      { ALT: () => this.SUBRULE(this.orExpr) },
    ]);
    let alias: string | null = null;
    this.OPTION(() => {
      this.CONSUME(T.As);
      const t = this.OR([
        { ALT: () => this.CONSUME(T.Str) },
        { ALT: () => this.CONSUME(T.Identifier) },
      ]);
      alias = this.ACTION(() => (t.tokenType === T.Str ? unquote(t.image) : t.image));
    });
    return { expr, alias, pos: this.ACTION(() => this.span(start, this.last())) };
  });

  private orderItem = this.RULE('orderItem', (): { target: OrderTarget; desc: boolean } => {
    const target = this.OR([
      {
        // "ORDER BY 2" is a position; "ORDER BY 2 * [x]" an expression.
        GATE: () =>
          this.LA(1).tokenType === T.Num && POSITION_FOLLOW.has(this.LA(2).tokenType.name),
        ALT: () => {
          const t = this.CONSUME(T.Num);
          return this.ACTION(() => ({
            k: 'position' as const,
            n: Number(t.image),
            pos: this.span(t, t),
          }));
        },
      },
      {
        GATE: () => this.LA(1).tokenType === T.Str,
        ALT: () => {
          const t = this.CONSUME(T.Str);
          return this.ACTION(() => ({
            k: 'alias' as const,
            name: unquote(t.image),
            pos: this.span(t, t),
          }));
        },
      },
      { ALT: () => ({ k: 'expr' as const, e: this.SUBRULE(this.additive) }) },
    ]);
    let desc = false;
    this.OPTION(() => {
      this.OR2([
        { ALT: () => this.CONSUME(T.Asc) },
        { ALT: () => (this.CONSUME(T.Desc), (desc = true)) },
      ]);
    });
    return { target, desc };
  });
}

const parser = new AqlParser();

/** Characters of SQL that AQL has no use for, and what to write instead. */
const SQL_CHARACTERS: Record<string, string> = {
  '.': '; AQL has no table.column: name an object in brackets by its title or identifier',
  ';': '; AQL takes one query, without ";"',
};

type Entry = 'query' | 'metric' | 'condition';

/** Parses AQL text; any lexing or parsing problem becomes one AqlError listing them all. */
export function parse(text: string, entry: 'query'): Query;
export function parse(text: string, entry: 'metric'): MetricBody;
export function parse(text: string, entry: 'condition'): Expr;
export function parse(text: string, entry: Entry): Query | MetricBody | Expr {
  const lexed = T.lexer.tokenize(text);
  if (lexed.errors.length) {
    const e = lexed.errors[0]!;
    const found = text.slice(e.offset, e.offset + Math.max(1, e.length));
    const hint = found.startsWith('[')
      ? 'a reference is not closed with "]"'
      : `unexpected character "${found}"${SQL_CHARACTERS[found[0]!] ?? ''}`;
    const err = new AqlError(`syntax error at line ${e.line}, column ${e.column}: ${hint}`, {
      line: e.line ?? 1,
      column: e.column ?? 1,
      found,
      expected: [],
    });
    throw SQL_CHARACTERS[found[0]!] ? sqlHabit(err) : err;
  }
  refuseSqlHabits(lexed.tokens);
  parser.source = text;
  parser.input = lexed.tokens;
  const result = parser[entry]();
  if (parser.errors.length) throw syntaxError(lexed.tokens, parser.errors);
  return result as Query | MetricBody | Expr;
}

interface ParseErr {
  message: string;
  token: IToken;
  previousToken?: IToken;
}

function syntaxError(tokens: IToken[], errors: ParseErr[]): AqlError {
  const first = errors[0]!;
  const t = first.token;
  const atEnd = t.tokenType.name === 'EOF';
  const anchor = atEnd ? (first.previousToken ?? t) : t;
  const line = atEnd ? (anchor.endLine ?? 1) : (t.startLine ?? 1);
  const column = atEnd ? (anchor.endColumn ?? 0) + 1 : (t.startColumn ?? 1);
  const found = atEnd ? 'end of query' : `"${t.image}"`;
  const expected = expectedFrom(first.message);
  const alias = atEnd ? null : aliasHint(tokens, t);
  const wanted = alias
    ? `; ${alias}`
    : expected.length
      ? `; expected ${expected.join(' or ')}`
      : '';
  return new AqlError(
    `syntax error at line ${line}, column ${column}: unexpected ${found}${wanted}`,
    {
      line,
      column,
      found: atEnd ? '' : t.image,
      expected,
      ...(errors.length > 1
        ? {
            more: errors.slice(1, 5).map((e) => ({
              line: e.token.startLine,
              column: e.token.startColumn,
              found: e.token.image,
            })),
          }
        : {}),
    },
  );
}

/** Token names in chevrotain's message ("--> RParen <--", "[Ref, Num]") turned into words. */
function expectedFrom(message: string): string[] {
  const names = new Set<string>();
  for (const m of message.matchAll(/-->\s*([A-Za-z]+)\s*<--|\[([A-Za-z]+)\]|<([A-Za-z]+)>/g)) {
    const n = m[1] ?? m[2] ?? m[3];
    if (n && T.TOKEN_TEXT[n]) names.add(T.TOKEN_TEXT[n]);
  }
  return [...names].slice(0, 8);
}

export type { TokenType };
