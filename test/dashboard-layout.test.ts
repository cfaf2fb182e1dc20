// The dashboard editor's grid moves (src/app/screens/dashboards/layout.ts): the layout stays
// compact (items rise into rows left free above them), an item moved a row onto another
// trades places with it, and no item jumps over another into a hole.
import { describe, expect, it } from 'vitest';
import {
  compact,
  nudge,
  place,
  withCells,
  type Cell,
} from '../src/app/screens/dashboards/layout.js';

const cell = (item: string, x: number, y: number, w: number, h: number): Cell => ({
  item,
  x,
  y,
  w,
  h,
});
const at = (layout: Cell[]) => Object.fromEntries(layout.map((c) => [c.item, [c.x, c.y]]));

describe('the layout grid', () => {
  it('closes gaps: items rise into rows left empty above them', () => {
    const l = [cell('a', 0, 3, 6, 2), cell('b', 6, 0, 6, 2), cell('c', 0, 9, 12, 3)];
    expect(at(compact(l))).toEqual({ a: [0, 0], b: [6, 0], c: [0, 2] });
    // Opening a definition with holes shows it compact.
    expect(
      at(withCells({ items: [{ id: 'a', text: 'x' }], layout: [cell('a', 2, 7, 4, 2)] })),
    ).toEqual({ a: [2, 0] });
  });

  it('does not leapfrog: a small item below a wide one stays below it, whatever hole is above', () => {
    // `wide` spans columns 0–11 at row 2; a hole at rows 0–1 over columns 6–11 only.
    const l = [cell('left', 0, 0, 6, 2), cell('wide', 0, 2, 12, 2), cell('small', 6, 4, 3, 2)];
    expect(at(compact(l))).toEqual({ left: [0, 0], wide: [0, 2], small: [6, 4] });
  });

  it('a row down onto the item below trades places with it; a row up, back', () => {
    const l = [cell('a', 0, 0, 6, 2), cell('b', 0, 2, 6, 5), cell('c', 6, 0, 6, 3)];
    const down = nudge(l, 'a', 0, 1, false);
    expect(at(down)).toEqual({ a: [0, 5], b: [0, 0], c: [6, 0] });
    const up = nudge(down, 'a', 0, -1, false);
    expect(at(up)).toEqual(at(l));
    // At the bottom a row down is no move: there is nothing to pass.
    expect(at(nudge(down, 'a', 0, 1, false))).toEqual(at(down));
  });

  it('sideways onto a neighbour pushes it down; a removed item leaves no hole', () => {
    const l = [cell('a', 0, 0, 6, 2), cell('b', 6, 0, 6, 2), cell('c', 0, 2, 12, 2)];
    expect(at(nudge(l, 'a', 1, 0, false))).toEqual({ a: [1, 0], b: [6, 2], c: [0, 4] });
    expect(at(compact(l.filter((c) => c.item !== 'b')))).toEqual({ a: [0, 0], c: [0, 2] });
  });

  it('dragged down to the top of the item below, it goes behind it (no overlap, all compact)', () => {
    const l = [cell('a', 0, 0, 6, 2), cell('b', 0, 2, 6, 5)];
    // One row: not yet past it.
    expect(at(place(l, cell('a', 0, 1, 6, 2), true))).toEqual(at(l));
    expect(at(place(l, cell('a', 0, 2, 6, 2), true))).toEqual({ a: [0, 5], b: [0, 0] });
    // Taller: what is below moves down, and back up when it shrinks.
    const tall = place(l, cell('a', 0, 0, 6, 4));
    expect(at(tall)).toEqual({ a: [0, 0], b: [0, 4] });
    expect(at(place(tall, cell('a', 0, 0, 6, 1)))).toEqual({ a: [0, 0], b: [0, 1] });
  });
});
