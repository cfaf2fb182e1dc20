// A KPI drawn as an SVG (the chat's and MCP's image of a `kpi` report, and the sparkline of
// pages and PDFs): its number, the change against the previous period, coloured by its
// direction, and the sparkline of its periods.
import type { ReportKpi } from '../../contract/dashboards.js';
import { kpiChangeText, kpiTrend, sparkPoints } from '../../shared/chart/sparkline.js';
import { LIGHT } from '../../shared/chart/theme.js';

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const TREND_COLOUR = { up: '#1a7f37', down: '#cf222e', flat: LIGHT.muted } as const;

/** The sparkline alone, `width` × `height` (empty text without two periods). */
export function sparklineSvg(k: ReportKpi, width: number, height: number): string {
  const points = sparkPoints(k.series?.map((p) => p.value) ?? [], width, height);
  if (!points) return '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" aria-hidden="true">` +
    `<polyline points="${points}" fill="none" stroke="${LIGHT.palette[0]}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/></svg>`
  );
}

/** The whole KPI as an image: title, number, period, change and sparkline. */
export function kpiSvg(k: ReportKpi, width = 480, height = 240): string {
  const trend = kpiTrend(k);
  const change = kpiChangeText(k);
  const font = 'font-family="sans-serif"';
  const lines = [
    `<text x="24" y="40" ${font} font-size="16" fill="${LIGHT.muted}">${esc(k.title)}${k.period ? ` · ${esc(k.period)}` : ''}</text>`,
    `<text x="24" y="96" ${font} font-size="44" font-weight="600" fill="${LIGHT.text}">${esc(k.formatted)}</text>`,
    change
      ? `<text x="24" y="130" ${font} font-size="16" fill="${TREND_COLOUR[trend!]}">${trend === 'up' ? '▲ ' : trend === 'down' ? '▼ ' : ''}${esc(change)}</text>`
      : '',
  ];
  const spark = sparklineSvg(k, width - 48, height - 160);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
    `<rect width="${width}" height="${height}" fill="#ffffff"/>${lines.join('')}` +
    (spark ? `<g transform="translate(24 ${146})">${spark}</g>` : '') +
    '</svg>'
  );
}
