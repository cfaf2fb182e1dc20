// The bracketed references of an AQL text (`[Revenue]` → 'Revenue'), found without a full
// parse so that the model can track dependencies of saved metrics, filters and reports even
// when their AQL no longer compiles. The AQL lexer finds them, so strings (quotes doubled,
// `"a "" [x]"`) and comments are skipped exactly as the compiler skips them.
import { refTokens } from './ref-rewrite.js';

/** References in order of first appearance, deduplicated, trimmed; empty `[]` is ignored. */
export function referencesIn(aql: string): string[] {
  return [...new Set(refTokens(aql).map((t) => t.name))].filter(Boolean);
}
