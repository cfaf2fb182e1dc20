// The AQL syntax tree. Every node keeps where it came from, so errors can point at it.

export interface Pos {
  offset: number;
  line: number;
  column: number;
  /** The source text of the node. */
  text: string;
}

export type Expr =
  | { k: 'num'; value: number; pos: Pos }
  | { k: 'str'; value: string; pos: Pos }
  | { k: 'bool'; value: boolean; pos: Pos }
  | { k: 'null'; pos: Pos }
  | { k: 'ref'; name: string; pos: Pos }
  /** A name without brackets (`origin`): always an error that teaches `[Origin]`. */
  | { k: 'bare'; name: string; pos: Pos }
  /** `*`, as in COUNT(*): an error that teaches COUNT([<dataset>]). */
  | { k: 'star'; pos: Pos }
  /** `by`: an aggregation over groups, `MEDIAN(SUM([Net]) BY [Order ID])`. */
  | { k: 'call'; name: string; args: Expr[]; by?: Expr[]; pos: Pos }
  | { k: 'neg'; e: Expr; pos: Pos }
  | { k: 'arith'; op: '+' | '-' | '*' | '/' | '||'; l: Expr; r: Expr; pos: Pos }
  | { k: 'cmp'; op: '=' | '<>' | '<' | '<=' | '>' | '>='; l: Expr; r: Expr; pos: Pos }
  | { k: 'in'; e: Expr; list: Expr[]; not: boolean; pos: Pos }
  | { k: 'between'; e: Expr; lo: Expr; hi: Expr; not: boolean; pos: Pos }
  /** ci: ILIKE, ignoring case. */
  | { k: 'like'; e: Expr; pattern: Expr; not: boolean; ci: boolean; pos: Pos }
  | { k: 'isnull'; e: Expr; not: boolean; pos: Pos }
  | { k: 'not'; e: Expr; pos: Pos }
  | { k: 'and' | 'or'; l: Expr; r: Expr; pos: Pos }
  | { k: 'case'; whens: { when: Expr; then: Expr }[]; else: Expr | null; pos: Pos }
  | { k: 'sub'; metric: MetricBody; pos: Pos }
  /** `NEST(SELECT …)`: a SELECT item holding a breakdown per result row. */
  | { k: 'nest'; query: Query; pos: Pos }
  /** `fn(args) OVER (PARTITION BY … ORDER BY … frame)`: computed over the assembled result. */
  | { k: 'window'; call: Extract<Expr, { k: 'call' }>; over: Over; pos: Pos };

export interface FrameBound {
  /** n PRECEDING / n FOLLOWING; UNBOUNDED has n = null. */
  kind: 'preceding' | 'following' | 'current';
  n: number | null;
  pos: Pos;
}

export interface Over {
  partition: Expr[];
  order: { e: Expr; desc: boolean }[];
  frame: { unit: 'ROWS' | 'RANGE'; from: FrameBound; to: FrameBound } | null;
}

/** `SELECT <measure> [BY ALL [dims]] [WHERE cond]`: a saved metric or a sub-select. */
export interface MetricBody {
  expr: Expr;
  /** BY ALL: null = no grain change; [] = grand total; refs = without those dimensions. */
  byAll: Expr[] | null;
  where: Expr | null;
  pos: Pos;
}

export interface SelectItem {
  expr: Expr;
  alias: string | null;
  pos: Pos;
}

export type OrderTarget =
  | { k: 'expr'; e: Expr }
  | { k: 'position'; n: number; pos: Pos }
  | { k: 'alias'; name: string; pos: Pos };

export interface Query {
  items: SelectItem[];
  where: Expr | null;
  having: Expr | null;
  /** Filters on window values, after them (top N per group). */
  qualify: Expr | null;
  orderBy: { target: OrderTarget; desc: boolean }[];
  limit: number | null;
  offset: number | null;
  /** Where the LIMIT and OFFSET numbers are, for errors about them. */
  limitPos?: Pos;
  offsetPos?: Pos;
}
