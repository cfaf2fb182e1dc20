// Where an AQL error (or a no-rows warning) points in the text, and its `suggestions` as
// fixes that rewrite the text. No imports: test/app-explore.test.ts checks it directly.

/** An error's or warning's place and hints, as the API answers them (docs/aql.md §9, §10). */
export interface Problem {
  message: string;
  line?: number;
  column?: number;
  found?: string;
  suggestions?: string[];
}

export interface Fix {
  /** What the button says. */
  label: string;
  /** For assistive technology: what clicking does. */
  description: string;
  text: string;
  caret: number;
}

/** The offset of 1-based `line`/`column` in `text` (columns count UTF-16 units), or null. */
export function offsetAt(text: string, line: number, column: number): number | null {
  if (!(line >= 1 && column >= 1)) return null;
  let start = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return null;
    start = nl + 1;
  }
  const eol = text.indexOf('\n', start);
  const offset = start + column - 1;
  return offset <= (eol < 0 ? text.length : eol) ? offset : null;
}

/** The span a problem marks: `found` where it is, else one character (none past the end). */
export function markOf(text: string, p: Problem): { offset: number; length: number } | null {
  if (p.line === undefined || p.column === undefined) return null;
  const offset = offsetAt(text, p.line, p.column);
  if (offset === null) return null;
  const found = p.found ?? '';
  if (found && text.startsWith(found, offset)) return { offset, length: found.length };
  return { offset, length: offset < text.length && text[offset] !== '\n' ? 1 : 0 };
}

const quote = (s: string, q: string) => `${q}${s.split(q).join(q + q)}${q}`;

/** What replaces `found` for a suggestion, the way the suggestion is meant. */
function replacement(text: string, offset: number, found: string, s: string): string {
  // COUNT(*) → COUNT([Airport Code]): the suggestion is the whole call around `found`.
  const call = /^(\w+)\((.*)\)$/.exec(s);
  if (call && new RegExp(`\\b${call[1]}\\s*\\(\\s*$`, 'i').test(text.slice(0, offset)))
    return call[2]!;
  if (found.startsWith('[') && !s.includes('[')) return `[${s}]`;
  if ((found.startsWith('"') || found.startsWith("'")) && !/^["']/.test(s))
    return quote(s, found[0]!);
  return s;
}

/**
 * Fixes from a problem's suggestions: each replaces `found` at the problem's place; `TOP n`
 * becomes `LIMIT n` at the end; a whole query (SQL written in AQL) replaces the text. None
 * when the text no longer holds `found` there.
 */
export function fixesFor(text: string, p: Problem): Fix[] {
  const found = p.found ?? '';
  if (!found || p.line === undefined || p.column === undefined) return [];
  const offset = offsetAt(text, p.line, p.column);
  if (offset === null || !text.startsWith(found, offset)) return [];
  const fixes: Fix[] = [];
  for (const s of p.suggestions ?? []) {
    let fix: Fix;
    const top = /^TOP\s+\d+\s*/i.exec(text.slice(offset));
    if (/^SELECT\s/i.test(s)) {
      // SQL answered with the whole query written in AQL: it replaces the text.
      fix = {
        label: s,
        description: `Replace the query with ${s}`,
        text: s,
        caret: s.length,
      };
    } else if (/^LIMIT \d+$/.test(s) && found.toUpperCase() === 'TOP' && top) {
      const rest = (text.slice(0, offset) + text.slice(offset + top[0].length)).trimEnd();
      fix = {
        label: s,
        description: `Remove ${top[0].trim()} and write ${s} at the end`,
        text: `${rest}\n${s}`,
        caret: rest.length + 1 + s.length,
      };
    } else {
      const r = replacement(text, offset, found, s);
      fix = {
        label: r,
        description: `Replace ${found} with ${r}`,
        text: text.slice(0, offset) + r + text.slice(offset + found.length),
        caret: offset + r.length,
      };
    }
    if (fix.text !== text && !fixes.some((f) => f.text === fix.text)) fixes.push(fix);
  }
  return fixes;
}
