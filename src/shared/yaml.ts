// YAML in and out. Parsing follows YAML 1.2's core schema, so `2026-12-01` and `yes` are
// strings as the API's schemas expect, and every limit is enforced while the text is read:
// nesting and the amount of tokens during lexing (the parser itself would recurse or stall on
// [[[[…]]]]), alias expansion while building values (billion laughs), then the shape of the
// result. Output quotes every string a YAML 1.1 or 1.2 reader could take for another type.
import {
  Composer,
  Document,
  isNode,
  isScalar,
  Lexer,
  LineCounter,
  Parser,
  Schema,
  visit,
} from 'yaml';
import { BODY_LIMITS, checkShape, ParseError, tooDeep, type ShapeLimits } from './shape.js';

export interface YamlLimits extends ShapeLimits {
  /** How often anchored content may be repeated through aliases (the `yaml` package's check). */
  maxAliasCount: number;
}

export const YAML_LIMITS: YamlLimits = { ...BODY_LIMITS, maxAliasCount: 100 };

// Lexical tokens per value in ordinary YAML are about 5-7 (indent, markers, key, value, line
// end); this bounds the work before any value is built, the exact count comes after.
const TOKENS_PER_NODE = 10;
// The parser's stack holds the document and at most one scalar besides the collections.
const STACK_SLACK = 2;

/** Parses one YAML document; an empty one is `undefined`. Throws ParseError. */
export function parseYaml(text: string, limits: YamlLimits = YAML_LIMITS): unknown {
  const lines = new LineCounter();
  lines.addNewLine(0);
  const parser = new Parser(lines.addNewLine);
  // The package's own unique-key check compares every key with every other one (a map of
  // 20,000 keys takes seconds), so duplicates are found below with a set instead.
  const composer = new Composer({ schema: 'core', uniqueKeys: false });
  const docs: Document.Parsed[] = [];
  const maxTokens = limits.maxNodes * TOKENS_PER_NODE;
  let tokens = 0;
  for (const lexeme of new Lexer().lex(text)) {
    if (++tokens > maxTokens) throw tooManyTokens(maxTokens);
    for (const token of parser.next(lexeme)) docs.push(...composer.next(token));
    if (parser.stack.length > limits.maxDepth + STACK_SLACK) throw tooDeep(limits.maxDepth);
  }
  for (const token of parser.end()) docs.push(...composer.next(token));
  docs.push(...composer.end());
  if (docs.length > 1)
    throw new ParseError(`${docs.length} documents where one is expected`, {
      documents: docs.length,
    });
  const doc = docs[0];
  if (!doc) return undefined;
  const error = doc.errors[0];
  if (error) throw syntaxError(error.message.split('\n')[0]!, error.pos[0], lines);
  const duplicate = duplicateKey(doc);
  if (duplicate) throw syntaxError(`duplicate key "${duplicate.key}"`, duplicate.offset, lines);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (e) {
    // The only errors left are alias ones: excessive expansion, or an alias to no anchor.
    const excessive = /excessive alias/i.test((e as Error).message);
    throw excessive
      ? new ParseError(
          `repeats anchored content through aliases more than ${limits.maxAliasCount} times`,
          {
            limit: 'aliases',
            max: limits.maxAliasCount,
          },
        )
      : new ParseError((e as Error).message, {});
  }
  checkShape(value, limits);
  return value;
}

const tooManyTokens = (max: number): ParseError =>
  new ParseError(`has more than ${max} tokens (${TOKENS_PER_NODE} per value allowed)`, {
    limit: 'tokens',
    max,
  });

function syntaxError(message: string, offset: number, lines: LineCounter): ParseError {
  const { line, col } = lines.linePos(offset);
  return new ParseError(`${message} (line ${line}, column ${col})`, { line, column: col });
}

/** The first key repeated in one mapping, as the object it becomes would see it. */
function duplicateKey(doc: Document.Parsed): { key: string; offset: number } | undefined {
  let found: { key: string; offset: number } | undefined;
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        const name = isScalar(key) ? String(key.value) : String(key);
        if (seen.has(name)) {
          found = { key: name, offset: (isNode(key) && key.range?.[0]) || 0 };
          return visit.BREAK;
        }
        seen.add(name);
      }
    },
  });
  return found;
}

// Strings that some YAML reader would resolve to another type if written plain.
const AMBIGUOUS = [new Schema({ schema: 'core' }), new Schema({ schema: 'yaml-1.1' })]
  .flatMap((s) => s.tags)
  .map((t) => t.test)
  .filter((t): t is RegExp => t instanceof RegExp);

const ambiguous = (s: string): boolean => AMBIGUOUS.some((re) => re.test(s));

/** YAML text of a JSON-like value, with the values JSON would give (dates as ISO strings). */
export function toYaml(value: unknown): string {
  const doc = new Document(jsonValue(value), { aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && ambiguous(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 120 });
}

function jsonValue(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
