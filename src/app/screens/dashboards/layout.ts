// The editable dashboard definition (`def` of a dashboard object, docs/api.md) and the moves
// on its 12-column grid. Every change keeps the layout valid for the API: x + w ≤ 12, no two
// items on one cell (items in the way are pushed down, as BI tools do).

export const COLUMNS = 12;

export interface Cell {
  item: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export type DefItem = { id: string; title?: string } & ({ report: string } | { text: string });

export interface DefFilter {
  attribute: string;
  values?: string[];
  aql?: string;
}

export interface DashboardDef {
  items: DefItem[];
  layout: Cell[];
  filters?: DefFilter[];
  [other: string]: unknown;
}

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

const overlaps = (a: Cell, b: Cell) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** A cell kept on the grid: 1–12 wide, inside the columns, at least one row high. */
export function fit(c: Cell): Cell {
  const w = clamp(Math.round(c.w), 1, COLUMNS);
  return {
    item: c.item,
    w,
    h: clamp(Math.round(c.h), 1, 40),
    x: clamp(Math.round(c.x), 0, COLUMNS - w),
    y: clamp(Math.round(c.y), 0, 1000),
  };
}

/**
 * The layout with `moved` placed where it is asked to be, and every item it now covers pushed
 * down below it (and what those cover, in turn), top to bottom.
 */
export function place(layout: Cell[], moved: Cell): Cell[] {
  const fixed = [fit(moved)];
  const rest = layout
    .filter((c) => c.item !== moved.item)
    .sort((a, b) => a.y - b.y || a.x - b.x)
    .map((c) => ({ ...c }));
  for (const c of rest) {
    for (let hit = fixed.find((f) => overlaps(f, c)); hit; hit = fixed.find((f) => overlaps(f, c)))
      c.y = hit.y + hit.h;
    fixed.push(c);
  }
  const order = new Map(layout.map((c, i) => [c.item, i]));
  return fixed.sort((a, b) => (order.get(a.item) ?? 0) - (order.get(b.item) ?? 0));
}

/** Moved by columns and rows (the arrow keys), or resized by them (Shift + arrows). */
export function nudge(layout: Cell[], item: string, dx: number, dy: number, resize: boolean) {
  const c = layout.find((l) => l.item === item);
  if (!c) return layout;
  const next = resize
    ? { ...c, w: c.w + dx, h: c.h + dy }
    : { ...c, x: c.x + dx, y: Math.max(0, c.y + dy) };
  return place(layout, next);
}

/** The first free row below every item: where a new item goes. */
export const bottom = (layout: Cell[]) => Math.max(0, ...layout.map((c) => c.y + c.h));

/** An item id not in use: `prefix`, else `prefix_2`, `prefix_3`… */
export function freeId(items: DefItem[], prefix: string): string {
  const taken = new Set(items.map((i) => i.id));
  const base = prefix.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 80) || 'item';
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

/** Every item with a cell: those the definition leaves unplaced go full width below. */
export function withCells(def: DashboardDef): Cell[] {
  const cells = new Map(def.layout.map((c) => [c.item, fit(c)]));
  let y = bottom([...cells.values()]);
  return def.items.map((i) => {
    const c = cells.get(i.id);
    if (c) return c;
    const made = { item: i.id, x: 0, y, w: COLUMNS, h: 5 };
    y += 5;
    return made;
  });
}

/** Words for a cell, read out after each move. */
export const describeCell = (c: Cell) =>
  `column ${c.x + 1}, row ${c.y + 1}, ${c.w} columns wide, ${c.h} rows high`;
