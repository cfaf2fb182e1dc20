// What resolution (resolve.ts) and its calls and windows (resolve-call.ts) share: the
// context, errors pointing at the query, and which dataset a bracketed name means.
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';
import type { Expr, Pos } from './ast.js';
import { COUNTABLE_TYPES, datasetNamed } from './dataset-names.js';
import { AqlError } from './errors.js';
import { examplesFor } from './examples.js';
import type { Column, V } from './ir.js';
import type { ModelSnapshot } from './model.js';

export interface ResolveEnv {
  snap: ModelSnapshot;
  /** Whether the caller may read an object they name (saved definitions are trusted). */
  visible: (o: ObjectRow) => boolean;
  counter: { n: number };
}

export interface Ctx {
  env: ResolveEnv;
  trusted: boolean;
  /** Saved metrics and filters being expanded, for cycle detection. */
  stack: string[];
  inAgg: boolean;
  where: V[];
  byAll: Column[] | null;
  /** Where the text being resolved comes from, for messages ("in metric [Revenue]"). */
  origin: string | null;
  /** Inside a saved definition: where the query names it (errors point there). */
  at: Pos | null;
  /** Inside a window's arguments, PARTITION BY or ORDER BY. */
  inWindow: boolean;
  /**
   * Resolves a sub-expression (resolve.ts's resolveExpr): calls and windows (resolve-call.ts)
   * recurse through it, so the two files do not import each other.
   */
  expr: (e: Expr, ctx: Ctx) => V;
}

export function fail(message: string, pos: Pos, extra: Record<string, unknown> = {}): AqlError {
  return new AqlError(message, { line: pos.line, column: pos.column, found: pos.text, ...extra });
}

/** Where an error about `pos` points: inside a saved definition, at its name in the query. */
export function where(ctx: Ctx, pos: Pos): Pos {
  if (!ctx.origin) return pos;
  const at = ctx.at ?? pos;
  return { ...at, text: `${pos.text} (in ${ctx.origin})` };
}

/** The position a resolved node carries. */
export const posIn = (ctx: Ctx, pos: Pos): Pos => ctx.at ?? pos;

/**
 * The dataset a bracketed name means for the caller (dataset-names.ts: objects' identifiers
 * and titles come first; `counting`, in COUNT, only the titles of what can be counted), or
 * null. A dataset exists for them when they can read a column of it.
 */
export function datasetRef(ctx: Ctx, name: string, counting = false): string | null {
  const { snap, visible } = ctx.env;
  const canSee = (o: ObjectRow) =>
    (ctx.trusted || visible(o)) && (!counting || COUNTABLE_TYPES.includes(o.type));
  return datasetNamed(
    name,
    (n) => {
      const o = snap.byIdent.get(n);
      return !!o && (ctx.trusted || visible(o));
    },
    (n) => (snap.byTitle.get(titleKey(n)) ?? []).some(canSee),
    (d) => snap.datasets.has(d) && examplesFor(ctx.env, ctx.trusted).datasets().includes(d),
  );
}
