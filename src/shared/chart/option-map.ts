// A map: regions (US states, world countries) shaded by a value with a colour scale, or
// points at their latitude and longitude (sized by a value when there is one) over the
// map's boundaries. The boundaries are registered first (geo.ts); a value the map has no
// region for is not drawn (the server reports it as a warning).
import { groupedNumber } from './format.js';
import { regionOf, usInset } from './geo.js';
import type { ChartModel } from './model.js';
import { base, FONT, tooltip, type ChartOption } from './option-base.js';
import type { ChartSpec } from './spec.js';
import type { ChartTheme } from './theme.js';

/** The light end of the colour scale: the theme's first colour, faint. */
const faint = (theme: ChartTheme) => (theme.background === 'transparent' ? '#2a3340' : '#e3ecfb');

export function mapOption(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const kind = spec.map!.regions;
  const top = spec.title ? 40 : 8;
  const tip = tooltip(spec, model, theme);
  const area = {
    map: kind,
    roam: false,
    top,
    bottom: spec.map!.points ? 8 : 44,
    left: 8,
    right: 8,
    itemStyle: {
      areaColor: theme.background === 'transparent' ? '#242a33' : '#f1f3f5',
      borderColor: theme.axis,
      borderWidth: 0.5,
    },
  };
  const values = (model.series[0]?.values ?? []) as (number | null)[];
  if (spec.map!.points) {
    const sized = Boolean(spec.y[2]);
    const most = Math.max(1, ...values.map((v) => Math.abs(v ?? 0)));
    return {
      ...base(spec, theme, false),
      tooltip: tip,
      geo: { ...area, silent: true, emphasis: { disabled: true } },
      series: [
        {
          type: 'scatter',
          name: model.series[0]!.name,
          coordinateSystem: 'geo',
          cursor: 'pointer',
          itemStyle: { color: theme.palette[0], opacity: 0.8 },
          symbolSize: (v: number[]) => (sized ? 6 + 18 * Math.sqrt(Math.abs(v[2] ?? 0) / most) : 9),
          data: spec.data.map((r, i) => {
            const at: [number, number] = [Number(r[2]), Number(r[1])];
            const [x, y] = kind === 'us-states' ? usInset(at) : at;
            return { value: [x, y, values[i] ?? 0], category: i };
          }),
        },
      ],
    };
  }
  const present = values.filter((v): v is number => v !== null);
  const [lo, hi] = [Math.min(0, ...present), Math.max(0, ...present)];
  return {
    ...base(spec, theme, false),
    tooltip: {
      ...tip,
      // A region the result has no row for: its name, no value.
      formatter: (p: { name?: string; data?: { category?: number } }) =>
        p.data?.category === undefined ? `${p.name ?? ''}: –` : tip.formatter(p),
    },
    visualMap: {
      type: 'continuous',
      min: lo,
      max: hi > lo ? hi : lo + 1,
      orient: 'horizontal',
      left: 'center',
      bottom: 6,
      itemWidth: 12,
      itemHeight: 160,
      calculable: false,
      seriesIndex: 0,
      text: [groupedNumber(hi), groupedNumber(lo)],
      textStyle: { color: theme.muted, fontFamily: FONT },
      inRange: { color: [faint(theme), theme.palette[0]] },
    },
    series: [
      {
        ...area,
        type: 'map',
        name: spec.y[0]!.title,
        cursor: 'pointer',
        selectedMode: false,
        label: { show: false },
        emphasis: { label: { show: false }, itemStyle: { areaColor: theme.palette[1] } },
        data: model.categories.map((c, i) => ({
          name: regionOf(kind, c) ?? c,
          value: values[i] ?? NaN,
          category: i,
        })),
      },
    ],
  };
}
