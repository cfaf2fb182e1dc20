// One spec, one ECharts option: the server renders it to SVG (src/engine/reports/chart.ts) and
// the app draws it live (src/app/chart), so a chart is the same picture everywhere. Chart
// types are drawn by one function each (cartesian, pie); another type is one more file.
import { niceAxis, type ValueAxis } from './axis.js';
import { axisNumber, groupedNumber } from './format.js';
import { chartModel, markInfo, type ChartModel } from './model.js';
import type { ChartSpec } from './spec.js';
import { LIGHT, type ChartTheme } from './theme.js';

/** An ECharts option (kept loose: the option is data plus a few formatter functions). */
export type ChartOption = Record<string, unknown>;

const FONT = 'sans-serif';
const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface TipParams {
  seriesIndex?: number;
  dataIndex?: number;
  percent?: number;
}

/** Tooltips: the mark's category and value, escaped (the text is the result's). */
function tooltip(spec: ChartSpec, model: ChartModel, theme: ChartTheme) {
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
      const info = markInfo(spec, model, p.seriesIndex ?? 0, p.dataIndex ?? 0);
      if (!info) return '';
      const pct = p.percent === undefined ? '' : ` (${groupedNumber(round1(p.percent))}%)`;
      // No colour marker: ECharts writes it with a style attribute, which the app's CSP refuses.
      return `${esc(info.text)}${pct}`;
    },
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** "Flights by region: East · Flights: 30,000; West · Flights: 12,000." (at most 30 marks) */
function describe(spec: ChartSpec): string {
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

function base(spec: ChartSpec, theme: ChartTheme, legend: boolean): ChartOption {
  const top = spec.title ? 30 : 0;
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
            top: top + 4,
            left: 'center',
            textStyle: { color: theme.text, fontFamily: FONT },
            inactiveColor: theme.axis,
          },
        }
      : {}),
  };
}

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
  const stacked = Boolean(spec.color) && (spec.mark === 'bar' || spec.mark === 'area');
  const legend = model.series.length > 1;
  const top = (spec.title ? 34 : 12) + (legend ? 28 : 0);
  const yName = (axis: 0 | 1) =>
    spec.color || spec.y.length === 1 || spec.dual ? spec.y[axis]?.title : undefined;
  const yAxes = (spec.dual ? [0, 1] : [0]).map((a) =>
    valueAxis(
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
  const series = model.series.map((s) => {
    const drawn = s.axis === 1 && spec.mark !== 'point' ? 'line' : spec.mark;
    const common = {
      name: s.name,
      yAxisIndex: s.axis,
      data: s.values,
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

function pie(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const values = (model.series[0]?.values ?? []) as (number | null)[];
  const top = spec.title ? 34 : 8;
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
          formatter: (p: { name: string; percent: number }) =>
            `${p.name}: ${groupedNumber(round1(p.percent))}%`,
        },
        labelLine: { lineStyle: { color: theme.axis } },
      },
    ],
  };
}

/** The ECharts option of a spec, in a theme (light by default: the server's SVG). */
export function chartOption(spec: ChartSpec, theme: ChartTheme = LIGHT): ChartOption {
  const model = chartModel(spec);
  return spec.mark === 'arc' ? pie(spec, model, theme) : cartesian(spec, model, theme);
}
