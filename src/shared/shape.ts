// Limits on the shape of parsed untrusted documents (request bodies): how deep they nest and
// how many values they hold once aliases are expanded. Deep or huge documents otherwise blow
// the stack of every recursive consumer (validation, storage, rendering) or fill memory.

export interface ShapeLimits {
  /** Containers (objects, arrays) nested inside each other, the outermost counting 1. */
  maxDepth: number;
  /** Values of any kind (containers and scalars, not keys), counted as if aliases were copies. */
  maxNodes: number;
}

export const BODY_LIMITS: ShapeLimits = { maxDepth: 64, maxNodes: 100_000 };

/** A document that does not parse, or parses beyond a limit; `context` says which. */
export class ParseError extends Error {
  constructor(
    message: string,
    readonly context: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ParseError';
  }
}

export const tooDeep = (max: number): ParseError =>
  new ParseError(`nests deeper than ${max} levels`, { limit: 'depth', max });

export const tooManyNodes = (max: number): ParseError =>
  new ParseError(`holds more than ${max} values`, { limit: 'nodes', max });

/**
 * Walks `value` without recursion and throws when it exceeds `limits`. Shared objects (YAML
 * aliases) are visited once per reference, which is what they cost every consumer; a cycle
 * ends at the depth limit.
 */
export function checkShape(value: unknown, limits: ShapeLimits = BODY_LIMITS): void {
  const stack: [unknown, number][] = [[value, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (++nodes > limits.maxNodes) throw tooManyNodes(limits.maxNodes);
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > limits.maxDepth) throw tooDeep(limits.maxDepth);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children) stack.push([child, depth + 1]);
  }
}
