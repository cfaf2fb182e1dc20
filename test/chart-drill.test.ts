// Server charts the app can drill into and that write numbers like the app: every bar, point
// or slice ends the SVG as an invisible rectangle over the mark, carrying what a click on it
// filters by (the column's title and the value as the result wrote it, dates too); axis
// numbers are compact once the axis reaches ten thousand (30K), grouped below it (1,500).
import { describe, expect, it } from 'vitest';
import { renderChartSvg, type ChartTable } from '../src/engine/reports/chart.js';
import { axisNumber } from '../src/shared/chart/format.js';
import { visualizationSpec } from '../src/engine/reports/visualization.js';

const size = { width: 640, height: 360 };
const regions: ChartTable = {
  columns: [
    { title: 'Origin Region', dataType: 'string', kind: 'dimension' },
    { title: 'Flights', dataType: 'integer', kind: 'measure' },
  ],
  rows: [
    ['West', '12000'],
    ['East', '30000'],
    ['South', '5000'],
  ],
};

interface Area {
  x: number;
  y: number;
  w: number;
  h: number;
  drill: Record<string, string>;
  label: string;
}
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
function areas(svg: string): Area[] {
  return [
    ...svg.matchAll(
      /<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"[^>]*data-drill="([^"]*)" data-label="([^"]*)"\/>/g,
    ),
  ].map((m) => ({
    x: Number(m[1]),
    y: Number(m[2]),
    w: Number(m[3]),
    h: Number(m[4]),
    drill: JSON.parse(unescape(m[5]!)) as Record<string, string>,
    label: unescape(m[6]!),
  }));
}
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
const viewBox = (svg: string) => {
  const m = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(svg)!;
  return { w: Number(m[1]), h: Number(m[2]) };
};

describe('server charts: drill areas and the app’s number format', () => {
  it('covers each bar with its value; taller bars get taller areas, all inside the chart', async () => {
    const svg = await renderChartSvg(visualizationSpec({ type: 'bar' }, regions, size));
    const found = areas(svg);
    // In the order drawn: tallest first.
    expect(found.map((a) => a.drill)).toEqual([
      { 'Origin Region': 'East' },
      { 'Origin Region': 'West' },
      { 'Origin Region': 'South' },
    ]);
    expect(found[1]!.label).toBe('Origin Region: West');
    const [east, west, south] = found as [Area, Area, Area];
    // Heights follow the flights (30,000 > 12,000 > 5,000); bars share one baseline.
    expect(east.h).toBeGreaterThan(west.h);
    expect(west.h).toBeGreaterThan(south.h);
    expect(west.y + west.h).toBeCloseTo(east.y + east.h, 0);
    const box = viewBox(svg);
    for (const a of found) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + a.w).toBeLessThanOrEqual(box.w);
      expect(a.y + a.h).toBeLessThanOrEqual(box.h);
    }
    // Sorted by flights: East is the leftmost bar.
    expect(east.x).toBeLessThan(west.x);
    expect(west.x).toBeLessThan(south.x);
  });

  it('gives a line’s points their dates as written, and a pie’s slices their names', async () => {
    const days: ChartTable = {
      columns: [
        { title: 'Flight Date', dataType: 'date', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: [
        ['2024-01-01', '120'],
        ['2024-01-02', '300'],
      ],
    };
    const line = areas(await renderChartSvg(visualizationSpec({ type: 'line' }, days, size)));
    expect(line.map((a) => a.drill)).toEqual([
      { 'Flight Date': '2024-01-01' },
      { 'Flight Date': '2024-01-02' },
    ]);
    // The later, higher day is right of and above the first.
    expect(line[1]!.x).toBeGreaterThan(line[0]!.x);
    expect(line[1]!.y).toBeLessThan(line[0]!.y);
    const pie = areas(await renderChartSvg(visualizationSpec({ type: 'pie' }, regions, size)));
    expect(pie.map((a) => a.drill['Origin Region']).sort()).toEqual(['East', 'South', 'West']);
  });

  it('draws no area for a chart of measures only (nothing to filter by)', async () => {
    const scatter: ChartTable = {
      columns: [
        { title: 'Miles', dataType: 'integer', kind: 'measure' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: [
        ['1', '2'],
        ['3', '4'],
      ],
    };
    const svg = await renderChartSvg(
      visualizationSpec({ type: 'scatter', x: 1, y: 2 }, scatter, size),
    );
    expect(areas(svg)).toEqual([]);
    expect(svg).not.toContain('drill-areas');
  });

  it('writes axis numbers compact from ten thousand, grouped below', async () => {
    const big = texts(await renderChartSvg(visualizationSpec({ type: 'bar' }, regions, size)));
    expect(big).toEqual(expect.arrayContaining(['0', '10K', '20K', '30K']));
    expect(big.some((t) => /\d,\d{3}/.test(t ?? ''))).toBe(false);
    const small: ChartTable = {
      ...regions,
      rows: [
        ['West', '1200'],
        ['East', '3000'],
      ],
    };
    const labels = texts(await renderChartSvg(visualizationSpec({ type: 'bar' }, small, size)));
    expect(labels).toEqual(expect.arrayContaining(['1,000', '3,000']));
    expect(axisNumber(1_250_000, [0, 2_000_000])).toBe('1.3M');
    expect(axisNumber(0.125, [0, 1])).toBe('0.13');
  });
});
