// The WebDAV If header (RFC 4918 §10.4): lists of conditions on lock tokens and entity tags,
// untagged (about the request URI) or tagged with the resource they are about. The header is
// true when any one list is true; a list is true when all its conditions are.
import { invalid } from '../engine/errors.js';

export interface Condition {
  not: boolean;
  /** A state token (a lock token, or e.g. DAV:no-lock which matches nothing). */
  token?: string;
  /** An entity tag, compared as sent (strong comparison). */
  etag?: string;
}

export interface IfList {
  /** The tagged resource (a URL as sent), or null for the request URI. */
  resource: string | null;
  conditions: Condition[];
}

export interface ResourceState {
  etag: string | null;
  /** Tokens of the locks that cover the resource. */
  tokens: string[];
}

export function parseIf(header: string): IfList[] {
  const fail = (why: string) =>
    invalid(`the If header does not parse: ${why}`, { if: header.slice(0, 300) });
  const lists: IfList[] = [];
  let tag: string | null = null;
  let i = 0;
  const skipSpace = () => {
    while (i < header.length && /[ \t\r\n]/.test(header[i]!)) i++;
  };
  const until = (close: string) => {
    const end = header.indexOf(close, i + 1);
    if (end < 0) throw fail(`missing "${close}"`);
    const value = header.slice(i + 1, end);
    i = end + 1;
    return value;
  };
  for (skipSpace(); i < header.length; skipSpace()) {
    const c = header[i];
    if (c === '<') {
      tag = until('>');
      continue;
    }
    if (c !== '(') throw fail(`unexpected "${c}" at ${i}`);
    i++;
    const conditions: Condition[] = [];
    for (skipSpace(); header[i] !== ')'; skipSpace()) {
      if (i >= header.length) throw fail('missing ")"');
      let not = false;
      if (/^not(?=[\s<[])/i.test(header.slice(i, i + 4))) {
        not = true;
        i += 3;
        skipSpace();
      }
      if (header[i] === '<') conditions.push({ not, token: until('>') });
      else if (header[i] === '[') conditions.push({ not, etag: readEtag() });
      else throw fail(`expected a state token or an entity tag at ${i}`);
    }
    i++;
    if (conditions.length === 0) throw fail('an empty list "()"');
    lists.push({ resource: tag, conditions });
  }
  if (lists.length === 0) throw fail('no condition list');
  return lists;

  // [ entity-tag ]: the tag itself may hold "]" inside its quotes.
  function readEtag(): string {
    const m = /^\[\s*((?:W\/)?"[^"]*")\s*\]/.exec(header.slice(i));
    if (!m) throw fail(`malformed entity tag at ${i}`);
    i += m[0].length;
    return m[1]!;
  }
}

/** Lock tokens the client put forward (not negated): these are the locks it holds. */
export function submittedTokens(lists: IfList[] | null): Set<string> {
  const out = new Set<string>();
  for (const l of lists ?? [])
    for (const c of l.conditions) if (c.token && !c.not) out.add(c.token);
  return out;
}

/**
 * Evaluates the header. `stateOf` gets the tagged resource URL (null for the request URI) and
 * answers the resource's current entity tag and lock tokens.
 */
export async function evaluateIf(
  lists: IfList[],
  stateOf: (resource: string | null) => Promise<ResourceState>,
): Promise<boolean> {
  const states = new Map<string | null, ResourceState>();
  for (const list of lists) {
    let state = states.get(list.resource);
    if (!state) states.set(list.resource, (state = await stateOf(list.resource)));
    const s = state;
    const holds = list.conditions.every((c) => {
      const match = c.token !== undefined ? s.tokens.includes(c.token) : s.etag === c.etag;
      return match !== c.not;
    });
    if (holds) return true;
  }
  return false;
}
