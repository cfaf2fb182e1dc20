// Charts the server draws (reports, dashboards, the chat, PDFs) read like the app's — they are
// the app's: one ECharts option from one spec (src/shared/chart). A dimension of numbers (a
// year) is a label, 2024 and not 2,024; several measures stand side by side instead of stacked
// into a sum; category labels stay level when they fit; axes end above the data; months read
// "Jan 2025"; a second breakdown is one series per value; a pie's slices say their share, long
// names cut to the room beside the pie (the share kept), never past the chart's edge.
import { describe, expect, it } from 'vitest';
import { renderChartSvg, type ChartTable } from '../src/engine/reports/chart.js';
import { visualizationSpec } from '../src/engine/reports/visualization.js';
import { chartOption, pieLabel } from '../src/shared/chart/option.js';

const size = { width: 640, height: 360 };
type Axis = {
  type: string;
  data?: string[];
  max?: number;
  name?: string;
  position?: string;
  axisLabel: { rotate?: number; formatter?: (v: number) => string };
};
type Series = {
  type: string;
  name: string;
  stack?: string;
  yAxisIndex: number;
  data: unknown[];
  label?: { formatter: (p: { name: string; percent: number }) => string };
};
type Opt = {
  xAxis: Axis;
  yAxis: Axis[];
  series: Series[];
  tooltip: { formatter: (p: { seriesIndex: number; dataIndex: number }) => string };
};
const optionOf = (vis: Parameters<typeof visualizationSpec>[0], t: ChartTable) =>
  chartOption(visualizationSpec(vis, t, size)) as unknown as Opt;

describe('server charts people can read', () => {
  const years: ChartTable = {
    columns: [
      { title: 'Year', dataType: 'integer', kind: 'dimension' },
      { title: 'Flights', dataType: 'integer', kind: 'measure' },
      { title: 'Passengers', dataType: 'integer', kind: 'measure' },
    ],
    rows: [
      ['2023', '29961', '41000'],
      ['2024', '30039', '42000'],
    ],
  };

  it('labels years as years, level, with several measures side by side', async () => {
    const spec = visualizationSpec({ type: 'bar' }, years, size);
    expect(spec.x.type).toBe('ordinal');
    const o = chartOption(spec) as unknown as Opt;
    expect(o.xAxis.axisLabel.rotate).toBe(0);
    expect(o.series.map((s) => [s.type, s.name, s.stack])).toEqual([
      ['bar', 'Flights', undefined],
      ['bar', 'Passengers', undefined],
    ]);
    const svg = await renderChartSvg(spec);
    expect(svg).toContain('>2024<');
    expect(svg).not.toContain('2,024');
    // Level: no turned text but the value axis's title (none here: the legend names them).
    const turned = [...svg.matchAll(/rotate\([^)]*\)[^>]*>([^<]*)/g)].map((m) => m[1]);
    expect(turned).toEqual([]);
    // A line is never stacked either.
    const line = optionOf({ type: 'line' }, years);
    expect(line.series.map((s) => s.stack)).toEqual([undefined, undefined]);
  });

  it('gives the smaller of two measures ten times apart its own axis, on the right', async () => {
    const apart: ChartTable = {
      columns: years.columns,
      rows: [
        ['2023', '29961', '4100000'],
        ['2024', '30039', '4200000'],
      ],
    };
    const spec = visualizationSpec({ type: 'bar' }, apart, size);
    expect(spec.dual).toBe(true);
    const o = chartOption(spec) as unknown as Opt;
    expect(o.yAxis.map((a) => [a.name, a.position])).toEqual([
      ['Flights', 'left'],
      ['Passengers', 'right'],
    ]);
    expect(o.series.map((s) => [s.type, s.name, s.yAxisIndex])).toEqual([
      ['bar', 'Flights', 0],
      ['line', 'Passengers', 1],
    ]);
    const svg = await renderChartSvg(spec);
    // Two value axes, each with its own title and numbers: 30K is not a sliver under 4.2M.
    expect(svg).toContain('>Flights<');
    expect(svg).toContain('>Passengers<');
    expect(svg).toContain('>4M<');
    expect(svg).toContain('>30K<');
    // One drill area per year, though a year has a bar and a point.
    expect([...svg.matchAll(/data-drill="([^"]*)"/g)].map((m) => m[1])).toEqual([
      '{&quot;Year&quot;:&quot;2023&quot;}',
      '{&quot;Year&quot;:&quot;2024&quot;}',
    ]);
    // Of the same size, they stay side by side on one axis.
    expect(visualizationSpec({ type: 'bar' }, years, size).dual).toBeUndefined();
  });

  it('says what each mark is by its columns’ titles, in tooltips and drill labels', async () => {
    const o = optionOf({ type: 'bar' }, years);
    expect(o.tooltip.formatter({ seriesIndex: 0, dataIndex: 0 })).toBe('2023 · Flights: 29,961');
    expect(o.tooltip.formatter({ seriesIndex: 1, dataIndex: 1 })).toBe('2024 · Passengers: 42,000');
    const svg = await renderChartSvg(visualizationSpec({ type: 'bar' }, years, size));
    const labels = [...svg.matchAll(/data-label="([^"]*)"/g)].map((m) => m[1]);
    expect(labels).toEqual(['Year: 2023', 'Year: 2024']);
  });

  it('escapes the result’s text in a tooltip (it is HTML in the page)', () => {
    const names: ChartTable = {
      columns: [
        { title: 'Name', dataType: 'string', kind: 'dimension' },
        { title: 'N', dataType: 'integer', kind: 'measure' },
      ],
      rows: [['<img src=x onerror=alert(1)>', '1']],
    };
    const tip = optionOf({ type: 'bar' }, names).tooltip.formatter({
      seriesIndex: 0,
      dataIndex: 0,
    });
    expect(tip).toBe('&lt;img src=x onerror=alert(1)&gt; · N: 1');
  });

  it('turns labels only when they do not fit', () => {
    const long: ChartTable = {
      columns: [
        { title: 'Airport', dataType: 'string', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: Array.from({ length: 30 }, (_, i) => [`Airport with a long name ${i}`, String(i)]),
    };
    expect(optionOf({ type: 'bar' }, long).xAxis.axisLabel.rotate).toBe(40);
  });

  const monthly: ChartTable = {
    columns: [
      { title: 'Month', dataType: 'date', kind: 'dimension' },
      { title: 'Carrier', dataType: 'string', kind: 'dimension' },
      { title: 'Flights', dataType: 'integer', kind: 'measure' },
    ],
    rows: [
      ['2025-02-01', 'AA', '300'],
      ['2025-01-01', 'AA', '120'],
      ['2025-01-01', 'DL', '90'],
      ['2025-02-01', 'DL', '150'],
      ['2025-03-01', 'AA', '200'],
    ],
  };

  it('labels monthly dates "Jan 2025", in order, and other grains at theirs', async () => {
    const o = optionOf({ type: 'line', y: 'Flights', x: 'Month' }, monthly);
    expect(o.xAxis.data).toEqual(['Jan 2025', 'Feb 2025', 'Mar 2025']);
    expect(await renderChartSvg(visualizationSpec({ type: 'line' }, monthly, size))).toContain(
      '>Jan 2025<',
    );
    const grain = (dates: string[]) =>
      optionOf(
        { type: 'line' },
        {
          columns: [monthly.columns[0]!, monthly.columns[2]!],
          rows: dates.map((d) => [d, '1']),
        },
      ).xAxis.data;
    expect(grain(['2024-01-01', '2025-01-01'])).toEqual(['2024', '2025']);
    expect(grain(['2025-01-05', '2025-01-06'])).toEqual(['Jan 5, 2025', 'Jan 6, 2025']);
    expect(grain(['2025-01-05 14:30:00', '2025-01-05 15:00:00'])).toEqual([
      'Jan 5, 2025, 2:30 PM',
      'Jan 5, 2025, 3:00 PM',
    ]);
  });

  it('ends the value axis above the data, on a round tick', () => {
    const regions: ChartTable = {
      columns: [
        { title: 'Region', dataType: 'string', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: [
        ['West', '12000'],
        ['East', '30000'],
      ],
    };
    const y = optionOf({ type: 'bar' }, regions).yAxis[0]!;
    // 30,000 is the data's top: the axis goes one round tick past it.
    expect(y.max).toBe(40000);
    expect(y.axisLabel.formatter!(40000)).toBe('40K');
    // Stacked bars: above the tallest stack, not the tallest piece.
    const stacked = optionOf({ type: 'bar' }, monthly).yAxis[0]!;
    expect(stacked.max).toBeGreaterThan(450);
  });

  it('makes a second breakdown one series per value (stacked bars, separate lines)', () => {
    const bars = optionOf({ type: 'bar' }, monthly);
    expect(bars.series.map((s) => [s.name, s.stack, s.data])).toEqual([
      ['AA', 'total', [120, 300, 200]],
      ['DL', 'total', [90, 150, null]],
    ]);
    const lines = optionOf({ type: 'line' }, monthly);
    expect(lines.series.map((s) => [s.type, s.name, s.stack])).toEqual([
      ['line', 'AA', undefined],
      ['line', 'DL', undefined],
    ]);
    // The tooltip names the breakdown's value and the measure.
    const o = bars as unknown as Opt;
    expect(o.tooltip.formatter({ seriesIndex: 1, dataIndex: 0 })).toBe(
      'Jan 2025 · DL · Flights: 90',
    );
  });

  it('labels a pie’s slices with their share', async () => {
    const shares: ChartTable = {
      columns: [
        { title: 'Region', dataType: 'string', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: [
        ['West', '1'],
        ['East', '3'],
      ],
    };
    const spec = visualizationSpec({ type: 'pie' }, shares, size);
    const pie = (chartOption(spec) as unknown as Opt).series[0]!;
    expect(pie.label!.formatter({ name: 'West', percent: 25 })).toBe('West: 25%');
    const svg = await renderChartSvg(spec);
    expect(svg).toContain('>West: 25%<');
    expect(svg).toContain('>East: 75%<');
  });

  it('keeps a pie’s long labels inside the chart at phone and desktop widths, shares whole', async () => {
    const long: ChartTable = {
      columns: [
        { title: 'Carrier', dataType: 'string', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: [
        ['Southwest Airlines Company of Dallas, Texas', '400'],
        ['Delta Air Lines Incorporated of Atlanta', '300'],
        ['United', '200'],
        ['Alaska Airlines and Horizon Air Industries', '60'],
        ['Hawaiian', '40'],
      ],
    };
    // A phone's card (390 px screen) and a wide desktop card.
    for (const [width, height] of [
      [358, 240],
      [1200, 360],
    ] as const) {
      const svg = await renderChartSvg(visualizationSpec({ type: 'pie' }, long, { width, height }));
      const texts = [
        ...svg.matchAll(
          /<text[^>]*text-anchor="(start|end)"[^>]*transform="translate\(([\d.]+) [\d.]+\)"[^>]*>([^<]+)<\/text>/g,
        ),
      ].map(([, anchor, x, text]) => ({ anchor, x: Number(x), text: text! }));
      // Every slice's share is there in full, as its own line or after its name.
      for (const share of ['40%', '30%', '20%', '6%', '4%'])
        expect(texts.some((t) => t.text === share || t.text.endsWith(`: ${share}`))).toBe(true);
      // Each line fits between the chart's edges (7 px a character at most at 12 px).
      for (const t of texts) {
        const [from, to] =
          t.anchor === 'start' ? [t.x, t.x + t.text.length * 7] : [t.x - t.text.length * 7, t.x];
        expect(from, `${t.text} at ${width}`).toBeGreaterThanOrEqual(0);
        expect(to, `${t.text} at ${width}`).toBeLessThanOrEqual(width);
      }
      const cut = texts.filter((t) => t.text.endsWith('…'));
      if (width < 400) expect(cut.length).toBeGreaterThanOrEqual(3);
      else {
        expect(cut).toEqual([]);
        expect(texts.map((t) => t.text)).toContain(
          'Southwest Airlines Company of Dallas, Texas: 40%',
        );
      }
    }
    // The cut is the name's, never the share's.
    expect(pieLabel('Southwest Airlines Company of Dallas, Texas', 41.25, 80)).toBe(
      'Southwest…\n41.3%',
    );
    expect(pieLabel('United', 20, 80)).toBe('United: 20%');
  });
});
