// What every chart type's option shares: the title, legend, colours and fonts, the tooltip
// (the mark's text from the model) and what a screen reader says of the chart.
import { groupedNumber } from './format.js';
import { chartModel, markInfo, type ChartModel } from './model.js';
import type { ChartSpec } from './spec.js';
import type { ChartTheme } from './theme.js';

/** An ECharts option (kept loose: the option is data plus a few formatter functions). */
export type ChartOption = Record<string, unknown>;

export const FONT = 'sans-serif';
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface TipParams {
  seriesIndex?: number;
  dataIndex?: number;
  percent?: number;
  /** A map region's item: the category it stands for (the map adds regions of its own). */
  data?: { category?: number };
}

/** Tooltips: the mark's category and value, escaped (the text is the result's). */
export function tooltip(spec: ChartSpec, model: ChartModel, theme: ChartTheme) {
  const shares = spec.stack === 'percent' ? shareOf(model) : undefined;
  return {
    trigger: 'item',
    confine: true,
    transitionDuration: 0,
    showDelay: 0,
    hideDelay: 0,
    backgroundColor: theme.background === 'transparent' ? '#1c2027' : theme.background,
    borderColor: theme.grid,
    textStyle: { color: theme.text, fontFamily: FONT, fontSize: 13 },
    formatter: (p: TipParams) => {
      const index = p.data?.category ?? p.dataIndex ?? 0;
      const info = markInfo(spec, model, p.seriesIndex ?? 0, index);
      if (!info) return '';
      const percent = p.percent ?? shares?.(p.seriesIndex ?? 0, index) ?? undefined;
      const pct = percent === undefined ? '' : ` (${groupedNumber(round1(percent))}%)`;
      // No colour marker: ECharts writes it with a style attribute, which the app's CSP refuses.
      return `${esc(info.text)}${pct}`;
    },
  };
}

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** A 100% stack: each value's share (in %) of its category's total (of the magnitudes). */
export function shareOf(model: ChartModel): (s: number, i: number) => number | null {
  const totals = model.categories.map((_, i) =>
    model.series.reduce((t, s) => t + Math.abs((s.values[i] as number | null) ?? 0), 0),
  );
  return (s, i) => {
    const v = model.series[s]?.values[i] as number | null | undefined;
    return v === null || v === undefined || !totals[i] ? null : (v / totals[i]!) * 100;
  };
}

/** "Flights by region: East · Flights: 30,000; West · Flights: 12,000." (at most 30 marks) */
export function describe(spec: ChartSpec): string {
  const model = chartModel(spec);
  const texts = model.series.flatMap((s, si) =>
    s.values.flatMap((_, i) => {
      const t = markInfo(spec, model, si, i)?.text;
      return t ? [t] : [];
    }),
  );
  const head = spec.title ? `${spec.title}: ` : '';
  const more = texts.length > 30 ? `; and ${texts.length - 30} more` : '';
  return `${head}${texts.slice(0, 30).join('; ')}${more}.`;
}

/** Rows of legend a chart may give (a third of its height); more scroll in one row. */
export const maxLegendRows = (height: number): number => Math.max(1, Math.floor(height / 3 / 24));

/** Rows the legend of these names takes at this width (about 7 px a character). */
export function legendRows(names: string[], width: number): number {
  let rows = 1;
  let x = 0;
  for (const n of names) {
    const w = 25 + 5 + n.length * 7 + 10;
    if (x > 0 && x + w > width - 20) {
      rows++;
      x = 0;
    }
    x += w;
  }
  return rows;
}

/**
 * What every option has; `legend` names the series when there are several (in rows that fit
 * the width, or one row paged by arrows when they would take over a third of the height).
 */
export function base(spec: ChartSpec, theme: ChartTheme, legend: boolean): ChartOption {
  const top = spec.title ? 30 : 0;
  const names = legend ? chartModel(spec).series.map((s) => s.name) : [];
  const scroll = legend && legendRows(names, spec.width) > maxLegendRows(spec.height);
  return {
    animation: false,
    backgroundColor: theme.background,
    color: theme.palette,
    textStyle: { fontFamily: FONT, color: theme.text },
    // What a screen reader says of the chart: its marks as the tooltips word them.
    aria: { enabled: true, decal: { show: false }, label: { description: describe(spec) } },
    ...(spec.title
      ? {
          title: {
            text: spec.title,
            left: 8,
            top: 4,
            textStyle: { color: theme.text, fontSize: 15, fontWeight: 600, fontFamily: FONT },
          },
        }
      : {}),
    ...(legend
      ? {
          legend: {
            ...(scroll ? { type: 'scroll', pageTextStyle: { color: theme.muted } } : {}),
            top: top + 4,
            left: 'center',
            textStyle: { color: theme.text, fontFamily: FONT },
            inactiveColor: theme.axis,
          },
        }
      : {}),
  };
}
