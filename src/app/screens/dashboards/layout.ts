// The editable dashboard definition (`def` of a dashboard object, docs/api.md) and the moves
// on its 12-column grid. Every change keeps the layout valid for the API: x + w ≤ 12, no two
// items on one cell (items in the way are pushed down, as BI tools do), and compact: items
// rise into the rows left free above them.

export const COLUMNS = 12;

export interface Cell {
  item: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export type DefItem = { id: string; title?: string; tab?: string } & (
  { report: string } | { text: string }
);

export interface DefFilter {
  attribute: string;
  values?: string[];
  aql?: string;
  /** The items it narrows (left out: every item). */
  items?: string[];
}

export interface Tab {
  id: string;
  title: string;
}

export interface DashboardDef {
  items: DefItem[];
  layout: Cell[];
  filters?: DefFilter[];
  tabs?: Tab[];
  /** Seconds between automatic refreshes. */
  refresh?: number;
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
 * Gravity: each item, in `order`, goes up row by row from where it is until the row above is
 * taken, then below anything it still overlaps. An item never passes another (no leapfrog:
 * a small item does not jump into a hole above a neighbour), and no row is left empty above
 * an item that could use it.
 */
export function compact(layout: Cell[], order: Cell[] = sorted(layout)): Cell[] {
  const placed: Cell[] = [];
  for (const o of order) {
    const c = { ...o };
    while (c.y > 0 && !placed.some((p) => overlaps(p, { ...c, y: c.y - 1 }))) c.y--;
    for (
      let hit = placed.find((p) => overlaps(p, c));
      hit;
      hit = placed.find((p) => overlaps(p, c))
    )
      c.y = hit.y + hit.h;
    placed.push(c);
  }
  // The definition's own order, which is the items' order.
  const at = new Map(placed.map((c) => [c.item, c]));
  return layout.map((c) => at.get(c.item) ?? c);
}

const sorted = (layout: Cell[]) => [...layout].sort((a, b) => a.y - b.y || a.x - b.x);

/**
 * The layout with `moved` asked to be at its cell: the others keep their order, it takes its
 * place among them by its row (`after`: behind those starting on that row, as when it is
 * moved down onto them; else ahead of them, pushing them down), and the grid is compacted.
 */
export function place(layout: Cell[], moved: Cell, after = false): Cell[] {
  const m = fit(moved);
  const others = sorted(layout.filter((c) => c.item !== moved.item));
  let i = others.findIndex((c) => (after ? c.y > m.y : c.y >= m.y));
  if (i < 0) i = others.length;
  const next = layout.map((c) => (c.item === m.item ? m : c));
  return compact(next, [...others.slice(0, i), m, ...others.slice(i)]);
}

/**
 * Moved by a column or a row (the arrow keys), or resized by them (Shift + arrows). A row up
 * or down onto another item trades places with it: the item above or below is passed, never
 * jumped over into a gap.
 */
export function nudge(layout: Cell[], item: string, dx: number, dy: number, resize: boolean) {
  const c = layout.find((l) => l.item === item);
  if (!c) return layout;
  if (resize) return place(layout, { ...c, w: c.w + dx, h: c.h + dy });
  const want = fit({ ...c, x: c.x + dx, y: Math.max(0, c.y + dy) });
  if (dy === 0) return place(layout, want);
  // The nearest item the move runs into, in the direction of the move.
  const hits = layout.filter(
    (o) => o.item !== item && overlaps(o, want) && (dy > 0 ? o.y > c.y : o.y < c.y),
  );
  if (!hits.length) return place(layout, want, dy > 0);
  const next = dy > 0 ? Math.min(...hits.map((h) => h.y)) : Math.max(...hits.map((h) => h.y));
  return place(layout, { ...want, y: next }, dy > 0);
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

/** The tab an item is on: its own, else the first (none on a dashboard without tabs). */
export const tabOf = (i: DefItem, tabs: Tab[]): string | undefined =>
  tabs.length ? (tabs.some((t) => t.id === i.tab) ? i.tab : tabs[0]!.id) : undefined;

/**
 * `fn` applied to each tab's cells on its own (each tab is a grid of its own), the rest kept;
 * `only`: that tab's cells only.
 */
export function perTab(
  layout: Cell[],
  items: DefItem[],
  tabs: Tab[],
  fn: (cells: Cell[]) => Cell[],
  only?: string,
): Cell[] {
  const tab = new Map(items.map((i) => [i.id, tabOf(i, tabs)]));
  const groups = new Map<string | undefined, Cell[]>();
  for (const c of layout) {
    const t = tab.get(c.item);
    if (only !== undefined && t !== only) continue;
    groups.set(t, [...(groups.get(t) ?? []), c]);
  }
  const out = new Map<string, Cell>();
  for (const cells of groups.values()) for (const c of fn(cells)) out.set(c.item, c);
  return layout.map((c) => out.get(c.item) ?? c);
}

/**
 * The tabs' grids stacked into one, in tab order (when the last tab is removed), each
 * compact below the one before.
 */
export function stackTabs(layout: Cell[], items: DefItem[], tabs: Tab[]): Cell[] {
  let top = 0;
  const out = new Map<string, Cell>();
  for (const t of tabs) {
    const cells = compact(
      layout.filter(
        (c) =>
          tabOf(
            items.find((i) => i.id === c.item)!,
            tabs,
          ) === t.id,
      ),
    );
    for (const c of cells) out.set(c.item, { ...c, y: c.y + top });
    top = Math.max(top, ...[...out.values()].map((c) => c.y + c.h));
  }
  return layout.map((c) => out.get(c.item) ?? c);
}

/**
 * Every item with a cell (those the definition leaves unplaced go full width below), each
 * tab's grid compacted.
 */
export function withCells(def: DashboardDef): Cell[] {
  const cells = new Map(def.layout.map((c) => [c.item, fit(c)]));
  let y = bottom([...cells.values()]);
  const placed = def.items.map((i) => {
    const c = cells.get(i.id);
    if (c) return c;
    const made = { item: i.id, x: 0, y, w: COLUMNS, h: 5 };
    y += 5;
    return made;
  });
  return perTab(placed, def.items, def.tabs ?? [], (cells) => compact(cells));
}

/** Words for a cell, read out after each move. */
export const describeCell = (c: Cell) =>
  `column ${c.x + 1}, row ${c.y + 1}, ${c.w} columns wide, ${c.h} rows high`;
