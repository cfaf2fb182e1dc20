// Clickable marks without scripts in the SVG: charts reach the app as images, so after Vega
// draws one we add, at its end, an invisible rectangle per mark that carries what a click on
// that mark filters by (`data-drill`, JSON of column title → value as the result wrote it) and
// a short label (`data-label`). The app reads them and lays buttons over the image; a page
// that inlines the SVG (public page, PDF) draws nothing more, as they have no fill or stroke.
import type * as vega from 'vega';

interface SceneItem {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  startAngle?: number;
  endAngle?: number;
  innerRadius?: number;
  outerRadius?: number;
  bounds?: { x1: number; y1: number; x2: number; y2: number };
  datum?: Record<string, unknown>;
  items?: SceneMark[];
}
interface SceneMark {
  marktype: string;
  role?: string;
  items?: SceneItem[];
}

/** A point mark's (or a slice's) hit area: a square this many pixels wide around it. */
const POINT = 18;

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const r1 = (n: number) => Math.round(n * 10) / 10;

function area(type: string, it: SceneItem): [number, number, number, number] | undefined {
  const x = it.x ?? 0;
  const y = it.y ?? 0;
  if (type === 'rect') return [x, y, it.width ?? 0, it.height ?? 0];
  if (type === 'arc') {
    // The middle of the slice (Vega's angles start at 12 o'clock, clockwise).
    const mid = ((it.startAngle ?? 0) + (it.endAngle ?? 0)) / 2;
    const r = ((it.innerRadius ?? 0) + (it.outerRadius ?? 0)) / 2;
    return [x + r * Math.sin(mid) - POINT / 2, y - r * Math.cos(mid) - POINT / 2, POINT, POINT];
  }
  if (type === 'line' || type === 'area' || type === 'symbol')
    return [x - POINT / 2, y - POINT / 2, POINT, POINT];
  return undefined;
}

/**
 * The SVG with one `<rect data-drill>` per data mark whose datum holds `key` (the raw values
 * by field), naming each of `fields` (field → column title) by its title.
 */
export function drillAreas(
  svg: string,
  view: vega.View,
  key: string,
  fields: Map<string, string>,
): string {
  if (!fields.size) return svg;
  // The SVG renderer wraps the scene in one translate (padding and axes); marks are inside it.
  const m = /<g[^>]*transform="translate\(([-\d.e]+),([-\d.e]+)\)"/.exec(svg);
  const [ox, oy] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  const rects: string[] = [];
  const seen = new Set<string>();
  const walk = (mark: SceneMark, dx: number, dy: number) => {
    for (const it of mark.items ?? []) {
      if (mark.marktype === 'group') {
        for (const child of it.items ?? []) walk(child, dx + (it.x ?? 0), dy + (it.y ?? 0));
        continue;
      }
      const raw = it.datum?.[key] as Record<string, string> | undefined;
      if (mark.role !== 'mark' || !raw || typeof raw !== 'object') continue;
      const box = area(mark.marktype, it);
      if (!box || box[2] <= 0 || box[3] <= 0) continue;
      const drill = Object.fromEntries(
        [...fields].filter(([f]) => f in raw).map(([f, title]) => [title, raw[f]]),
      );
      // One area per filter: a chart with a second axis draws a bar and a point per category.
      const once = JSON.stringify(drill);
      if (seen.has(once)) continue;
      seen.add(once);
      const label = Object.entries(drill)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
      rects.push(
        `<rect x="${r1(dx + box[0])}" y="${r1(dy + box[1])}" width="${r1(box[2])}" height="${r1(box[3])}"` +
          ` fill="none" stroke="none" pointer-events="none" data-drill="${esc(JSON.stringify(drill))}" data-label="${esc(label)}"/>`,
      );
    }
  };
  const root = (view.scenegraph() as unknown as { root: SceneMark }).root;
  walk(root, ox, oy);
  if (!rects.length) return svg;
  return svg.replace(
    /<\/svg>\s*$/,
    `<g class="drill-areas" aria-hidden="true">${rects.join('')}</g></svg>`,
  );
}
