// A dashboard's def with one more report: a new item and its grid cell, full width below the
// others. No imports: test/app-explore.test.ts checks it directly.

export interface DashboardDef {
  items: { id: string; report: string; title?: string }[];
  layout?: { item: string; x: number; y: number; w: number; h: number }[];
  filters?: unknown[];
  [key: string]: unknown;
}

/** Dashboards lay items out on a grid 12 cells wide (wider cells are narrowed to it). */
export const GRID_COLUMNS = 12;
/** Rows a new item takes, as the server gives an item without a cell. */
export const NEW_ITEM_ROWS = 5;
/** A number (KPI) needs a small cell: a quarter of the width, two rows. */
export const KPI_CELL = { w: 3, h: 2 };

/** An item id for `report` that the dashboard does not use yet (≤ 100 characters). */
export function newItemId(def: DashboardDef, report: string): string {
  const base = (report.replace(/^report\./, '').replace(/[^\w.-]+/g, '_') || 'item').slice(0, 90);
  const taken = new Set(def.items.map((i) => i.id));
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  return id;
}

/**
 * `def` with `report` appended: its item, and a cell below all others. Items without a cell
 * get the one the server gives them (full width, below the laid-out ones, in order) so the
 * dashboard looks as before with the new item at the bottom.
 */
export function withReport(
  def: DashboardDef,
  report: string,
  opts: { kpi?: boolean } = {},
): DashboardDef {
  const id = newItemId(def, report);
  const layout = [...(def.layout ?? [])];
  let y = Math.max(0, ...layout.map((l) => l.y + l.h));
  const placed = new Set(layout.map((l) => l.item));
  for (const item of def.items) {
    if (placed.has(item.id)) continue;
    layout.push({ item: item.id, x: 0, y, w: GRID_COLUMNS, h: NEW_ITEM_ROWS });
    y += NEW_ITEM_ROWS;
  }
  const cell = opts.kpi ? KPI_CELL : { w: GRID_COLUMNS, h: NEW_ITEM_ROWS };
  layout.push({ item: id, x: 0, y, ...cell });
  return { ...def, items: [...def.items, { id, report }], layout };
}
