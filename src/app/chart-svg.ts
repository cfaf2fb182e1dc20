// The server's chart SVGs (reports, the chat, a dashboard chart until its live chart is
// loaded) as the app shows them: as images (never inserted as markup), with a dark palette
// that follows the system like the app's stylesheet.

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
