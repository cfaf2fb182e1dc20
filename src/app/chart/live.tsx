// The live chart (loaded on demand): ECharts draws the shared option (src/shared/chart) in the
// page, redrawn for its width and the system's light or dark theme. Every mark has a tooltip;
// a click on a mark, or Enter on it, opens its menu (the caller's actions for its values).
// Keyboard: the chart is one tab stop; the arrow keys (Home, End) move between its marks,
// each said aloud and shown with its tooltip; Escape closes the menu.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { echarts } from '../../shared/chart/echarts';
import { chartModel, markInfo, type ChartMarkInfo } from '../../shared/chart/model';
import { chartOption } from '../../shared/chart/option';
import { DARK, LIGHT } from '../../shared/chart/theme';
import { loadRegions } from './maps';
import type { ChartProps, MarkAction } from './types';

interface Mark {
  series: number;
  index: number;
  info: ChartMarkInfo;
}
interface Menu {
  mark: Mark;
  x: number;
  y: number;
  actions: MarkAction[];
}

const dark = () => matchMedia('(prefers-color-scheme: dark)');

export function LiveChart({ spec, title, actions }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof echarts.init>>();
  const model = useMemo(() => chartModel(spec), [spec]);
  // Every mark with a value, in series order: what the arrow keys walk through.
  const marks = useMemo(
    () =>
      model.series.flatMap((s, si) =>
        s.values.flatMap((v, i): Mark[] => {
          const info = v === null ? undefined : markInfo(spec, model, si, i);
          return info ? [{ series: si, index: i, info }] : [];
        }),
      ),
    [spec, model],
  );
  const [active, setActive] = useState(-1);
  const [menu, setMenu] = useState<Menu | null>(null);
  const menuRef = useRef<HTMLDivElement>(null);

  // The click handler is bound once per spec; the actions (the dashboard's filters) change.
  const latest = useRef(actions);
  latest.current = actions;
  const open = (mark: Mark, x: number, y: number) => {
    const list = latest.current?.(mark.info.values, mark.info.label) ?? [];
    setMenu({ mark, x, y, actions: list });
  };

  useEffect(() => {
    const el = host.current!;
    const c = echarts.init(el, null, { renderer: 'svg' });
    chart.current = c;
    let gone = false;
    // A map's boundaries load first (their own chunk); until then the server's still shows.
    const ready = spec.map ? loadRegions(spec.map.regions) : Promise.resolve();
    // Drawn for the size it is shown at (legend rows, level labels, a gauge's scale), as the
    // server draws it for the size it was asked.
    let drawn = '';
    const draw = () => {
      void ready.then(() => {
        if (gone) return;
        const width = el.clientWidth || spec.width;
        const height = el.clientHeight || spec.height;
        drawn = `${width}x${height}`;
        c.setOption(chartOption({ ...spec, width, height }, dark().matches ? DARK : LIGHT), true);
      });
    };
    draw();
    c.on('click', (p) => {
      const e = p.event?.event as MouseEvent | undefined;
      // A map's region item says which category it is (the map adds regions of its own).
      const index = (p.data as { category?: number } | undefined)?.category ?? p.dataIndex;
      const at = marks.find((m) => m.series === p.seriesIndex && m.index === index);
      const r = box.current!.getBoundingClientRect();
      if (at) open(at, (e?.clientX ?? r.left) - r.left, (e?.clientY ?? r.top) - r.top);
    });
    const resize = new ResizeObserver(() => {
      if (drawn === `${el.clientWidth}x${el.clientHeight}`) return;
      c.resize();
      draw();
    });
    resize.observe(el);
    const mq = dark();
    mq.addEventListener('change', draw);
    return () => {
      gone = true;
      mq.removeEventListener('change', draw);
      resize.disconnect();
      c.dispose();
    };
  }, [spec]);

  // The menu takes the focus as it is drawn (a layout effect: an effect runs a frame later,
  // so an Escape in between saw a menu without the focus, and the late effect then focused a
  // button that was being removed: the focus fell to the page). Escape or a click elsewhere
  // closes it.
  useLayoutEffect(() => {
    if (!menu) return;
    menuRef.current?.querySelector('button')?.focus();
    const away = (e: PointerEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenu(null);
    };
    document.addEventListener('pointerdown', away, true);
    return () => document.removeEventListener('pointerdown', away, true);
  }, [menu]);

  const show = (i: number) => {
    const m = marks[i];
    if (!m) return;
    setActive(i);
    chart.current?.dispatchAction({ type: 'showTip', seriesIndex: m.series, dataIndex: m.index });
  };
  const where = (m: Mark): [number, number] => {
    const c = chart.current;
    const v = model.series[m.series]?.values[m.index];
    const axes = ['bar', 'line', 'area', 'point'].includes(spec.mark);
    if (c && axes && v !== null && v !== undefined) {
      const px = c.convertToPixel({ seriesIndex: m.series }, Array.isArray(v) ? v : [m.index, v]);
      if (Array.isArray(px)) return [px[0]!, px[1]!];
    }
    const r = box.current!.getBoundingClientRect();
    return [r.width / 2, r.height / 2];
  };
  const close = () => {
    setMenu(null);
    box.current?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && menu) {
      e.preventDefault();
      close();
      return;
    }
    if (e.target !== box.current || !marks.length) return;
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    let next: number | undefined;
    if (step !== undefined) next = active < 0 ? 0 : (active + step + marks.length) % marks.length;
    if (e.key === 'Home') next = 0;
    if (e.key === 'End') next = marks.length - 1;
    if (next !== undefined) {
      e.preventDefault();
      show(next);
    } else if ((e.key === 'Enter' || e.key === ' ') && marks[active]) {
      e.preventDefault();
      open(marks[active]!, ...where(marks[active]!));
    }
  };

  return (
    <div
      class="chart-live"
      ref={box}
      tabIndex={0}
      role="group"
      aria-label={`${title}: chart. Arrow keys move between its marks; Enter opens a mark's menu.`}
      onKeyDown={onKey}
      onBlur={(e) => {
        if (!box.current?.contains(e.relatedTarget as Node))
          chart.current?.dispatchAction({ type: 'hideTip' });
      }}
      style={{ '--ratio': String(spec.width / spec.height) }}
    >
      <div class="chart-canvas" ref={host} aria-hidden="true" />
      <p class="sr-only" aria-live="polite">
        {active >= 0 ? marks[active]?.info.text : ''}
      </p>
      {menu && (
        <div
          class="chart-menu"
          role="menu"
          aria-label={menu.mark.info.text}
          ref={menuRef}
          style={{ left: `${menu.x}px`, top: `${menu.y}px` }}
          onKeyDown={(e) => {
            const items = [...(menuRef.current?.querySelectorAll('button') ?? [])];
            const at = items.indexOf(e.target as HTMLButtonElement);
            const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
            if (step !== undefined && at >= 0) {
              e.preventDefault();
              items[(at + step + items.length) % items.length]?.focus();
            }
          }}
        >
          <p class="chart-menu-head">{menu.mark.info.text}</p>
          {menu.actions.map((a) => (
            <button
              key={a.label}
              type="button"
              role="menuitem"
              onClick={() => {
                setMenu(null);
                a.run();
              }}
            >
              {a.label}
            </button>
          ))}
          {!menu.actions.length && <p class="muted">Nothing to do with this mark here.</p>}
          <button type="button" role="menuitem" class="chart-menu-close" onClick={close}>
            Close
          </button>
        </div>
      )}
    </div>
  );
}
