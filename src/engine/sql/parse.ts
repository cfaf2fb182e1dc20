// SQL text → PostgreSQL's own parse tree (libpg-query: the real parser compiled to
// WebAssembly), so whatever a client sends is read as PostgreSQL reads it. Bounded: the text's
// length and the number of statements.
import { loadModule, parseSync, type ParseResult } from 'libpg-query';
import { SqlError } from './errors.js';

/** Longer statements are refused before parsing (a BI tool's longest is a few KB). */
export const MAX_SQL_BYTES = 256 * 1024;
const MAX_STATEMENTS = 100;
/**
 * Levels of the parse tree (an operator or a parenthesis is about three): deeper trees are
 * refused before anything walks them recursively (translation, the catalog's rewrites).
 */
export const MAX_TREE_DEPTH = 1500;

let loaded: Promise<void> | null = null;

/** Loads the parser once (its WebAssembly module compiles in ~50 ms). */
export function loadSqlParser(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

export type Stmt = Record<string, unknown>;

/** A statement: its tree (`{ SelectStmt: … }`, `{ VariableSetStmt: … }`, …) and its text. */
export interface Parsed {
  stmt: Stmt;
  text: string;
}

/** The statements of `text`. */
export function parseSql(text: string): Parsed[] {
  if (Buffer.byteLength(text) > MAX_SQL_BYTES)
    throw new SqlError('54000', `the statement is longer than ${MAX_SQL_BYTES} bytes`);
  let tree: ParseResult;
  try {
    tree = parseSync(text);
  } catch (err) {
    if (err instanceof RangeError) throw tooDeep();
    const e = err as { message?: string; sqlDetails?: { cursorPosition?: number } };
    const at = e.sqlDetails?.cursorPosition;
    throw new SqlError(
      '42601',
      `${e.message ?? 'syntax error'}${at !== undefined ? ` (at character ${at + 1})` : ''}`,
    );
  }
  // Locations are byte offsets into the UTF-8 text.
  const bytes = Buffer.from(text);
  const stmts = (tree.stmts ?? []).map((s) => {
    const at = s.stmt_location ?? 0;
    const end = s.stmt_len ? at + s.stmt_len : bytes.length;
    return { stmt: s.stmt as unknown as Stmt, text: bytes.subarray(at, end).toString() };
  });
  if (stmts.length > MAX_STATEMENTS)
    throw new SqlError('54000', `more than ${MAX_STATEMENTS} statements in one query`);
  for (const s of stmts) if (depth(s.stmt) > MAX_TREE_DEPTH) throw tooDeep();
  return stmts;
}

const tooDeep = () =>
  new SqlError(
    '54001',
    'the statement is nested too deeply',
    'write it with fewer nested expressions or parentheses',
  );

/** The tree's depth, without recursion (a deep tree must not exhaust the stack here). */
function depth(root: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    if (max > MAX_TREE_DEPTH) return max;
    if (n && typeof n === 'object')
      for (const v of Object.values(n as object))
        if (v && typeof v === 'object') stack.push([v, d + 1]);
  }
  return max;
}
