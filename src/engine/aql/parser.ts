// AQL parser: chevrotain with error recovery, building the syntax tree directly (embedded
// actions: no concrete syntax tree in between, so a query parses in microseconds).
import { EmbeddedActionsParser, type IToken, type TokenType } from 'chevrotain';
import type {
  Expr,
  FrameBound,
  MetricBody,
  OrderTarget,
  Over,
  Pos,
  Query,
  SelectItem,
} from './ast.js';
import { AqlError, sqlHabit } from './errors.js';
import * as T from './lexer.js';
import { aliasHint, refuseSqlHabits } from './sql-habits.js';

const FAKE: Pos = { offset: 0, line: 1, column: 1, text: '' };
const POSITION_FOLLOW = new Set(['Comma', 'ASC', 'DESC', 'LIMIT', 'OFFSET', 'EOF']);
type Call = Extract<Expr, { k: 'call' }>;

class AqlParser extends EmbeddedActionsParser {
  source = '';

  constructor() {
    super(T.allTokens, { recoveryEnabled: true, maxLookahead: 3 });
    this.performSelfAnalysis();
  }

  /** Position spanning from token `a` to token `b` (inclusive). */
  private span(a: IToken, b: IToken | undefined): Pos {
    if (!a || a.startOffset === undefined || Number.isNaN(a.startOffset)) return FAKE;
    const end = b && !Number.isNaN(b.endOffset ?? NaN) ? b.endOffset! : a.endOffset!;
    return {
      offset: a.startOffset,
      line: a.startLine ?? 1,
      column: a.startColumn ?? 1,
      text: this.source.slice(a.startOffset, end + 1),
    };
  }

  private last(): IToken {
    return this.LA(0);
  }

  /** Position from `start` to the last token consumed so far. */
  private within(start: IToken): Pos {
    return this.ACTION(() => this.span(start, this.last()));
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

  metric = this.RULE('metric', (): MetricBody => {
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
    const expr = this.SUBRULE(this.orExpr);
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

  private orExpr = this.RULE('orExpr', (): Expr => {
    const start = this.LA(1);
    let e = this.SUBRULE(this.andExpr);
    this.MANY(() => {
      this.CONSUME(T.Or);
      const r = this.SUBRULE2(this.andExpr);
      e = { k: 'or', l: e, r, pos: this.within(start) };
    });
    return e;
  });

  private andExpr = this.RULE('andExpr', (): Expr => {
    const start = this.LA(1);
    let e = this.SUBRULE(this.notExpr);
    this.MANY(() => {
      this.CONSUME(T.And);
      const r = this.SUBRULE2(this.notExpr);
      e = { k: 'and', l: e, r, pos: this.within(start) };
    });
    return e;
  });

  private notExpr = this.RULE('notExpr', (): Expr =>
    this.OR([
      {
        ALT: () => {
          const start = this.CONSUME(T.Not);
          const e = this.SUBRULE(this.notExpr);
          return { k: 'not' as const, e, pos: this.within(start) };
        },
      },
      { ALT: () => this.SUBRULE(this.comparison) },
    ]),
  );

  private comparison = this.RULE('comparison', (): Expr => {
    const start = this.LA(1);
    let e = this.SUBRULE(this.additive);
    this.OPTION(() => {
      e = this.OR([
        {
          ALT: () => {
            const op = this.OR2([
              { ALT: () => this.CONSUME(T.Eq) },
              { ALT: () => this.CONSUME(T.Ne) },
              { ALT: () => this.CONSUME(T.Le) },
              { ALT: () => this.CONSUME(T.Ge) },
              { ALT: () => this.CONSUME(T.Lt) },
              { ALT: () => this.CONSUME(T.Gt) },
            ]);
            const r = this.SUBRULE2(this.additive);
            const sym = this.ACTION(() =>
              op.tokenType === T.Ne ? '<>' : (op.image as '=' | '<' | '<=' | '>' | '>='),
            );
            return { k: 'cmp' as const, op: sym, l: e, r, pos: this.within(start) };
          },
        },
        {
          ALT: () => {
            let not = false;
            this.OPTION2(() => (this.CONSUME(T.Not), (not = true)));
            return this.OR3([
              {
                ALT: () => {
                  this.CONSUME(T.In);
                  this.CONSUME(T.LParen);
                  const list: Expr[] = [];
                  this.AT_LEAST_ONE_SEP({
                    SEP: T.Comma,
                    DEF: () => list.push(this.SUBRULE3(this.additive)),
                  });
                  this.CONSUME(T.RParen);
                  return { k: 'in' as const, e, list, not, pos: this.within(start) };
                },
              },
              {
                ALT: () => {
                  this.CONSUME(T.Between);
                  const lo = this.SUBRULE4(this.additive);
                  this.CONSUME(T.And);
                  const hi = this.SUBRULE5(this.additive);
                  return { k: 'between' as const, e, lo, hi, not, pos: this.within(start) };
                },
              },
              {
                ALT: () => {
                  const op = this.OR4([
                    { ALT: () => this.CONSUME(T.Like) },
                    { ALT: () => this.CONSUME(T.Ilike) },
                  ]);
                  const pattern = this.SUBRULE6(this.additive);
                  const ci = op.tokenType === T.Ilike;
                  return { k: 'like' as const, e, pattern, not, ci, pos: this.within(start) };
                },
              },
            ]);
          },
        },
        {
          ALT: () => {
            this.CONSUME(T.Is);
            let not = false;
            this.OPTION3(() => (this.CONSUME2(T.Not), (not = true)));
            this.CONSUME(T.Null);
            return { k: 'isnull' as const, e, not, pos: this.within(start) };
          },
        },
      ]);
    });
    return e;
  });

  private additive = this.RULE('additive', (): Expr => {
    const start = this.LA(1);
    let e = this.SUBRULE(this.multiplicative);
    this.MANY(() => {
      const op = this.OR([
        { ALT: () => this.CONSUME(T.Plus) },
        { ALT: () => this.CONSUME(T.Minus) },
        { ALT: () => this.CONSUME(T.Concat) },
      ]);
      const r = this.SUBRULE2(this.multiplicative);
      e = { k: 'arith', op: op.image as '+' | '-' | '||', l: e, r, pos: this.within(start) };
    });
    return e;
  });

  private multiplicative = this.RULE('multiplicative', (): Expr => {
    const start = this.LA(1);
    let e = this.SUBRULE(this.unary);
    this.MANY(() => {
      const op = this.OR([
        { ALT: () => this.CONSUME(T.Star) },
        { ALT: () => this.CONSUME(T.Slash) },
      ]);
      const r = this.SUBRULE2(this.unary);
      e = { k: 'arith', op: op.image as '*' | '/', l: e, r, pos: this.within(start) };
    });
    return e;
  });

  private unary = this.RULE('unary', (): Expr =>
    this.OR([
      {
        ALT: () => {
          const start = this.CONSUME(T.Minus);
          const e = this.SUBRULE(this.unary);
          return { k: 'neg' as const, e, pos: this.within(start) };
        },
      },
      { ALT: () => this.SUBRULE(this.primary) },
    ]),
  );

  private primary = this.RULE('primary', (): Expr =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(T.Num);
          return this.ACTION(() => ({
            k: 'num' as const,
            value: Number(t.image),
            pos: this.span(t, t),
          }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Str);
          return this.ACTION(() => ({
            k: 'str' as const,
            value: unquote(t.image),
            pos: this.span(t, t),
          }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Ref);
          return this.ACTION(() => ({
            k: 'ref' as const,
            name: t.image.slice(1, -1).trim(),
            pos: this.span(t, t),
          }));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.True);
          return { k: 'bool' as const, value: true, pos: this.ACTION(() => this.span(t, t)) };
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.False);
          return { k: 'bool' as const, value: false, pos: this.ACTION(() => this.span(t, t)) };
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Null);
          return { k: 'null' as const, pos: this.ACTION(() => this.span(t, t)) };
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Star);
          return { k: 'star' as const, pos: this.ACTION(() => this.span(t, t)) };
        },
      },
      { ALT: () => this.SUBRULE(this.caseExpr) },
      {
        // A name followed by "(" calls a function; alone it is a name without brackets.
        GATE: () => this.LA(2).tokenType === T.LParen,
        ALT: () => this.SUBRULE(this.call),
      },
      {
        ALT: () => {
          const t = this.CONSUME(T.Identifier);
          return this.ACTION(() => ({ k: 'bare' as const, name: t.image, pos: this.span(t, t) }));
        },
      },
      { ALT: () => this.SUBRULE(this.parens) },
    ]),
  );

  private call = this.RULE('call', (): Expr => {
    const name = this.CONSUME(T.Identifier);
    this.CONSUME(T.LParen);
    const args: Expr[] = [];
    this.MANY_SEP({ SEP: T.Comma, DEF: () => args.push(this.SUBRULE(this.orExpr)) });
    this.CONSUME(T.RParen);
    const call: Call = {
      k: 'call',
      name: name.image.toUpperCase(),
      args,
      pos: this.ACTION(() => this.span(name, this.last())),
    };
    let over: Over | null = null;
    this.OPTION(() => {
      this.CONSUME(T.Over);
      over = this.SUBRULE(this.overClause);
    });
    if (!over) return call;
    return { k: 'window', call, over, pos: this.ACTION(() => this.span(name, this.last())) };
  });

  private overClause = this.RULE('overClause', (): Over => {
    this.CONSUME(T.LParen);
    const partition: Expr[] = [];
    const order: Over['order'] = [];
    let frame: Over['frame'] = null;
    this.OPTION(() => {
      this.CONSUME(T.Partition);
      this.CONSUME(T.By);
      this.AT_LEAST_ONE_SEP({
        SEP: T.Comma,
        DEF: () => partition.push(this.SUBRULE(this.additive)),
      });
    });
    this.OPTION2(() => {
      this.CONSUME(T.Order);
      this.CONSUME2(T.By);
      this.AT_LEAST_ONE_SEP2({
        SEP: T.Comma,
        DEF: () => {
          const e = this.SUBRULE2(this.additive);
          let desc = false;
          this.OPTION3(() => {
            this.OR([
              { ALT: () => this.CONSUME(T.Asc) },
              { ALT: () => (this.CONSUME(T.Desc), (desc = true)) },
            ]);
          });
          order.push({ e, desc });
        },
      });
    });
    this.OPTION4(() => {
      const unit = this.OR2([
        { ALT: () => this.CONSUME(T.Rows) },
        { ALT: () => this.CONSUME(T.Range) },
      ]);
      const bounds = this.OR3([
        {
          ALT: () => {
            this.CONSUME(T.Between);
            const from = this.SUBRULE(this.frameBound);
            this.CONSUME(T.And);
            const to = this.SUBRULE2(this.frameBound);
            return { from, to };
          },
        },
        {
          ALT: () => {
            const from = this.SUBRULE3(this.frameBound);
            // `ROWS n PRECEDING` ends at the current row (from may be missing in recovery).
            const to = { kind: 'current' as const, n: null, pos: from?.pos ?? FAKE };
            return { from, to };
          },
        },
      ]);
      frame = this.ACTION(() => ({
        unit: (unit?.image ?? 'ROWS').toUpperCase() as 'ROWS' | 'RANGE',
        ...bounds,
      }));
    });
    this.CONSUME(T.RParen);
    return { partition, order, frame };
  });

  private frameBound = this.RULE('frameBound', (): FrameBound => {
    const start = this.LA(1);
    return this.OR([
      {
        ALT: () => {
          this.CONSUME(T.Unbounded);
          const dir = this.OR2([
            { ALT: () => this.CONSUME(T.Preceding) },
            { ALT: () => this.CONSUME(T.Following) },
          ]);
          return {
            kind: dir?.tokenType === T.Preceding ? ('preceding' as const) : ('following' as const),
            n: null,
            pos: this.within(start),
          };
        },
      },
      {
        ALT: () => {
          this.CONSUME(T.Current);
          this.CONSUME(T.Row);
          return { kind: 'current' as const, n: null, pos: this.within(start) };
        },
      },
      {
        ALT: () => {
          const n = this.CONSUME(T.Num);
          const dir = this.OR3([
            { ALT: () => this.CONSUME2(T.Preceding) },
            { ALT: () => this.CONSUME2(T.Following) },
          ]);
          return {
            kind: dir?.tokenType === T.Preceding ? ('preceding' as const) : ('following' as const),
            n: this.ACTION(() => Number(n.image)),
            pos: this.within(start),
          };
        },
      },
    ]);
  });

  private parens = this.RULE('parens', (): Expr => {
    const start = this.CONSUME(T.LParen);
    const e = this.OR([
      {
        ALT: () => {
          const metric = this.SUBRULE(this.metric);
          return { k: 'sub' as const, metric, pos: FAKE };
        },
      },
      { ALT: () => this.SUBRULE(this.orExpr) },
    ]);
    this.CONSUME(T.RParen);
    // A parenthesised expression spans its parentheses, so errors quote them too.
    return this.ACTION(() => ({ ...e, pos: this.span(start, this.last()) }) as Expr);
  });

  private caseExpr = this.RULE('caseExpr', (): Expr => {
    const start = this.CONSUME(T.Case);
    const whens: { when: Expr; then: Expr }[] = [];
    let otherwise: Expr | null = null;
    this.AT_LEAST_ONE(() => {
      this.CONSUME(T.When);
      const when = this.SUBRULE(this.orExpr);
      this.CONSUME(T.Then);
      const then = this.SUBRULE2(this.orExpr);
      whens.push({ when, then });
    });
    this.OPTION(() => {
      this.CONSUME(T.Else);
      otherwise = this.SUBRULE3(this.orExpr);
    });
    this.CONSUME(T.End);
    return {
      k: 'case',
      whens,
      else: otherwise,
      pos: this.ACTION(() => this.span(start, this.last())),
    };
  });
}

function unquote(image: string): string {
  const q = image[0]!;
  return image
    .slice(1, -1)
    .split(q + q)
    .join(q);
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
