// The server's chart SVGs (dashboards, reports, the chat) as the app shows them: as images
// (never inserted as markup), with a dark palette that follows the system like the app's
// stylesheet, and the drill areas the server lays over each bar, point or slice
// (src/engine/reports/chart-drill.ts) read back for the buttons laid over the image.

// CSS beats SVG presentation attributes, so this recolours the light theme's background, text
// and grid lines (src/shared/chart/theme.ts) as the dark theme has them.
const DARK =
  '<style>@media (prefers-color-scheme: dark){' +
  'svg>rect:first-of-type{fill:#1c2027}text{fill:#e6e9ee}' +
  '[stroke="#e4e7eb"]{stroke:#2e343d}[stroke="#8c959f"]{stroke:#7d8796}}</style>';

/** The SVG as an image address, themed for dark mode. */
export function chartDataUrl(svg: string): string {
  const themed = svg.replace(/^(<svg[^>]*>)/, `$1${DARK}`);
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(themed)}`;
}

export interface DrillArea {
  /** Left, top, width and height as percentages of the chart. */
  box: [number, number, number, number];
  /** Column title → the value a click filters by. */
  values: Record<string, string>;
  label: string;
}

/** The chart's aspect ratio (width / height) and its drill areas, from the SVG's own text. */
export function readChart(svg: string): { ratio: number; areas: DrillArea[] } {
  const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const root = doc.documentElement;
  const width = Number(root.getAttribute('width')) || 640;
  const height = Number(root.getAttribute('height')) || 360;
  const areas: DrillArea[] = [];
  for (const r of doc.querySelectorAll('rect[data-drill]')) {
    try {
      const values = JSON.parse(r.getAttribute('data-drill') ?? '') as Record<string, string>;
      const n = (a: string) => Number(r.getAttribute(a));
      areas.push({
        box: [
          (n('x') / width) * 100,
          (n('y') / height) * 100,
          (n('width') / width) * 100,
          (n('height') / height) * 100,
        ],
        values,
        label: r.getAttribute('data-label') ?? '',
      });
    } catch {
      // An area without readable values is left out: the data table still drills.
    }
  }
  return { ratio: width / height, areas };
}
