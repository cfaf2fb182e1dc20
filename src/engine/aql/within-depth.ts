// How deep a compiled query may nest: deeper is a 400 for the caller, never a stack overflow
// or a database planning error.
import type { Compiled } from './compile.js';
import { AqlError } from './errors.js';

/** Parentheses deeper than this in the generated SQL exceed what DuckDB will plan. */
const MAX_SQL_DEPTH = 250;

/**
 * Deep nesting (thousands of parentheses, NOTs or minus signs, long chains of + that nest
 * in SQL) is a 400 for the caller, never a stack overflow or a DuckDB planning error.
 */
export function withinDepth(build: () => Compiled): Compiled {
  const tooDeep = () =>
    new AqlError(
      'the query is nested too deeply (or chains too many operators) to compute; simplify it',
      { line: 1, column: 1, found: '' },
    );
  let c: Compiled;
  try {
    c = build();
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep();
    throw err;
  }
  let depth = 0;
  for (const ch of c.sql) {
    if (ch === '(' && ++depth > MAX_SQL_DEPTH) throw tooDeep();
    else if (ch === ')') depth--;
  }
  return c;
}
