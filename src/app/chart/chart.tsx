// A chart in the app: the server's SVG at once (the same picture: one option from one spec,
// src/shared/chart), then — once the chart code has loaded on demand (its own chunk, kept out
// of the first screen) — the live chart: a tooltip on every mark, a menu on a click or Enter.
import { useEffect, useState } from 'preact/hooks';
import type { ComponentType } from 'preact';
import type { ChartProps } from './types';
import './chart.css';
import { chartDataUrl } from '../chart-svg';

export type { ChartProps, MarkAction, MarkActions } from './types';

let loaded: ComponentType<ChartProps> | undefined;
let loading: Promise<ComponentType<ChartProps>> | undefined;
const load = () =>
  (loading ??= import('./live').then((m) => {
    loaded = m.LiveChart;
    return m.LiveChart;
  }));

/**
 * Starts loading the chart code now: a dashboard asks for it beside its own request, so the
 * live charts do not wait for the answer before their chunk is even requested.
 */
export const preloadCharts = (): void => void load().catch(() => undefined);

export function Chart(p: ChartProps) {
  const [Live, setLive] = useState(() => loaded);
  useEffect(() => {
    if (!Live) void load().then((c) => setLive(() => c));
  }, [Live]);
  if (Live) return <Live {...p} />;
  return p.svg ? (
    <img class="chart-still" src={chartDataUrl(p.svg)} alt={`Chart: ${p.title}`} />
  ) : (
    <div class="chart-still" aria-busy="true" />
  );
}
