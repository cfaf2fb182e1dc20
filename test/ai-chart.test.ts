// AI chat charts: our own chart spec from a query result, rendered to SVG with no fetches.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  buildChartSpec,
  MAX_CHART_ROWS,
  renderChartSvg,
  type ChartTable,
} from '../src/engine/reports/chart.js';
import { EngineError } from '../src/engine/errors.js';
import { chartModel } from '../src/shared/chart/model.js';
import { chartOption } from '../src/shared/chart/option.js';

const sales: ChartTable = {
  columns: [
    { title: 'Region', dataType: 'string' },
    { title: 'SUM([Sales])', dataType: 'number' },
    { title: 'Day', dataType: 'date' },
  ],
  rows: [
    ['North', '120.5', '2024-01-01'],
    ['South', '300', '2024-01-02'],
    ['East', '', '2024-01-03'],
  ],
};

type Json = Record<string, unknown>;
const series = (spec: Parameters<typeof chartOption>[0]) => chartOption(spec).series as Json[];
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

function caught(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(EngineError);
    expect((err as EngineError).kind).toBe('invalid');
    return err as EngineError;
  }
  throw new Error('expected an EngineError');
}

describe('buildChartSpec', () => {
  it('renders a bar chart with the category labels, deterministically', async () => {
    const spec = buildChartSpec({ mark: 'bar', x: 'Region', y: 'SUM([Sales])' }, sales);
    expect(spec.chart).toBe('ursa-chart/1');
    expect(spec.width).toBe(640);
    expect(spec.x).toEqual({ type: 'nominal', title: 'Region' });
    // Bars of names tallest first.
    expect(chartModel(spec).categories).toEqual(['South', 'North', 'East']);
    const svg = await renderChartSvg(spec);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(texts(svg)).toEqual(expect.arrayContaining(['North', 'South', 'East']));
    expect(await renderChartSvg(spec)).toBe(svg);
  });

  it('converts numeric cells to numbers and empty cells to null', () => {
    const spec = buildChartSpec({ mark: 'bar', x: 'Region', y: 'SUM([Sales])' }, sales);
    expect(spec.data).toEqual([
      ['North', '120.5'],
      ['South', '300'],
      ['East', ''],
    ]);
    expect(series(spec)[0]!.data).toEqual([300, 120.5, null]);
  });

  it('uses a temporal x for a date column in a line chart', async () => {
    const spec = buildChartSpec({ mark: 'line', x: 'Day', y: 'SUM([Sales])' }, sales);
    expect(spec.mark).toBe('line');
    expect(spec.x).toEqual({ type: 'temporal', title: 'Day' });
    // Dates in order, at their grain (days).
    expect(chartModel(spec).labels).toEqual(['Jan 1, 2024', 'Jan 2, 2024', 'Jan 3, 2024']);
    expect(series(spec)[0]!.type).toBe('line');
    expect(await renderChartSvg(spec)).toMatch(/^<svg/);
  });

  it('draws an arc with theta from y and color from x', async () => {
    const spec = buildChartSpec({ mark: 'arc', x: 'Region', y: 'SUM([Sales])' }, sales);
    expect(spec.y).toEqual([{ title: 'SUM([Sales])', type: 'quantitative' }]);
    expect(spec.x).toEqual({ title: 'Region', type: 'nominal' });
    expect(series(spec)[0]).toMatchObject({
      type: 'pie',
      data: [
        { name: 'North', value: 120.5 },
        { name: 'South', value: 300 },
        { name: 'East', value: 0 },
      ],
    });
    expect(await renderChartSvg(spec)).toMatch(/^<svg/);
  });

  it('keeps titles with dots and brackets out of field paths', async () => {
    const table: ChartTable = {
      columns: [
        { title: 'a.b', dataType: 'string' },
        { title: 'SUM([Distance])', dataType: 'integer' },
      ],
      rows: [
        ['x', '1'],
        ['y', '2'],
      ],
    };
    const spec = buildChartSpec(
      { mark: 'point', x: 'a.b', y: 'SUM([Distance])', title: 'Distance' },
      table,
    );
    expect(spec.y).toEqual([{ title: 'SUM([Distance])', type: 'quantitative' }]);
    const svg = await renderChartSvg(spec);
    expect(texts(svg)).toEqual(expect.arrayContaining(['SUM([Distance])', 'a.b', 'Distance']));
  });

  it('lists the valid columns when one is unknown', () => {
    const err = caught(() =>
      buildChartSpec({ mark: 'bar', x: 'Regoin', y: 'SUM([Sales])' }, sales),
    );
    expect(err.message).toContain('Regoin');
    for (const title of ['Region', 'SUM([Sales])', 'Day']) expect(err.message).toContain(title);
  });

  it('refuses an empty table and one with too many rows', () => {
    const empty = { ...sales, rows: [] };
    expect(
      caught(() => buildChartSpec({ mark: 'bar', x: 'Region', y: 'SUM([Sales])' }, empty)).message,
    ).toMatch(/nothing to chart/);
    const big = {
      ...sales,
      rows: Array.from({ length: MAX_CHART_ROWS + 1 }, (_, i) => [`r${i}`, '1', '2024-01-01']),
    };
    expect(
      caught(() => buildChartSpec({ mark: 'bar', x: 'Region', y: 'SUM([Sales])' }, big)).message,
    ).toMatch(/1001 rows.*at most 1000/);
  });

  it('never puts a url in the spec', () => {
    const table: ChartTable = {
      columns: [
        { title: 'url', dataType: 'string' },
        { title: 'n', dataType: 'integer' },
      ],
      rows: [['http://127.0.0.1:9/x.csv', '1']],
    };
    const spec = buildChartSpec(
      { mark: 'bar', x: 'url', y: 'n', color: 'url', title: 'http://example.com' },
      table,
    );
    const keys: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, child] of Object.entries(v)) {
          keys.push(k);
          walk(child);
        }
    };
    walk(spec);
    expect(keys).not.toContain('url');
    expect(keys).not.toContain('usermeta');
  });
});

describe('renderChartSvg', () => {
  it('makes no request for a spec that names a data url (refused: not a chart spec)', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      res.end('a,b\n1,2\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const spec = {
        $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
        data: { url: `http://127.0.0.1:${port}/x.csv` },
        mark: 'bar',
        encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'b', type: 'quantitative' } },
      };
      await expect(
        renderChartSvg(spec as unknown as Parameters<typeof renderChartSvg>[0]),
      ).rejects.toMatchObject({ kind: 'invalid' });
      expect(requests).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
