// A result drawn in the page as SVG elements (no markup strings): bars or a line per measure,
// side by side, a second axis for a measure of another magnitude, labels that stay level
// (columns when they fit under them, else bars across with the labels beside), redrawn for
// the width it has, colours from the stylesheet (light and dark).
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatNumber, tickFormat } from '../../format';
import { niceTicks, type ChartData, type Series } from './chart-data';

/** The width of the element, kept up to date. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    setWidth(Math.floor(el.clientWidth));
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

/** About how wide a label is at the chart's 12 px font. */
const textWidth = (s: string) => s.length * 6.8;
const clip = (s: string, px: number) => {
  const n = Math.max(3, Math.floor(px / 6.8));
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};

interface Scale {
  ticks: number[];
  at: (v: number) => number;
  label: (v: number) => string;
}

function scale(series: Series[], axis: 0 | 1, from: number, to: number): Scale | null {
  const vs = series.filter((s) => s.axis === axis).flatMap((s) => s.values.map((v) => v ?? 0));
  if (!vs.length) return null;
  const ticks = niceTicks(Math.min(...vs), Math.max(...vs));
  const lo = ticks[0]!;
  const hi = ticks[ticks.length - 1]!;
  return {
    ticks,
    at: (v) => from + ((v - lo) / (hi - lo)) * (to - from),
    label: tickFormat(ticks),
  };
}

const tip = (d: ChartData, s: Series, i: number) =>
  `${d.labels[i] ? `${d.labels[i]}: ` : ''}${s.title} ${s.values[i] === null ? '–' : formatNumber(s.values[i]!)}`;

export function Chart(props: { data: ChartData; kind: 'bar' | 'line'; label: string }) {
  const [ref, width] = useWidth();
  const { data, kind } = props;
  const two = data.series.some((s) => s.axis === 1);
  return (
    <figure class="chart" ref={ref}>
      {data.series.length > 1 && (
        <ul class="chart-legend" aria-label="Measures">
          {data.series.map((s, k) => (
            <li key={k}>
              <span class={`chart-key s${k % 6}`} aria-hidden="true" />
              {s.title}
              {two && (s.axis === 1 ? ' (right axis)' : ' (left axis)')}
            </li>
          ))}
        </ul>
      )}
      {width > 0 &&
        (kind === 'line' || columnsFit(data, width) ? (
          <Columns data={data} width={width} line={kind === 'line'} label={props.label} />
        ) : (
          <Bars data={data} width={width} label={props.label} />
        ))}
    </figure>
  );
}

const columnsFit = (d: ChartData, width: number) => {
  const band = (width - 110) / d.labels.length;
  return d.labels.every((l) => textWidth(l) <= band - 6);
};

/** Vertical columns (or a line) over the categories, value axes left (and right). */
function Columns(props: { data: ChartData; width: number; line: boolean; label: string }) {
  const { data, width, line } = props;
  const phone = width < 560;
  const height = phone ? 240 : 320;
  const two = data.series.some((s) => s.axis === 1);
  const top = 12;
  const bottom = height - 28;
  const left = 56;
  const right = width - (two ? 56 : 12);
  const y0 = scale(data.series, 0, bottom, top);
  const y1 = scale(data.series, 1, bottom, top);
  const n = data.labels.length;
  const band = (right - left) / n;
  // Level labels: every k-th when they do not all fit.
  const widest = Math.max(...data.labels.map(textWidth));
  const every = Math.max(1, Math.ceil((widest + 8) / band));
  const bars = data.series.length;
  const barW = Math.max(1, (band * 0.8) / bars);
  const yOf = (s: Series) => (s.axis === 1 ? y1 : y0)!;
  return (
    <svg width={width} height={height} role="img" aria-label={props.label}>
      <title>{props.label}</title>
      <g class="chart-grid">
        {y0!.ticks.map((t) => (
          <g key={t}>
            <line x1={left} x2={right} y1={y0!.at(t)} y2={y0!.at(t)} />
            <text x={left - 6} y={y0!.at(t) + 4} text-anchor="end">
              {y0!.label(t)}
            </text>
          </g>
        ))}
        {y1?.ticks.map((t) => (
          <text key={t} x={right + 6} y={y1.at(t) + 4}>
            {y1.label(t)}
          </text>
        ))}
      </g>
      <g class="chart-axis">
        {data.labels.map((l, i) =>
          i % every === 0 ? (
            <text key={i} x={left + band * (i + 0.5)} y={height - 8} text-anchor="middle">
              {every > 1 ? clip(l, band * every - 8) : l}
            </text>
          ) : null,
        )}
      </g>
      {data.series.map((s, k) => {
        const y = yOf(s);
        if (line) {
          const pts = s.values
            .map((v, i) => (v === null ? null : `${left + band * (i + 0.5)},${y.at(v)}`))
            .filter(Boolean)
            .join(' ');
          return (
            <g key={k} class={`chart-line s${k % 6}`}>
              <polyline points={pts} />
              {s.values.map((v, i) =>
                v === null ? null : (
                  <circle key={i} cx={left + band * (i + 0.5)} cy={y.at(v)} r={n > 40 ? 2 : 3.5}>
                    <title>{tip(data, s, i)}</title>
                  </circle>
                ),
              )}
            </g>
          );
        }
        const base = y.at(Math.max(0, y.ticks[0]!));
        return (
          <g key={k} class={`chart-bar s${k % 6}`}>
            {s.values.map((v, i) => {
              if (v === null) return null;
              const yv = y.at(v);
              return (
                <rect
                  key={i}
                  x={left + band * i + band * 0.1 + barW * k}
                  y={Math.min(yv, base)}
                  width={barW}
                  height={Math.max(1, Math.abs(base - yv))}
                >
                  <title>{tip(data, s, i)}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
    </svg>
  );
}

/** Bars across, the categories' labels beside them: long labels and phones. */
function Bars(props: { data: ChartData; width: number; label: string }) {
  const { data, width } = props;
  const two = data.series.some((s) => s.axis === 1);
  const bars = data.series.length;
  const rowH = Math.max(22, bars * 10 + 10);
  const top = two ? 24 : 8;
  const left = Math.min(Math.max(...data.labels.map(textWidth)) + 12, Math.floor(width * 0.4));
  const right = width - 24;
  const height = top + rowH * data.labels.length + 24;
  const x0 = scale(data.series, 0, left, right);
  const x1 = scale(data.series, 1, left, right);
  const bottom = height - 24;
  const barH = (rowH * 0.8) / bars;
  return (
    <svg width={width} height={height} role="img" aria-label={props.label}>
      <title>{props.label}</title>
      <g class="chart-grid">
        {x0!.ticks.map((t) => (
          <g key={t}>
            <line x1={x0!.at(t)} x2={x0!.at(t)} y1={top} y2={bottom} />
            <text x={x0!.at(t)} y={height - 8} text-anchor="middle">
              {x0!.label(t)}
            </text>
          </g>
        ))}
        {x1?.ticks.map((t) => (
          <text key={t} x={x1.at(t)} y={14} text-anchor="middle">
            {x1.label(t)}
          </text>
        ))}
      </g>
      <g class="chart-axis">
        {data.labels.map((l, i) => (
          <text key={i} x={left - 6} y={top + rowH * (i + 0.5) + 4} text-anchor="end">
            {clip(l, left - 10)}
          </text>
        ))}
      </g>
      {data.series.map((s, k) => {
        const x = (s.axis === 1 ? x1 : x0)!;
        const base = x.at(Math.max(0, x.ticks[0]!));
        return (
          <g key={k} class={`chart-bar s${k % 6}`}>
            {s.values.map((v, i) => {
              if (v === null) return null;
              const xv = x.at(v);
              return (
                <rect
                  key={i}
                  x={Math.min(xv, base)}
                  y={top + rowH * i + rowH * 0.1 + barH * k}
                  width={Math.max(1, Math.abs(xv - base))}
                  height={barH}
                >
                  <title>{tip(data, s, i)}</title>
                </rect>
              );
            })}
          </g>
        );
      })}
    </svg>
  );
}
