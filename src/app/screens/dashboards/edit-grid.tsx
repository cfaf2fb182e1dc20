// The editor's grid: each item on its cell, moved with the mouse (drag the Move handle;
// near the window's top or bottom edge the page scrolls along) or the keyboard (arrow keys on
// the handle), resized by the Resize handle or Shift+arrows; text items edited with their
// Markdown preview beside, reports drawn as they will show (those added since opening
// computed on their own).
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, projectApi } from '../../api';
import { useProject } from '../../project';
import { ItemBody } from './grid';
import { COLUMNS, fit, nudge, place, type Cell, type DefItem, type Tab } from './layout';
import { TextCard } from './text-card';
import type { DashboardItem, ReportResult } from '../../../contract/dashboards';

export interface GridProps {
  items: DefItem[];
  layout: Cell[];
  titleOf: (i: DefItem) => string;
  shown: Map<string, DashboardItem>;
  /** A new layout after moving `id`; `key` groups the steps of one drag into one undo. */
  onLayout: (next: Cell[], id: string, key?: string) => void;
  onRemove: (id: string) => void;
  /** The dashboard's tabs (when it has several): each item can be moved to another. */
  tabs?: Tab[];
  tabOf: (i: DefItem) => string | undefined;
  onTab: (id: string, tab: string) => void;
  onTitle: (id: string, title: string) => void;
  onText: (id: string, text: string) => void;
}

const KEYS: Record<string, [number, number]> = {
  ArrowLeft: [-1, 0],
  ArrowRight: [1, 0],
  ArrowUp: [0, -1],
  ArrowDown: [0, 1],
};

export function EditGrid(p: GridProps) {
  const grid = useRef<HTMLDivElement>(null);
  // A drag: the handle's kind, where the pointer and the layout were when it started.
  const drag = useRef<{
    id: string;
    resize: boolean;
    x: number;
    y: number;
    base: Cell[];
    /** One undo step for the whole drag. */
    key: string;
  } | null>(null);
  const drags = useRef(0);
  const cells = useRef(new Map<string, Cell>());
  cells.current = new Map(p.layout.map((c) => [c.item, c]));
  const ordered = [...p.items].sort((a, b) => {
    const ca = cells.current.get(a.id)!;
    const cb = cells.current.get(b.id)!;
    return ca.y - cb.y || ca.x - cb.x;
  });

  /** One column and one row of the grid in pixels (null when it is one column: a phone). */
  const steps = () => {
    const g = grid.current;
    if (!g) return null;
    const cs = getComputedStyle(g);
    if (cs.gridTemplateColumns.split(' ').length < COLUMNS) return null;
    const gap = parseFloat(cs.columnGap) || 0;
    const col = (g.clientWidth - gap * (COLUMNS - 1)) / COLUMNS + gap;
    const row = parseFloat(cs.gridAutoRows) + (parseFloat(cs.rowGap) || 0);
    return { col, row };
  };

  // Where the pointer is (in page coordinates, so a scroll during the drag counts).
  const pointer = useRef({ x: 0, y: 0, clientY: 0 });
  const scroller = useRef(0);
  const stopper = useRef<(() => void) | null>(null);
  const start = (e: PointerEvent, id: string, resize: boolean) => {
    if (e.button !== 0 || !steps()) return;
    e.preventDefault();
    pointer.current = { x: e.pageX, y: e.pageY, clientY: e.clientY };
    const key = `drag ${++drags.current}`;
    drag.current = { id, resize, x: e.pageX, y: e.pageY, base: p.layout, key };
    // On the window, not the handle: the items re-order in the page as the layout changes,
    // and a moved element loses its pointer capture.
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
    stopper.current = end;
  };
  /** The layout for the pointer where it is now: only a change of cell re-lays the grid. */
  const follow = () => {
    const d = drag.current;
    const s = steps();
    if (!d || !s) return;
    const dx = Math.round((pointer.current.x - d.x) / s.col);
    const dy = Math.round((pointer.current.y - d.y) / s.row);
    const c = d.base.find((x) => x.item === d.id)!;
    const want = fit(
      d.resize ? { ...c, w: c.w + dx, h: c.h + dy } : { ...c, x: c.x + dx, y: c.y + dy },
    );
    const now = cells.current.get(d.id)!;
    if (want.x !== now.x || want.y !== now.y || want.w !== now.w || want.h !== now.h)
      p.onLayout(place(d.base, want, want.y > c.y), d.id, d.key);
  };
  // Near the window's top or bottom edge the page scrolls, and the item with it.
  const EDGE = 48;
  const autoScroll = () => {
    const y = pointer.current.clientY;
    const step = y < EDGE ? -12 : y > window.innerHeight - EDGE ? 12 : 0;
    if (!drag.current || !step) {
      scroller.current = 0;
      return;
    }
    const before = window.scrollY;
    window.scrollBy(0, step);
    pointer.current.y += window.scrollY - before;
    follow();
    scroller.current = requestAnimationFrame(autoScroll);
  };
  function move(e: PointerEvent) {
    if (!drag.current) return;
    pointer.current = { x: e.pageX, y: e.pageY, clientY: e.clientY };
    follow();
    if (!scroller.current) scroller.current = requestAnimationFrame(autoScroll);
  }
  function end() {
    drag.current = null;
    stopper.current = null;
    cancelAnimationFrame(scroller.current);
    scroller.current = 0;
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', end);
    window.removeEventListener('pointercancel', end);
  }
  // Leaving edit mode mid-drag stops it.
  useEffect(() => () => stopper.current?.(), []);
  const key = (e: KeyboardEvent, id: string, resize: boolean) => {
    const k = KEYS[e.key];
    if (!k) return;
    e.preventDefault();
    p.onLayout(nudge(p.layout, id, k[0], k[1], resize || e.shiftKey), id);
  };

  if (!p.items.length) return <p class="muted">No items: add a report or a text above.</p>;
  return (
    <div class="dash-grid editing" ref={grid}>
      <p id="dash-handle-hint" class="sr-only">
        Arrow keys move the item by a column or a row; Shift with the arrow keys, or the arrow keys
        on Resize, make it wider, narrower, taller or shorter.
      </p>
      {ordered.map((it) => {
        const c = cells.current.get(it.id)!;
        const title = p.titleOf(it);
        const live = p.shown.get(it.id);
        return (
          <section
            key={it.id}
            class="dash-item card dash-edit-item"
            aria-label={title}
            data-item={it.id}
            style={{
              '--x': String(c.x + 1),
              '--y': String(c.y + 1),
              '--w': String(c.w),
              '--h': String(c.h),
            }}
          >
            <div class="dash-edit-bar">
              <button
                type="button"
                class="quiet dash-handle"
                aria-label={`Move ${title}`}
                aria-describedby="dash-handle-hint"
                onPointerDown={(e) => start(e, it.id, false)}
                onKeyDown={(e) => key(e, it.id, false)}
              >
                ✥ Move
              </button>
              <label class="dash-edit-title">
                <span class="sr-only">Title</span>
                <input
                  value={it.title ?? ''}
                  placeholder={'report' in it ? title : 'No title'}
                  maxLength={255}
                  onInput={(e) => p.onTitle(it.id, e.currentTarget.value)}
                />
              </label>
              {p.tabs && (
                <label class="dash-edit-tab">
                  <span class="sr-only">Tab of {title}</span>
                  <select
                    value={p.tabOf(it)}
                    onChange={(e) => p.onTab(it.id, e.currentTarget.value)}
                  >
                    {p.tabs.map((t) => (
                      <option key={t.id} value={t.id}>
                        {t.title}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              <span class="muted dash-cell">
                {c.w}×{c.h}
              </span>
              <button type="button" class="quiet" onClick={() => p.onRemove(it.id)}>
                Remove<span class="sr-only"> {title}</span>
              </button>
            </div>
            {'text' in it ? (
              <>
                <label>
                  Text (Markdown)
                  <textarea
                    rows={3}
                    value={it.text}
                    onInput={(e) => p.onText(it.id, e.currentTarget.value)}
                  />
                </label>
                <div class="dash-edit-preview" aria-label={`${title}: preview`} role="region">
                  <TextCard text={it.text} />
                </div>
              </>
            ) : live && live.report === it.report ? (
              <div class="dash-edit-preview">
                <ItemBody item={live} />
              </div>
            ) : (
              <ReportPreview id={it.id} report={it.report} title={title} />
            )}
            <button
              type="button"
              class="quiet dash-resize"
              aria-label={`Resize ${title}`}
              aria-describedby="dash-handle-hint"
              onPointerDown={(e) => start(e, it.id, true)}
              onKeyDown={(e) => key(e, it.id, true)}
            >
              ⇲
            </button>
          </section>
        );
      })}
    </div>
  );
}

/**
 * A report added since the dashboard was opened, computed as the editor sees it
 * (GET app/reports/{id}), so the item shows what it will show once saved.
 */
function ReportPreview(p: { id: string; report: string; title: string }) {
  const project = useProject();
  const [item, setItem] = useState<DashboardItem | undefined>();
  const [failed, setFailed] = useState('');
  useEffect(() => {
    let live = true;
    get<ReportResult>(`${projectApi(project.id)}/app/reports/${encodeURIComponent(p.report)}`).then(
      (r) =>
        live &&
        setItem({
          ...r,
          id: p.id,
          title: p.title,
          report: p.report,
          layout: { x: 0, y: 0, w: 1, h: 1 },
        }),
      (e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [project.id, p.report, p.id, p.title]);
  if (failed) return <p class="error dash-item-error">This item could not be shown: {failed}</p>;
  if (!item) return <p class="muted">Computing the preview…</p>;
  return (
    <div class="dash-edit-preview">
      <ItemBody item={item} />
    </div>
  );
}
