// Completion in the AQL editor: what the caret is in (a reference after `[`, or a word that
// may become a function), the choices for it, and the text once one is accepted.
import type { ModelObject as ApiModelObject } from '../../../contract/model.js';
import { AQL_FUNCTIONS, AQL_KEYWORDS } from './functions.js';

/** A model object as GET pmd/obj lists it, its def read for a column's dataset and data type. */
export type ModelObject = Pick<ApiModelObject, 'ident' | 'type' | 'name'> & {
  def?: { dataset?: string; dataType?: string; primaryKey?: boolean };
};

export interface Context {
  kind: 'object' | 'function';
  /** What is replaced on accepting: [start, end) of the text. */
  start: number;
  end: number;
  /** What was typed so far. */
  query: string;
}

export interface Choice {
  id: string;
  label: string;
  detail: string;
  insert: string;
}

/** The end of a string or comment that starts at `i`, or -1 while it is still open. */
function skipQuoted(text: string, i: number): number {
  const q = text[i]!;
  let j = i + 1;
  for (;;) {
    const k = text.indexOf(q, j);
    if (k < 0) return -1;
    if (text[k + 1] === q) j = k + 2;
    else return k + 1;
  }
}

/**
 * The completion context at `caret`: inside an unclosed `[` (model objects), or right after
 * a word of two letters or more that no keyword starts with (functions); `forced` (Ctrl+Space)
 * offers functions for any word, even an empty one. None inside strings and comments.
 */
export function contextAt(text: string, caret: number, forced = false): Context | null {
  let open = -1;
  let i = 0;
  while (i < caret) {
    const c = text[i]!;
    if (open >= 0) {
      if (c === ']' || c === '\n') open = -1;
      i++;
      continue;
    }
    let end = i + 1;
    if (c === '"' || c === "'") end = skipQuoted(text, i);
    else if (c === '-' && text[i + 1] === '-') {
      const nl = text.indexOf('\n', i);
      end = nl < 0 ? -1 : nl + 1;
    } else if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      end = close < 0 ? -1 : close + 2;
    } else if (c === '[') open = i;
    if (end < 0 || end > caret) return null; // the caret is inside a string or comment
    i = end;
  }
  if (open >= 0) {
    const rest = /^[^\]\n[]*\]/.exec(text.slice(caret));
    return {
      kind: 'object',
      start: open + 1,
      end: rest ? caret + rest[0].length : caret,
      query: text.slice(open + 1, caret),
    };
  }
  const before = /(?:^|[^\w.])(\w*)$/.exec(text.slice(Math.max(0, caret - 200), caret));
  const word = before?.[1] ?? '';
  if (/^\d/.test(word)) return null;
  const after = /^\w*/.exec(text.slice(caret))![0];
  if (!forced) {
    if (word.length < 2 || after) return null;
    const w = word.toUpperCase();
    if (AQL_KEYWORDS.some((k) => k.startsWith(w))) return null;
  }
  return {
    kind: 'function',
    start: caret - word.length,
    end: caret + after.length,
    query: word,
  };
}

const KIND: Record<string, string> = {
  attribute: 'attribute',
  label: 'label',
  fact: 'fact',
  metric: 'metric',
  filter: 'filter',
};

/** Objects whose title (or identifier) holds `query`, the best first: title starts, word starts, holds. */
export function objectChoices(objects: ModelObject[], query: string, max = 30): Choice[] {
  const q = query.trim().toLowerCase();
  const scored: [number, ModelObject][] = [];
  for (const o of objects) {
    const name = o.name.toLowerCase();
    let score: number;
    if (name.startsWith(q)) score = 0;
    else if (name.split(/[\s_-]+/).some((w) => w.startsWith(q))) score = 1;
    else if (name.includes(q)) score = 2;
    else if (o.ident.toLowerCase().includes(q)) score = 3;
    else continue;
    scored.push([score, o]);
  }
  scored.sort((a, b) => a[0] - b[0] || a[1].name.localeCompare(b[1].name));
  return scored.slice(0, max).map(([, o]) => ({
    id: o.ident,
    label: o.name,
    detail: KIND[o.type] ?? o.type,
    // A title AQL could not read back as one reference is written as the identifier.
    insert: `${/[\]\n]/.test(o.name) ? o.ident : o.name}]`,
  }));
}

/** Functions whose name starts with `query` (any case). */
export function functionChoices(query: string): Choice[] {
  const q = query.toUpperCase();
  return AQL_FUNCTIONS.filter((f) => f.startsWith(q)).map((f) => ({
    id: f,
    label: f,
    detail: 'function',
    insert: `${f}(`,
  }));
}

/** The text with `choice` accepted in `ctx`, and where the caret goes. */
export function accept(
  text: string,
  ctx: Context,
  choice: Choice,
): { text: string; caret: number } {
  // A function name typed before an existing "(" keeps that one; the caret goes after it.
  const keepParen = ctx.kind === 'function' && text[ctx.end] === '(';
  const insert = keepParen ? choice.insert.slice(0, -1) : choice.insert;
  return {
    text: text.slice(0, ctx.start) + insert + text.slice(ctx.end),
    caret: ctx.start + insert.length + (keepParen ? 1 : 0),
  };
}
