// One spec, one ECharts option: the server renders it to SVG (src/engine/reports/chart.ts) and
// the app draws it live (src/app/chart), so a chart is the same picture everywhere. Chart
// types are drawn by one function each (cartesian and pie here, funnel and gauge in
// option-kinds.ts, maps in option-map.ts).
import { niceAxis, type ValueAxis } from './axis.js';
import { axisNumber, groupedNumber } from './format.js';
import { chartModel, type ChartModel } from './model.js';
import type { ChartSpec } from './spec.js';
import { LIGHT, type ChartTheme } from './theme.js';
import { base, FONT, legendRows, maxLegendRows, round1, shareOf, tooltip } from './option-base.js';
import { funnel, gauge } from './option-kinds.js';
import { mapOption } from './option-map.js';

import type { ChartOption } from './option-base.js';

export type { ChartOption };

function valueAxis(
  extent: ValueAxis,
  name: string | undefined,
  theme: ChartTheme,
  position: 'left' | 'right' | 'bottom',
  grid = true,
) {
  const domain = [extent.min, extent.max];
  return {
    type: 'value',
    ...extent,
    ...(position !== 'bottom' ? { position } : {}),
    ...(name
      ? {
          name,
          nameLocation: 'middle',
          nameGap: position === 'bottom' ? 28 : 44,
          nameTextStyle: { color: theme.muted, fontFamily: FONT },
        }
      : {}),
    axisLabel: {
      color: theme.muted,
      fontFamily: FONT,
      formatter: (v: number) => axisNumber(v, domain),
    },
    axisLine: { show: position === 'bottom', lineStyle: { color: theme.axis } },
    splitLine: { show: grid, lineStyle: { color: theme.grid } },
  };
}

/** The extent of the values on one axis (stacked series add up, positives and negatives apart). */
function extentOf(model: ChartModel, axis: 0 | 1, stacked: boolean): [number, number] {
  let lo = 0;
  let hi = 0;
  const on = model.series.filter((s) => s.axis === axis);
  if (model.numericX) {
    for (const s of on)
      for (const p of s.values as [number, number][]) {
        lo = Math.min(lo, p[1]);
        hi = Math.max(hi, p[1]);
      }
    return [lo, hi];
  }
  for (let i = 0; i < model.categories.length; i++) {
    let pos = 0;
    let neg = 0;
    for (const s of on) {
      const v = (s.values as (number | null)[])[i] ?? 0;
      if (stacked) {
        if (v >= 0) pos += v;
        else neg += v;
      } else {
        pos = Math.max(pos, v);
        neg = Math.min(neg, v);
      }
    }
    hi = Math.max(hi, pos);
    lo = Math.min(lo, neg);
  }
  return [lo, hi];
}

/** Category labels stay level when each fits its band (about 7 px a character at 12 px). */
function level(spec: ChartSpec, model: ChartModel): boolean {
  const widest = Math.max(0, ...model.labels.map((l) => l.length * 7));
  return widest <= (spec.width - 80) / Math.max(1, model.labels.length) - 4;
}

function cartesian(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const stacked =
    Boolean(spec.color || spec.stack) && (spec.mark === 'bar' || spec.mark === 'area');
  const percent = stacked && spec.stack === 'percent' && !model.numericX;
  const share = percent ? shareOf(model) : undefined;
  const legend = model.series.length > 1;
  const rows = legend
    ? legendRows(
        model.series.map((s) => s.name),
        spec.width,
      )
    : 0;
  const top =
    (spec.title ? 34 : 12) + (legend ? 24 * (rows > maxLegendRows(spec.height) ? 1 : rows) + 4 : 0);
  const yName = (axis: 0 | 1) =>
    spec.color || spec.y.length === 1 || spec.dual ? spec.y[axis]?.title : undefined;
  const yAxes = (spec.dual ? [0, 1] : [0]).map((a) =>
    percent
      ? percentAxis(extentOf(model, 0, true)[0] < 0, spec.y[0]?.title, theme)
      : valueAxis(
          niceAxis(...extentOf(model, a as 0 | 1, stacked)),
          yName(a as 0 | 1),
          theme,
          a === 0 ? 'left' : 'right',
          a === 0,
        ),
  );
  const xAxis = model.numericX
    ? valueAxis(
        niceAxis(
          Math.min(
            0,
            ...model.series.flatMap((s) => (s.values as [number, number][]).map((p) => p[0])),
          ),
          Math.max(
            0,
            ...model.series.flatMap((s) => (s.values as [number, number][]).map((p) => p[0])),
          ),
        ),
        spec.x.title,
        theme,
        'bottom',
        false,
      )
    : {
        type: 'category',
        data: model.labels,
        name: spec.x.title,
        nameLocation: 'middle',
        nameGap: level(spec, model) ? 30 : 60,
        nameTextStyle: { color: theme.muted, fontFamily: FONT },
        boundaryGap: spec.mark === 'bar',
        axisTick: { alignWithLabel: true, lineStyle: { color: theme.axis } },
        axisLine: { lineStyle: { color: theme.axis } },
        axisLabel: {
          color: theme.muted,
          fontFamily: FONT,
          hideOverlap: true,
          ...(level(spec, model) ? { interval: 0, rotate: 0 } : { rotate: 40 }),
        },
      };
  const series = model.series.map((s, si) => {
    const combo = !spec.color && spec.lines?.includes(s.measure);
    const drawn = (s.axis === 1 && spec.mark !== 'point') || combo ? 'line' : spec.mark;
    const common = {
      name: s.name,
      yAxisIndex: s.axis,
      // A 100% stack draws shares; the tooltip gives the value and its share.
      data: share ? s.values.map((_, i) => share(si, i)) : s.values,
      cursor: 'pointer',
      ...(stacked ? { stack: 'total' } : {}),
    };
    if (drawn === 'bar') return { ...common, type: 'bar', barMaxWidth: 64 };
    if (drawn === 'point') return { ...common, type: 'scatter', symbolSize: 9 };
    return {
      ...common,
      type: 'line',
      // Points on every value: each is a mark to hover and click.
      showSymbol: true,
      symbolSize: 7,
      connectNulls: false,
      ...(drawn === 'area' ? { areaStyle: { opacity: 0.35 } } : {}),
    };
  });
  return {
    ...base(spec, theme, legend),
    tooltip: tooltip(spec, model, theme),
    grid: { left: 16, right: spec.dual || spec.mark === 'bar' ? 20 : 40, top, bottom: 12 },
    xAxis,
    yAxis: yAxes,
    series,
  };
}

/** Pixels a character of a 12 px label takes, at most (about; the legend counts 7 too). */
const LABEL_CHAR = 7;
const LABEL_EDGE = 8;

/**
 * A pie slice's label within `room` pixels: "West: 25.5%" when it fits, else the name cut to
 * the room (…) over its share on a line of its own — the share is never the part cut.
 */
export function pieLabel(name: string, percent: number, room: number): string {
  const share = `${groupedNumber(round1(percent))}%`;
  const chars = Math.max(2, Math.floor(room / LABEL_CHAR));
  if (name.length + 2 + share.length <= chars) return `${name}: ${share}`;
  return `${name.length <= chars ? name : `${name.slice(0, chars - 1).trimEnd()}…`}\n${share}`;
}

function pie(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const values = (model.series[0]?.values ?? []) as (number | null)[];
  const top = spec.title ? 34 : 8;
  // Labels sit between the pie (62% of half the smaller side) and the chart's edge, after
  // their line (about 24 px): long names are cut to that, never drawn past the edge.
  const radius = (0.62 * Math.min(spec.width, spec.height)) / 2;
  const room = Math.max(4 * LABEL_CHAR, Math.floor(spec.width / 2 - radius - 24 - LABEL_EDGE));
  return {
    ...base(spec, theme, false),
    tooltip: tooltip(spec, model, theme),
    series: [
      {
        type: 'pie',
        name: spec.y[0]!.title,
        center: ['50%', `${50 + (top / spec.height / 2) * 100}%`],
        radius: ['0%', '62%'],
        cursor: 'pointer',
        data: model.labels.map((name, i) => ({ name, value: values[i] ?? 0 })),
        // Each slice says what it is and its share: "West: 41.2%".
        label: {
          color: theme.text,
          fontFamily: FONT,
          fontSize: 12,
          alignTo: 'edge',
          edgeDistance: LABEL_EDGE,
          // ECharts' own cut as a last guard (a name of wide letters past the estimate).
          width: room,
          overflow: 'truncate',
          formatter: (p: { name: string; percent: number }) => pieLabel(p.name, p.percent, room),
        },
        labelLine: { lineStyle: { color: theme.axis } },
      },
    ],
  };
}

/** A 100% stack's axis: 0 to 100% (−100% too when some values are negative). */
function percentAxis(negative: boolean, name: string | undefined, theme: ChartTheme) {
  const axis = valueAxis(
    { min: negative ? -100 : 0, max: 100, interval: negative ? 50 : 20 },
    name ? `${name} (share)` : undefined,
    theme,
    'left',
  );
  return { ...axis, axisLabel: { ...axis.axisLabel, formatter: (v: number) => `${v}%` } };
}

/** The ECharts option of a spec, in a theme (light by default: the server's SVG). */
export function chartOption(spec: ChartSpec, theme: ChartTheme = LIGHT): ChartOption {
  const model = chartModel(spec);
  if (spec.mark === 'arc') return pie(spec, model, theme);
  if (spec.mark === 'funnel') return funnel(spec, model, theme);
  if (spec.mark === 'gauge') return gauge(spec, model, theme);
  if (spec.mark === 'map') return mapOption(spec, model, theme);
  return cartesian(spec, model, theme);
}
