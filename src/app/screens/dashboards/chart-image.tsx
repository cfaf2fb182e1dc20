// A dashboard chart: the server's SVG as an image, with a button over each bar, point or slice
// whose value the dashboard has a filter for (drill-down: a click filters the dashboard by
// it). The buttons sit where the server's drill areas say, in percentages of the image, so
// they follow it at any width. One tab stop for the chart's marks; arrow keys move between
// them, Enter or Space filters.
import { useMemo, useRef } from 'preact/hooks';
import { chartDataUrl, readChart } from '../../chart-svg';
import type { Drill } from './table';

export function ChartImage(p: { svg: string; title: string; drill?: Drill; onOpenData(): void }) {
  const chart = useMemo(() => readChart(p.svg), [p.svg]);
  const marks = useRef<HTMLDivElement>(null);
  const targets = p.drill
    ? chart.areas.flatMap((a) => {
        const go = p.drill!(a.values);
        return go ? [{ ...a, go }] : [];
      })
    : [];
  const move = (e: KeyboardEvent) => {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
    const all = [...(marks.current?.querySelectorAll('button') ?? [])];
    const at = all.indexOf(e.target as HTMLButtonElement);
    let next = step === undefined ? undefined : at + step;
    if (e.key === 'Home') next = 0;
    if (e.key === 'End') next = all.length - 1;
    if (next === undefined || at < 0) return;
    e.preventDefault();
    const to = all[(next + all.length) % all.length];
    all.forEach((b) => (b.tabIndex = b === to ? 0 : -1));
    to?.focus();
  };
  return (
    <div class="dash-chart-box" style={{ '--ratio': String(chart.ratio) }}>
      <img
        class="dash-chart"
        src={chartDataUrl(p.svg)}
        alt={`Chart: ${p.title}. Its data is in the table below.`}
        // A click beside the marks opens the chart's data.
        onClick={p.onOpenData}
      />
      {targets.length > 0 && (
        <div
          class="dash-marks"
          role="group"
          aria-label={`${p.title}: filter the dashboard by a mark (arrow keys move)`}
          ref={marks}
          onKeyDown={move}
        >
          {targets.map((t, i) => (
            <button
              key={t.label}
              type="button"
              class="dash-mark"
              tabIndex={i === 0 ? 0 : -1}
              title={`Filter the dashboard by ${t.label}`}
              aria-label={`Filter the dashboard by ${t.label}`}
              style={{
                left: `${t.box[0]}%`,
                top: `${t.box[1]}%`,
                width: `${t.box[2]}%`,
                height: `${t.box[3]}%`,
              }}
              onClick={t.go}
            />
          ))}
        </div>
      )}
    </div>
  );
}
