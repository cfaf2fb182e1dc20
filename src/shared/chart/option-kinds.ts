// A funnel (x its stages, widest first, each saying its value) and a gauge (the first row's
// value on an arc from min to max, a target as a mark on the arc).
import { axisNumber, groupedNumber } from './format.js';
import type { ChartModel } from './model.js';
import { base, FONT, tooltip, type ChartOption } from './option-base.js';
import type { ChartSpec } from './spec.js';
import type { ChartTheme } from './theme.js';

export function funnel(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const values = (model.series[0]?.values ?? []) as (number | null)[];
  const top = spec.title ? 40 : 12;
  return {
    ...base(spec, theme, false),
    tooltip: tooltip(spec, model, theme),
    series: [
      {
        type: 'funnel',
        name: spec.y[0]!.title,
        left: '8%',
        width: '84%',
        top,
        bottom: 12,
        sort: 'descending',
        gap: 2,
        minSize: '8%',
        cursor: 'pointer',
        data: model.labels.map((name, i) => ({ name, value: values[i] ?? 0 })),
        label: {
          position: 'inside',
          color: '#ffffff',
          fontFamily: FONT,
          textBorderColor: 'rgba(0,0,0,0.35)',
          textBorderWidth: 2,
          formatter: (p: { name: string; value: number }) => `${p.name}: ${groupedNumber(p.value)}`,
        },
        itemStyle: { borderColor: theme.background === 'transparent' ? '#1c2027' : '#ffffff' },
      },
    ],
  };
}

export function gauge(spec: ChartSpec, model: ChartModel, theme: ChartTheme): ChartOption {
  const g = spec.gauge ?? { min: 0, max: 100 };
  const value = ((model.series[0]?.values ?? [])[0] as number | null | undefined) ?? null;
  const domain = [g.min, g.max];
  const top = spec.title ? 34 : 0;
  // A small gauge (a dashboard's narrow cell) keeps its arc, value and name, not its scale.
  const small = Math.min(spec.width, spec.height - top) < 220;
  const band = small ? 10 : 16;
  const ring = {
    type: 'gauge',
    min: g.min,
    max: g.max,
    startAngle: 205,
    endAngle: -25,
    radius: small ? '92%' : '78%',
    center: ['50%', `${(small ? 62 : 58) + (top / spec.height / 2) * 100}%`],
  };
  const target = g.target;
  const tip = tooltip(spec, model, theme);
  return {
    ...base(spec, theme, false),
    tooltip: {
      ...tip,
      formatter: (p: { seriesIndex?: number }) =>
        p.seriesIndex === 1 && target !== undefined
          ? `Target: ${groupedNumber(target)}`
          : tip.formatter(p),
    },
    series: [
      {
        ...ring,
        name: spec.y[0]!.title,
        cursor: 'pointer',
        progress: { show: true, width: band, itemStyle: { color: theme.palette[0] } },
        axisLine: { lineStyle: { width: band, color: [[1, theme.grid]] } },
        pointer: { show: false },
        axisTick: { show: false },
        splitLine: { show: !small, distance: 4, length: 6, lineStyle: { color: theme.axis } },
        splitNumber: 4,
        axisLabel: {
          show: !small,
          distance: 14,
          color: theme.muted,
          fontFamily: FONT,
          formatter: (v: number) => axisNumber(v, domain),
        },
        title: {
          offsetCenter: [0, small ? '48%' : '62%'],
          color: theme.muted,
          fontFamily: FONT,
          fontSize: small ? 11 : 13,
        },
        detail: {
          offsetCenter: [0, small ? '10%' : '22%'],
          color: theme.text,
          fontFamily: FONT,
          fontSize: small ? 20 : 28,
          fontWeight: 600,
          formatter: () => (value === null ? '–' : groupedNumber(value)),
        },
        data: [{ name: spec.y[0]!.title, value: value ?? g.min }],
      },
      ...(target !== undefined
        ? [
            {
              ...ring,
              name: 'Target',
              // The target: a short bar across the arc, where the value would reach it.
              axisLine: { show: false },
              progress: { show: false },
              axisTick: { show: false },
              splitLine: { show: false },
              axisLabel: { show: false },
              title: { show: false },
              detail: { show: false },
              pointer: {
                icon: 'rect',
                length: small ? '28%' : '22%',
                width: small ? 3 : 4,
                offsetCenter: [0, '-74%'],
                itemStyle: { color: theme.text },
              },
              data: [{ name: 'Target', value: Math.min(g.max, Math.max(g.min, target)) }],
            },
          ]
        : []),
    ],
  };
}
