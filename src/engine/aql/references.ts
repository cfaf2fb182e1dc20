// The bracketed references of an AQL text (`[Revenue]` → 'Revenue'), found without a full
// parse so that the model can track dependencies of saved metrics, filters and reports even
// when their AQL no longer compiles. Strings and comments are skipped: `"[x]"` is a value.

/** References in order of first appearance, deduplicated, trimmed; empty `[]` is ignored. */
export function referencesIn(aql: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let i = 0;
  const n = aql.length;
  while (i < n) {
    const c = aql[i]!;
    if (c === "'" || c === '"') {
      i = skipString(aql, i, c);
    } else if (c === '-' && aql[i + 1] === '-') {
      const end = aql.indexOf('\n', i + 2);
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && aql[i + 1] === '*') {
      const end = aql.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '[') {
      const end = aql.indexOf(']', i + 1);
      if (end < 0) break; // an unclosed bracket is the parser's error to report
      const ref = aql.slice(i + 1, end).trim();
      if (ref && !seen.has(ref)) {
        seen.add(ref);
        out.push(ref);
      }
      i = end + 1;
    } else {
      i++;
    }
  }
  return out;
}

/** Index after the string that starts at `start`; a backslash escapes the next character. */
function skipString(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\') i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return text.length;
}
