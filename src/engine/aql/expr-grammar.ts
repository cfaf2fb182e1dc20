// AQL's expression grammar: logic, comparisons, arithmetic, literals, names, calls, CASE and
// parentheses, with the position helpers every rule uses. The window clause and the statements
// extend it (window-grammar.ts, parser.ts).
import { EmbeddedActionsParser, type IToken, type ParserMethod } from 'chevrotain';
import type { Expr, MetricBody, Over, Pos } from './ast.js';
import * as T from './lexer.js';

export const FAKE: Pos = { offset: 0, line: 1, column: 1, text: '' };
type Call = Extract<Expr, { k: 'call' }>;

export abstract class ExprGrammar extends EmbeddedActionsParser {
  source = '';

  constructor() {
    super(T.allTokens, { recoveryEnabled: true, maxLookahead: 3 });
  }

  /** Position spanning from token `a` to token `b` (inclusive). */
  protected span(a: IToken, b: IToken | undefined): Pos {
    if (!a || a.startOffset === undefined || Number.isNaN(a.startOffset)) return FAKE;
    const end = b && !Number.isNaN(b.endOffset ?? NaN) ? b.endOffset! : a.endOffset!;
    return {
      offset: a.startOffset,
      line: a.startLine ?? 1,
      column: a.startColumn ?? 1,
      text: this.source.slice(a.startOffset, end + 1),
    };
  }

  protected last(): IToken {
    return this.LA(0);
  }

  /** Position from `start` to the last token consumed so far. */
  protected within(start: IToken): Pos {
    return this.ACTION(() => this.span(start, this.last()));
  }

  // Defined by the subclasses; referenced here because a call may carry OVER (...) and
  // parentheses may hold a metric subquery. Chevrotain resolves them at self-analysis.
  protected abstract overClause: ParserMethod<[], Over>;
  abstract metric: ParserMethod<[], MetricBody>;

  protected orExpr = this.RULE('orExpr', (): Expr => {
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

  protected additive = this.RULE('additive', (): Expr => {
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

  protected primary = this.RULE('primary', (): Expr =>
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
    // `AVG(SUM([Sales]) BY [Month])`: an aggregation of a measure computed per group.
    const by: Expr[] = [];
    this.OPTION2(() => {
      this.CONSUME(T.By);
      this.AT_LEAST_ONE_SEP({ SEP: T.Comma, DEF: () => by.push(this.SUBRULE2(this.orExpr)) });
    });
    this.CONSUME(T.RParen);
    const call: Call = {
      k: 'call',
      name: name.image.toUpperCase(),
      args,
      ...(by.length ? { by } : {}),
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

export function unquote(image: string): string {
  const q = image[0]!;
  return image
    .slice(1, -1)
    .split(q + q)
    .join(q);
}
