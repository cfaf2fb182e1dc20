// Charts the server draws (reports, dashboards, the chat, PDFs) read like the app's: a
// dimension of numbers (a year) is a label, 2024 and not 2,024; several measures stand side by
// side instead of stacked into a sum; category labels stay level when they fit.
import { describe, expect, it } from 'vitest';
import { renderChartSvg, type ChartTable } from '../src/engine/reports/chart.js';
import { visualizationSpec } from '../src/engine/reports/visualization.js';

const size = { width: 640, height: 360 };
type Spec = { encoding: Record<string, { type?: string; axis?: { labelAngle?: number } }> };

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
    const spec = visualizationSpec({ type: 'bar' }, years, size) as unknown as Spec;
    expect(spec.encoding.x!.type).toBe('ordinal');
    expect(spec.encoding.x!.axis).toEqual({ labelAngle: 0 });
    expect(spec.encoding.xOffset).toMatchObject({ type: 'nominal' });
    const svg = await renderChartSvg(spec as unknown as Record<string, unknown>);
    expect(svg).toContain('>2024<');
    expect(svg).not.toContain('2,024');
    // Level: the only turned text is the value axis's title.
    const turned = [...svg.matchAll(/rotate\([^)]*\)[^>]*>([^<]*)/g)].map((m) => m[1]);
    expect(turned).toEqual(['Value']);
    // One measure keeps one bar per year; a line is never offset.
    const one = visualizationSpec({ type: 'bar', y: 'Flights' }, years, size) as unknown as Spec;
    expect(one.encoding.xOffset).toBeUndefined();
    const line = visualizationSpec({ type: 'line' }, years, size) as unknown as Spec;
    expect(line.encoding.xOffset).toBeUndefined();
  });

  it('gives the smaller of two measures ten times apart its own axis, on the right', async () => {
    const apart: ChartTable = {
      columns: years.columns,
      rows: [
        ['2023', '29961', '4100000'],
        ['2024', '30039', '4200000'],
      ],
    };
    type Layered = {
      encoding: Record<string, unknown>;
      layer: { mark: unknown; encoding: { y: { title: string; axis: { orient: string } } } }[];
      resolve: unknown;
    };
    const spec = visualizationSpec({ type: 'bar' }, apart, size) as unknown as Layered;
    expect(spec.resolve).toEqual({ scale: { y: 'independent' } });
    expect(spec.layer.map((l) => [l.mark, l.encoding.y.title, l.encoding.y.axis.orient])).toEqual([
      ['bar', 'Flights', 'left'],
      [{ type: 'line', point: true }, 'Passengers', 'right'],
    ]);
    const svg = await renderChartSvg(spec as unknown as Record<string, unknown>);
    // Two value axes, each with its own title and numbers: 30K is not a sliver under 4.2M.
    expect(svg).toContain("aria-label=\"Y-axis titled 'Flights'");
    expect(svg).toContain("aria-label=\"Y-axis titled 'Passengers'");
    expect(svg).toContain('>4M<');
    expect(svg).toContain('>30K<');
    // One drill area per year, though a year has a bar and a point.
    expect([...svg.matchAll(/data-drill="([^"]*)"/g)].map((m) => m[1])).toEqual([
      '{&quot;Year&quot;:&quot;2023&quot;}',
      '{&quot;Year&quot;:&quot;2024&quot;}',
    ]);
    // Of the same size, they stay side by side on one axis.
    const same = visualizationSpec({ type: 'bar' }, years, size) as unknown as Layered;
    expect(same.layer).toBeUndefined();
  });

  it('labels each mark by its columns’ titles, never by an internal field', async () => {
    const spec = visualizationSpec({ type: 'bar' }, years, size);
    const svg = await renderChartSvg(spec);
    const labels = [...svg.matchAll(/aria-label="(Year: [^"]*)"/g)].map((m) => m[1]);
    expect(labels).toHaveLength(4);
    for (const l of labels) expect(l).not.toMatch(/\bc\d+:/);
    expect(labels).toContain('Year: 2023; Value: 29961; Series: Flights');
  });

  it('turns labels only when they do not fit', () => {
    const long: ChartTable = {
      columns: [
        { title: 'Airport', dataType: 'string', kind: 'dimension' },
        { title: 'Flights', dataType: 'integer', kind: 'measure' },
      ],
      rows: Array.from({ length: 30 }, (_, i) => [`Airport with a long name ${i}`, String(i)]),
    };
    const spec = visualizationSpec({ type: 'bar' }, long, size) as unknown as Spec;
    expect(spec.encoding.x!.axis).toBeUndefined();
  });
});
