// Clickable marks without scripts in the SVG: a chart reaching a client as an image (the API's
// `chart.svg`) ends, after ECharts draws it, with an invisible rectangle per mark that carries
// what a click on that mark filters by (`data-drill`, JSON of column title → value as the
// result wrote it) and a short label (`data-label`). A page that inlines the SVG (public page,
// PDF) draws nothing more, as they have no fill or stroke.
import type { EChartsType } from 'echarts/core';
import { chartModel, markInfo, type ChartModel } from '../../shared/chart/model.js';
import type { ChartSpec } from '../../shared/chart/spec.js';

/** A point mark's (or a slice's) hit area: a square this many pixels wide around it. */
const POINT = 18;

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const r1 = (n: number) => Math.round(n * 10) / 10;

type Layout =
  | { x: number; y: number; width: number; height: number }
  | { cx: number; cy: number; r0: number; r: number; startAngle: number; endAngle: number }
  | number[];

/** ECharts' own layout of a mark (its series data's item layout), as a box. */
function box(layout: Layout | undefined): [number, number, number, number] | undefined {
  if (!layout) return undefined;
  if (Array.isArray(layout)) {
    const [x, y] = layout;
    if (!Number.isFinite(x) || !Number.isFinite(y)) return undefined;
    return [x! - POINT / 2, y! - POINT / 2, POINT, POINT];
  }
  if ('cx' in layout) {
    // The middle of the slice (ECharts' angles are in radians, y pointing down).
    const mid = (layout.startAngle + layout.endAngle) / 2;
    const r = (layout.r0 + layout.r) / 2;
    const x = layout.cx + r * Math.cos(mid);
    const y = layout.cy + r * Math.sin(mid);
    return [x - POINT / 2, y - POINT / 2, POINT, POINT];
  }
  // A bar grows up or down from its base: a negative height is drawn upwards.
  const { x, y, width, height } = layout;
  return [Math.min(x, x + width), Math.min(y, y + height), Math.abs(width), Math.abs(height)];
}

/** Where a line's or a scatter's value sits, in pixels (undefined for a gap). */
function point(chart: EChartsType, model: ChartModel, s: number, i: number): Layout | undefined {
  const v = model.series[s]!.values[i];
  if (v === null || v === undefined) return undefined;
  const at = Array.isArray(v) ? v : [i, v];
  const px = chart.convertToPixel({ seriesIndex: s }, at) as number[] | undefined;
  return Array.isArray(px) ? px : undefined;
}

interface SeriesData {
  count(): number;
  getItemLayout(i: number): Layout | undefined;
}

/** The SVG with one `<rect data-drill>` per mark that stands for a category or date. */
export function drillAreas(svg: string, spec: ChartSpec, chart: EChartsType): string {
  // Funnels, gauges and maps have no axis or slice layout to place areas by.
  if (!['bar', 'line', 'area', 'point', 'arc'].includes(spec.mark)) return svg;
  const model = chartModel(spec);
  if (model.numericX && !spec.color) return svg;
  const global = (
    chart as unknown as {
      getModel(): { getSeriesByIndex(i: number): { getData(): SeriesData } | undefined };
    }
  ).getModel();
  const rects: string[] = [];
  const seen = new Set<string>();
  model.series.forEach((_, s) => {
    const data = global.getSeriesByIndex(s)?.getData();
    if (!data) return;
    for (let i = 0; i < data.count(); i++) {
      const info = markInfo(spec, model, s, i);
      if (!info || !Object.keys(info.values).length) continue;
      // Bars and slices keep their layout per item; a line's points are placed by the axes.
      const b = box(data.getItemLayout(i) ?? point(chart, model, s, i));
      if (!b || b[2] <= 0 || b[3] <= 0) continue;
      // One area per filter: a chart with a second axis draws a bar and a point per category.
      const once = JSON.stringify(info.values);
      if (seen.has(once)) continue;
      seen.add(once);
      rects.push(
        `<rect x="${r1(b[0])}" y="${r1(b[1])}" width="${r1(b[2])}" height="${r1(b[3])}"` +
          ` fill="none" stroke="none" pointer-events="none" data-drill="${esc(once)}" data-label="${esc(info.label)}"/>`,
      );
    }
  });
  if (!rects.length) return svg;
  return svg.replace(
    /<\/svg>\s*$/,
    `<g class="drill-areas" aria-hidden="true">${rects.join('')}</g></svg>`,
  );
}
