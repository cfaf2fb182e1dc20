// The chart types BI users expect, drawn on the server from one spec and its ECharts option
// (the app draws the same option live): stacked and 100% stacked bars, combo (bars and a
// line), funnel, gauge, maps (US states and world countries by name or code, points at
// latitude and longitude), and a KPI compared with the previous period.
import { describe, expect, it } from 'vitest';
import { renderChartSvg, type ChartTable } from '../src/engine/reports/chart.js';
import { kpiSvg } from '../src/engine/reports/kpi-svg.js';
import { computeKpi } from '../src/engine/reports/kpi.js';
import { svgToPng } from '../src/engine/reports/png.js';
import { visualizationSpec, type Visualization } from '../src/engine/reports/visualization.js';
import { unmatchedRegions } from '../src/engine/reports/visualization-kinds.js';
import { chartOption } from '../src/shared/chart/option.js';
import { isChartSpec } from '../src/shared/chart/spec.js';

const size = { width: 640, height: 360 };
const cols = (...c: [string, string, string][]) =>
  c.map(([title, dataType, kind]) => ({ title, dataType, kind }));
type Opt = {
  series: { type: string; stack?: string; data: unknown[]; yAxisIndex?: number }[];
  yAxis: { max: number; axisLabel: { formatter: (v: number) => string } }[];
  tooltip: { formatter: (p: { seriesIndex: number; dataIndex: number }) => string };
};
const optionOf = (vis: Visualization, t: ChartTable) =>
  chartOption(visualizationSpec(vis, t, size)) as unknown as Opt;

/** The bars of one colour: [left, bottom, width, height] from ECharts' `M x y l w 0 l 0 -h` paths. */
function bars(svg: string, fill: string): number[][] {
  return [
    ...svg.matchAll(/<path d="M([\d.]+) ([\d.]+)l([\d.]+) 0l0 (-?[\d.]+)[^"]*" fill="([^"]+)"/g),
  ]
    .filter((m) => m[5] === fill)
    .map((m) => [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])]);
}
const BLUE = '#2f6fde';
const ORANGE = '#e8793a';

const byCarrier: ChartTable = {
  columns: cols(
    ['Region', 'string', 'dimension'],
    ['Carrier', 'string', 'dimension'],
    ['Flights', 'integer', 'measure'],
  ),
  rows: [
    ['East', 'AA', '10'],
    ['East', 'UA', '30'],
    ['West', 'AA', '20'],
    ['West', 'UA', '5'],
  ],
};
const twoMeasures: ChartTable = {
  columns: cols(
    ['Month', 'date', 'dimension'],
    ['Flights', 'integer', 'measure'],
    ['Delay', 'number', 'measure'],
  ),
  rows: [
    ['2025-01-01', '1000', '12.5'],
    ['2025-02-01', '1200', '14'],
    ['2025-03-01', '900', '9'],
  ],
};

describe('stacked and 100% stacked bars', () => {
  it('stacks several measures on each other when asked (each bar starts where the last ends)', async () => {
    const t: ChartTable = {
      columns: cols(
        ['Region', 'string', 'dimension'],
        ['Flights', 'integer', 'measure'],
        ['Cancelled', 'integer', 'measure'],
      ),
      rows: [
        ['East', '300', '40'],
        ['West', '200', '30'],
      ],
    };
    const spec = visualizationSpec({ type: 'bar', stack: 'normal' }, t, size);
    expect(spec.stack).toBe('normal');
    expect(isChartSpec(spec)).toBe(true);
    const svg = await renderChartSvg(spec);
    const [blue, orange] = [bars(svg, BLUE), bars(svg, ORANGE)];
    expect(blue).toHaveLength(2);
    expect(orange).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      // Same column, and the orange bar's base is the blue bar's top.
      expect(orange[i]![0]).toBe(blue[i]![0]);
      expect(orange[i]![1]).toBeCloseTo(blue[i]![1]! + blue[i]![3]!, 0);
    }
    // Without `stack`, the two measures stand side by side.
    const side = await renderChartSvg(visualizationSpec({ type: 'bar' }, t, size));
    expect(bars(side, ORANGE)[0]![0]).not.toBe(bars(side, BLUE)[0]![0]);
  });

  it('draws shares of 100% on a % axis; the tooltip gives the value and its share', async () => {
    const spec = visualizationSpec({ type: 'bar', stack: 'percent' }, byCarrier, size);
    expect(spec.stack).toBe('percent');
    const o = chartOption(spec) as unknown as Opt;
    expect(o.series.map((s) => [s.type, s.stack])).toEqual([
      ['bar', 'total'],
      ['bar', 'total'],
    ]);
    expect(o.yAxis[0]!.max).toBe(100);
    expect(o.yAxis[0]!.axisLabel.formatter(80)).toBe('80%');
    // East: AA 10 of 40 (25%), UA 30 (75%).
    const east = o.series.map((s) => s.data[0]);
    expect(east).toEqual([25, 75]);
    expect(o.tooltip.formatter({ seriesIndex: 1, dataIndex: 0 })).toBe(
      'East · UA · Flights: 30 (75%)',
    );
    const svg = await renderChartSvg(spec);
    expect(svg).toContain('>100%<');
    // Every column reaches the top: the two bars of each are as tall together.
    const heights = bars(svg, BLUE).map((b, i) => -b[3]! - bars(svg, ORANGE)[i]![3]!);
    expect(heights[0]).toBeCloseTo(heights[1]!, 0);
    // Areas stack as shares too.
    const area = optionOf({ type: 'area', stack: 'percent' }, byCarrier);
    expect(area.series.map((s) => [s.type, s.stack])).toEqual([
      ['line', 'total'],
      ['line', 'total'],
    ]);
  });
});

describe('combo: bars and a line', () => {
  it('draws the first measure as bars, the others as lines, on a second axis when apart', async () => {
    const spec = visualizationSpec({ type: 'combo' }, twoMeasures, size);
    expect(spec.mark).toBe('bar');
    expect(spec.lines).toEqual([1]);
    expect(spec.dual).toBe(true);
    const o = chartOption(spec) as unknown as Opt;
    expect(o.series.map((s) => [s.type, s.yAxisIndex])).toEqual([
      ['bar', 0],
      ['line', 1],
    ]);
    const svg = await renderChartSvg(spec);
    expect(bars(svg, BLUE)).toHaveLength(3);
    expect(svg).toMatch(/<path d="M[^"]*" fill="none"[^>]*stroke="#e8793a"/);
    // visualization.line picks the line among several measures of one scale.
    const three: ChartTable = {
      columns: [...twoMeasures.columns, { title: 'Seats', dataType: 'integer', kind: 'measure' }],
      rows: twoMeasures.rows.map((r) => [...r, String(Number(r[1]) * 1.5)]),
    };
    const picked = optionOf({ type: 'combo', line: 'seats' }, three);
    expect(picked.series.map((s) => s.type)).toEqual(['bar', 'bar', 'line']);
  });

  it('refuses a combo of one measure and a line that is not a y', () => {
    const one: ChartTable = {
      columns: byCarrier.columns.slice(0, 1).concat(byCarrier.columns[2]!),
      rows: [['East', '1']],
    };
    expect(() => visualizationSpec({ type: 'combo' }, one, size)).toThrow(/two measures/);
    expect(() =>
      visualizationSpec({ type: 'combo', y: [2, 3], line: 1 }, twoMeasures, size),
    ).toThrow(/not one of its y/);
  });
});

describe('funnel and gauge', () => {
  it('draws a funnel of its stages, widest first, each saying its value', async () => {
    const t: ChartTable = {
      columns: cols(['Stage', 'string', 'dimension'], ['Users', 'integer', 'measure']),
      rows: [
        ['Signup', '400'],
        ['Visit', '1000'],
        ['Buy', '90'],
      ],
    };
    const spec = visualizationSpec({ type: 'funnel' }, t, size);
    expect(spec.mark).toBe('funnel');
    const svg = await renderChartSvg(spec);
    for (const l of ['Visit: 1,000', 'Signup: 400', 'Buy: 90']) expect(svg).toContain(`>${l}<`);
    const tops = ['Visit', 'Signup', 'Buy'].map((n) =>
      Number(new RegExp(`y="([\\d.]+)"[^>]*>${n}:`).exec(svg)?.[1]),
    );
    expect(tops[0]).toBeLessThan(tops[1]!);
    expect(tops[1]).toBeLessThan(tops[2]!);
  });

  it('draws a gauge of the first row on its scale, with the target marked', async () => {
    const t: ChartTable = {
      columns: cols(['On time', 'number', 'measure']),
      rows: [['72.5'], ['10']],
    };
    const spec = visualizationSpec({ type: 'gauge', max: 100, target: 80 }, t, size);
    expect(spec.gauge).toEqual({ min: 0, max: 100, target: 80 });
    expect(spec.data).toEqual([['72.5', '72.5']]);
    const svg = await renderChartSvg(spec);
    expect(svg).toMatch(/font-size="28px"[^>]*>72\.5</);
    expect(svg).toContain('>100<');
    // The target's mark is a second gauge's pointer, in the text colour.
    const o = chartOption(spec) as unknown as Opt;
    expect(o.series.map((s) => (s.data[0] as { value: number }).value)).toEqual([72.5, 80]);
    expect(o.tooltip.formatter({ seriesIndex: 1, dataIndex: 0 })).toBe('Target: 80');
    // Left out, the scale runs from 0 to a round number past the value.
    expect(visualizationSpec({ type: 'gauge' }, t, size).gauge).toEqual({ min: 0, max: 80 });
  });
});

describe('maps', () => {
  const states: ChartTable = {
    columns: cols(['State', 'string', 'dimension'], ['Flights', 'integer', 'measure']),
    rows: [
      ['CA', '100'],
      ['texas', '80'],
      ['New York', '50'],
      ['Narnia', '3'],
    ],
  };

  it('shades US states named by code or name, and reports the values it cannot place', async () => {
    const spec = visualizationSpec({ type: 'map' }, states, size);
    expect(spec.map).toEqual({ regions: 'us-states' });
    const svg = await renderChartSvg(spec);
    // A path per state (and DC, Puerto Rico, the Virgin Islands).
    expect([...svg.matchAll(/<path d="M/g)].length).toBeGreaterThanOrEqual(53);
    // Three states shaded by the colour scale, the others the land colour.
    const shaded = [...svg.matchAll(/<path d="M[^"]{200,}" fill="(rgb\([^)]*\))"/g)].map(
      (m) => m[1],
    );
    expect(new Set(shaded).size).toBe(3);
    expect(unmatchedRegions(spec)).toEqual(['Narnia']);
    // The darkest is California's 100: the end of the scale.
    expect(svg).toContain('fill="rgb(47,111,222)"');
  });

  it('shades world countries by ISO code (alpha-2, alpha-3, numeric) or name', async () => {
    const t: ChartTable = {
      columns: cols(['Country', 'string', 'dimension'], ['Sales', 'integer', 'measure']),
      rows: [
        ['DEU', '100'],
        ['fr', '80'],
        ['840', '50'],
        ['Japan', '30'],
        ['United Kingdom', '20'],
      ],
    };
    const spec = visualizationSpec({ type: 'map' }, t, size);
    expect(spec.map).toEqual({ regions: 'world' });
    expect(unmatchedRegions(spec)).toEqual([]);
    const o = chartOption(spec) as unknown as { series: { data: { name: string }[] }[] };
    expect(o.series[0]!.data.map((d) => d.name)).toEqual([
      'Germany',
      'France',
      'United States of America',
      'Japan',
      'United Kingdom',
    ]);
    const svg = await renderChartSvg(spec);
    expect([...svg.matchAll(/<path d="M/g)].length).toBeGreaterThan(150);
    // `map` picks the boundaries when a value could be either ("GA": Georgia, Gabon).
    const ga = { columns: t.columns, rows: [['GA', '1']] };
    expect(visualizationSpec({ type: 'map' }, ga, size).map).toEqual({ regions: 'us-states' });
    expect(visualizationSpec({ type: 'map', map: 'world' }, ga, size).map).toEqual({
      regions: 'world',
    });
  });

  it('places points at latitude and longitude columns, sized by a measure', async () => {
    const t: ChartTable = {
      columns: cols(
        ['Airport', 'string', 'dimension'],
        ['Latitude', 'number', 'dimension'],
        ['Longitude', 'number', 'dimension'],
        ['Flights', 'integer', 'measure'],
      ),
      rows: [
        ['SFO', '37.6', '-122.4', '100'],
        ['JFK', '40.6', '-73.8', '25'],
      ],
    };
    const spec = visualizationSpec({ type: 'map' }, t, size);
    expect(spec.map).toEqual({ regions: 'us-states', points: true });
    expect(spec.y.map((y) => y.title)).toEqual(['Latitude', 'Longitude', 'Flights']);
    const o = chartOption(spec) as unknown as Opt;
    expect(o.tooltip.formatter({ seriesIndex: 0, dataIndex: 1 })).toBe(
      'JFK (40.6, -73.8) · Flights: 25',
    );
    const svg = await renderChartSvg(spec);
    // Two points over the states, the larger for more flights, west of the other.
    // [x, radius] of each point (a circle ECharts scales into place).
    const dots = [
      ...svg.matchAll(/transform="matrix\(([\d.]+),0,0,[\d.]+,([\d.]+),[\d.]+\)" fill="#2f6fde"/g),
    ].map((m) => [Number(m[2]), Number(m[1])]);
    expect(dots).toHaveLength(2);
    expect(dots[0]![0]).toBeLessThan(dots[1]![0]!);
    expect(dots[0]![1]).toBeGreaterThan(dots[1]![1]!);
    // Named by visualization.latitude/longitude when their titles say nothing.
    const named = {
      columns: cols(
        ['Airport', 'string', 'dimension'],
        ['Y', 'number', 'dimension'],
        ['X', 'number', 'dimension'],
      ),
      rows: [['CDG', '49.0', '2.5']],
    };
    const world = visualizationSpec({ type: 'map', latitude: 'Y', longitude: 'X' }, named, size);
    expect(world.map).toEqual({ regions: 'world', points: true });
  });

  it('draws every map to a PNG (self-contained SVG)', async () => {
    const png = await svgToPng(
      await renderChartSvg(visualizationSpec({ type: 'map' }, states, size)),
    );
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('a KPI against the previous period', () => {
  const monthly: ChartTable = {
    columns: cols(['Month', 'date', 'dimension'], ['Flights', 'integer', 'measure']),
    rows: [
      ['2025-12-01', '1200'],
      ['2025-11-01', '1000'],
      ['2026-01-01', '900'],
    ],
  };

  it("shows the last period's value, its change against the one before and the series", () => {
    const k = computeKpi({ type: 'kpi' }, monthly, 'Flights');
    expect(k).toEqual({
      title: 'Flights',
      value: 900,
      formatted: '900',
      period: 'Jan 2026',
      previous: { period: 'Dec 2025', value: 1200, formatted: '1,200' },
      change: { value: -300, formatted: '−300', percent: -25 },
      series: [
        { date: '2025-11-01', value: 1000 },
        { date: '2025-12-01', value: 1200 },
        { date: '2026-01-01', value: 900 },
      ],
    });
    const svg = kpiSvg(k);
    expect(svg).toContain('>900<');
    expect(svg).toContain('▼ −300 (−25%) vs Dec 2025');
    expect(svg).toContain('fill="#cf222e"');
    expect(svg).toMatch(/<polyline points="[\d.]+,[\d.]+ [\d.]+,[\d.]+ [\d.]+,[\d.]+"/);
  });

  it('keeps a KPI without a date as it was: the first row', () => {
    const t: ChartTable = { columns: cols(['Flights', 'integer', 'measure']), rows: [['42']] };
    expect(computeKpi({ type: 'kpi' }, t, 'Flights')).toEqual({
      title: 'Flights',
      value: 42,
      formatted: '42',
    });
  });
});
