// JSON of untrusted origin: nesting and size are checked on the text before JSON.parse, so a
// body like [[[[…]]]] 100,000 deep is refused in one linear scan instead of being built.
import {
  BODY_LIMITS,
  checkShape,
  ParseError,
  tooDeep,
  tooManyNodes,
  type ShapeLimits,
} from './shape.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }
const COMMA = 0x2c;

export function parseJson(text: string, limits: ShapeLimits = BODY_LIMITS): unknown {
  prescan(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ParseError((e as Error).message, {});
  }
  checkShape(value, limits);
  return value;
}

/**
 * Depth of brackets outside strings, and commas as a lower bound of the values (each comma
 * separates two). Malformed text is left for JSON.parse to describe.
 */
function prescan(text: string, limits: ShapeLimits): void {
  let depth = 0;
  let commas = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      if (++depth > limits.maxDepth) throw tooDeep(limits.maxDepth);
    } else if (CLOSERS.has(c)) depth--;
    else if (c === COMMA && ++commas >= limits.maxNodes) throw tooManyNodes(limits.maxNodes);
  }
}
