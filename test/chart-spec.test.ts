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
      ['2023', '29961', '4100000'],
      ['2024', '30039', '4200000'],
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
