// Text the metadata database can store as sent. PostgreSQL's text and jsonb refuse U+0000
// ("invalid byte sequence for encoding UTF8: 0x00"), whatever the column; a lone UTF-16
// surrogate (JSON "\ud800") has no UTF-8 form, so the driver would store U+FFFD instead of
// what was sent. Every door runs this once over what it decoded (path, query, body fields,
// names) and answers 400 naming the first field that holds either; file contents are data,
// not text, and never pass through here. No imports: REST, MCP and the site share it.

export interface Unstorable {
  /** Where: `body.title`, `query.types`, `path`, `arguments.question`… */
  field: string;
  /** The offending character, as a JSON escape (`\u0000`, `\ud800`). */
  character: string;
  /** Where it stands in its text, from 1 (a query's author finds it as in a parse error). */
  line: number;
  column: number;
  message: string;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first code unit that cannot be stored, or -1. */
function badIndex(s: string): number {
  const nul = s.indexOf('\0');
  const lone = s.search(LONE_SURROGATE);
  return nul < 0 ? lone : lone < 0 ? nul : Math.min(nul, lone);
}

const escape = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`;

/** A key as a readable path step: `a.b`, `a[0]`, or the key JSON-escaped when it is odd. */
function step(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const shown = /^[\w$-]+$/.test(key) ? key : JSON.stringify(key).slice(1, -1);
  return parent ? `${parent}.${shown}` : shown;
}

function describe(field: string, s: string, i: number): Unstorable {
  const c = s.charCodeAt(i);
  const character = escape(c);
  const message =
    c === 0
      ? `${field} contains a NUL character (\\u0000), which cannot be stored`
      : `${field} contains a lone UTF-16 surrogate (${character}), which is not Unicode text and cannot be stored as sent`;
  const before = s.slice(0, i);
  const line = before.split('\n').length;
  const column = i - before.lastIndexOf('\n');
  return { field, character, line, column, message };
}

/**
 * The first string in `value` (a string, or arrays and plain objects of them, names
 * included) that cannot be stored, with its path below `field`; undefined when all can.
 * Walks with its own stack: a deeply nested value cannot overflow the call stack.
 */
export function findUnstorable(value: unknown, field: string): Unstorable | undefined {
  const stack: [unknown, string][] = [[value, field]];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      const i = badIndex(v);
      if (i >= 0) return describe(at, v, i);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], step(at, i)]);
    } else if (v !== null && typeof v === 'object' && isPlain(v)) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i]!;
        const j = badIndex(k);
        if (j >= 0) return describe(`${step(at, k)} (a field name)`, k, j);
        stack.push([child, step(at, k)]);
      }
    }
  }
  return undefined;
}

/** JSON, YAML and form bodies are plain objects; Buffers, Dates and streams are not text. */
function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * The first path segment (percent-decoded) that cannot be stored. A segment that is not valid
 * percent-encoding is left to the router, which answers it already.
 */
export function findUnstorableInPath(path: string, field = 'path'): Unstorable | undefined {
  for (const raw of path.split('/')) {
    if (!raw.includes('%')) continue;
    let seg: string;
    try {
      seg = decodeURIComponent(raw);
    } catch {
      continue;
    }
    const found = findUnstorable(seg, `${field} segment "${raw.slice(0, 100)}"`);
    if (found) return { ...found, field };
  }
  return undefined;
}
