// AQL tokens. Keywords and function names are case-insensitive; `[...]` names a model object.
import { createToken, Lexer, type TokenType } from 'chevrotain';

export const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/ });

const kw = (word: string): TokenType =>
  createToken({
    name: word,
    pattern: new RegExp(`${word}(?![A-Za-z0-9_])`, 'i'),
    longer_alt: Identifier,
  });

export const Select = kw('SELECT');
export const As = kw('AS');
export const Where = kw('WHERE');
export const Having = kw('HAVING');
export const Order = kw('ORDER');
export const By = kw('BY');
export const Asc = kw('ASC');
export const Desc = kw('DESC');
export const Limit = kw('LIMIT');
export const Offset = kw('OFFSET');
export const And = kw('AND');
export const Or = kw('OR');
export const Not = kw('NOT');
export const In = kw('IN');
export const Between = kw('BETWEEN');
export const Like = kw('LIKE');
export const Ilike = kw('ILIKE');
export const Is = kw('IS');
export const Null = kw('NULL');
export const Case = kw('CASE');
export const When = kw('WHEN');
export const Then = kw('THEN');
export const Else = kw('ELSE');
export const End = kw('END');
export const All = kw('ALL');
export const True = kw('TRUE');
export const Over = kw('OVER');
export const Partition = kw('PARTITION');
export const Qualify = kw('QUALIFY');
export const Rows = kw('ROWS');
export const Range = kw('RANGE');
export const Unbounded = kw('UNBOUNDED');
export const Preceding = kw('PRECEDING');
export const Following = kw('FOLLOWING');
export const Current = kw('CURRENT');
export const Row = kw('ROW');
export const False = kw('FALSE');

export const Ref = createToken({ name: 'Ref', pattern: /\[[^\]\n]*\]/ });
export const Str = createToken({ name: 'Str', pattern: /"(?:[^"]|"")*"|'(?:[^']|'')*'/ });
export const Num = createToken({
  name: 'Num',
  pattern: /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/,
});
export const Concat = createToken({ name: 'Concat', pattern: /\|\|/ });
export const Ne = createToken({ name: 'Ne', pattern: /<>|!=/ });
export const Le = createToken({ name: 'Le', pattern: /<=/ });
export const Ge = createToken({ name: 'Ge', pattern: />=/ });
export const Lt = createToken({ name: 'Lt', pattern: /</ });
export const Gt = createToken({ name: 'Gt', pattern: />/ });
export const Eq = createToken({ name: 'Eq', pattern: /=/ });
export const Plus = createToken({ name: 'Plus', pattern: /\+/ });
export const Minus = createToken({ name: 'Minus', pattern: /-/ });
export const Star = createToken({ name: 'Star', pattern: /\*/ });
export const Slash = createToken({ name: 'Slash', pattern: /\// });
export const LParen = createToken({ name: 'LParen', pattern: /\(/ });
export const RParen = createToken({ name: 'RParen', pattern: /\)/ });
export const Comma = createToken({ name: 'Comma', pattern: /,/ });

const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /\s+/, group: Lexer.SKIPPED });
const LineComment = createToken({ name: 'LineComment', pattern: /--[^\n]*/, group: Lexer.SKIPPED });
const BlockComment = createToken({
  name: 'BlockComment',
  pattern: /\/\*[\s\S]*?\*\//,
  group: Lexer.SKIPPED,
});

const KEYWORDS = [
  Select,
  As,
  Where,
  Having,
  Order,
  By,
  Asc,
  Desc,
  Limit,
  Offset,
  And,
  Or,
  Not,
  In,
  Between,
  Like,
  Ilike,
  Is,
  Null,
  Case,
  When,
  Then,
  Else,
  End,
  All,
  True,
  False,
  Over,
  Partition,
  Qualify,
  Rows,
  Range,
  Unbounded,
  Preceding,
  Following,
  Current,
  Row,
];

// Order matters: comments before the "-" and "/" operators, two-character operators before
// one-character ones, keywords before identifiers.
export const allTokens: TokenType[] = [
  WhiteSpace,
  LineComment,
  BlockComment,
  Ref,
  Str,
  Num,
  Concat,
  Ne,
  Le,
  Ge,
  Lt,
  Gt,
  Eq,
  Plus,
  Minus,
  Star,
  Slash,
  LParen,
  RParen,
  Comma,
  ...KEYWORDS,
  Identifier,
];

export const lexer = new Lexer(allTokens, { positionTracking: 'full', ensureOptimizations: false });

/** How a token type is named in messages ("expected ')'"). */
export const TOKEN_TEXT: Record<string, string> = {
  Ref: 'a reference like [<name>]',
  Str: 'a string like "text"',
  Num: 'a number',
  Identifier: 'a function name',
  Ne: "'<>'",
  Le: "'<='",
  Ge: "'>='",
  Lt: "'<'",
  Gt: "'>'",
  Eq: "'='",
  Plus: "'+'",
  Concat: "'||'",
  Minus: "'-'",
  Star: "'*'",
  Slash: "'/'",
  LParen: "'('",
  RParen: "')'",
  Comma: "','",
  EOF: 'the end of the query',
  ...Object.fromEntries(KEYWORDS.map((k) => [k.name, k.name])),
};
