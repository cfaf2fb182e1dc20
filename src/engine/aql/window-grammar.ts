// The OVER (...) clause of a window call: PARTITION BY, ORDER BY and the ROWS/RANGE frame.
import type { Expr, FrameBound, Over } from './ast.js';
import { ExprGrammar, FAKE } from './expr-grammar.js';
import * as T from './lexer.js';

export abstract class WindowGrammar extends ExprGrammar {
  protected override overClause = this.RULE('overClause', (): Over => {
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
}
