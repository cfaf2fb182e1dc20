// SQL habits that are not AQL, recognised on the tokens before parsing, so the message says
// what to write instead (at the habit's own token) rather than "unexpected token".
import type { IToken } from 'chevrotain';
import { AqlError, sqlHabit } from './errors.js';
import * as T from './lexer.js';

export const NO_FROM =
  'AQL has no FROM or GROUP BY: name objects in brackets; the model finds the datasets and groups by every dimension';

/** A habit's error, at its own token. */
function at(t: IToken, message: string, extra: Record<string, unknown> = {}): AqlError {
  return sqlHabit(
    new AqlError(message, {
      line: t.startLine ?? 1,
      column: t.startColumn ?? 1,
      found: t.image,
      ...extra,
    }),
  );
}

const word = (t: IToken | undefined) =>
  t && t.tokenType === T.Identifier ? t.image.toUpperCase() : '';

/** Throws the first SQL habit found in the tokens; returns when there is none. */
export function refuseSqlHabits(tokens: IToken[]): void {
  tokens.forEach((t, i) => {
    const prev = tokens[i - 1];
    const next = tokens[i + 1];
    if (prev?.tokenType === T.As) return; // an alias may be any word
    if (next?.tokenType === T.LParen) return; // a function call (LEFT(…), …)
    switch (word(t)) {
      case 'FROM':
        throw at(t, NO_FROM);
      case 'GROUP':
        if (next?.tokenType === T.By) throw at(t, NO_FROM);
        return;
      case 'JOIN':
        throw at(
          t,
          'AQL has no JOIN, FROM or GROUP BY: name objects in brackets; the model finds the datasets and joins them along its references',
        );
      case 'TOP':
        if (next?.tokenType === T.Num)
          throw at(t, `AQL has no TOP: write LIMIT ${next.image} at the end of the query`, {
            suggestions: [`LIMIT ${next.image}`],
          });
        return;
      case 'DISTINCT': {
        // The caller's own argument: COUNT(DISTINCT [Origin]) → COUNT([Origin]).
        const counted = next && next.tokenType !== T.RParen ? next.image : '[<attribute>]';
        throw at(
          t,
          prev?.tokenType === T.LParen
            ? `COUNT of an attribute already counts distinct values (COUNT_DISTINCT is the same); write COUNT(${counted}) without DISTINCT`
            : 'AQL has no DISTINCT: a query with only dimensions returns their distinct combinations; drop DISTINCT',
        );
      }
    }
  });
}

const ENDS_VALUE = new Set(['RParen', 'Ref', 'Str', 'Num', 'End', 'Identifier', 'True', 'False']);

/**
 * An identifier where a clause or a comma was expected, right after a value: an alias
 * written without AS and quotes (`SUM([x]) Miles`, `AS Total Miles`). The hint to give, or null.
 */
export function aliasHint(tokens: IToken[], bad: IToken): string | null {
  if (bad.tokenType !== T.Identifier) return null;
  const i = tokens.indexOf(bad);
  const prev = tokens[i - 1];
  if (!prev || !ENDS_VALUE.has(prev.tokenType.name)) return null;
  // The words of the alias: from after AS (when there is one) through this one, and on.
  let first = i;
  while (first > 0 && tokens[first - 1]!.tokenType === T.Identifier) first--;
  const hasAs = tokens[first - 1]?.tokenType === T.As;
  if (!hasAs) first = i;
  let last = i;
  while (tokens[last + 1]?.tokenType === T.Identifier) last++;
  const alias = tokens
    .slice(first, last + 1)
    .map((t) => t.image)
    .join(' ');
  return `an alias goes in double quotes after AS: AS "${alias}"`;
}
