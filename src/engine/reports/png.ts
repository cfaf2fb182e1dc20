// Charts as PNG images (for MCP clients, which show images but not SVG): our chart SVG
// rasterized by resvg on a white background with the system's fonts. Nothing outside the SVG
// is ever read. resvg fetches no URL (it only lists http(s) images in imagesToResolve), but it
// does read an <image>/<feImage> whose href is a local file path; so an SVG referring to
// anything but its own fragments (#id) is refused before resvg sees it.
import { renderAsync, Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';
import fs from 'node:fs';
import { invalid } from '../errors.js';

/** Default width of a chart image, in pixels. */
export const PNG_WIDTH = 960;
/** Bounds of a requested width (a model can read ~1,500 px; more is bytes for nothing). */
const MIN_WIDTH = 16;
const MAX_WIDTH = 2048;
/** Bounds of the output height: a pathological aspect ratio must not allocate gigabytes. */
const MAX_HEIGHT = 4096;

/** Sans-serif families tried, in order; the first one installed is the default font. */
const PREFERRED_FONTS: { family: string; files: string[] }[] = [
  {
    family: 'DejaVu Sans',
    files: [
      '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
      '/usr/share/fonts/dejavu/DejaVuSans.ttf',
    ],
  },
  {
    family: 'Liberation Sans',
    files: [
      '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf',
      '/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf',
    ],
  },
  {
    family: 'Noto Sans',
    files: [
      '/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf',
      '/usr/share/fonts/noto/NotoSans-Regular.ttf',
    ],
  },
];

let fontOptions: ResvgRenderOptions['font'] | undefined;

/** System fonts, with a sans-serif family installed here as the default (decided once). */
function fonts(): ResvgRenderOptions['font'] {
  if (fontOptions) return fontOptions;
  const family = PREFERRED_FONTS.find((f) => f.files.some((p) => fs.existsSync(p)))?.family;
  fontOptions = {
    loadSystemFonts: true,
    // Charts write font-family="sans-serif".
    ...(family ? { defaultFontFamily: family, sansSerifFamily: family } : {}),
  };
  return fontOptions;
}

/**
 * References an SVG may hold: href/xlink:href values, url(…) in attributes and styles, and
 * CSS @import. Only same-document fragments (#id) are allowed.
 */
const HREF = /\b(?:xlink:)?href\s*=\s*(["'])(.*?)\1/gis;
const URL_REF = /url\(\s*(["']?)(.*?)\1\s*\)/gis;

/** Throws when the SVG refers to anything outside itself (a file, a URL, even data:). */
export function assertSelfContained(svg: string): void {
  const outside: string[] = [];
  for (const m of svg.matchAll(HREF)) if (!m[2]!.trim().startsWith('#')) outside.push(m[2]!);
  for (const m of svg.matchAll(URL_REF)) if (!m[2]!.trim().startsWith('#')) outside.push(m[2]!);
  if (/@import/i.test(svg)) outside.push('@import');
  if (/<\s*(?:[\w-]+:)?image\b/i.test(svg)) outside.push('<image>');
  if (/<!ENTITY/i.test(svg)) outside.push('<!ENTITY>');
  if (outside.length)
    throw invalid(
      `the chart refers to resources outside itself (${outside.slice(0, 3).join(', ')}); charts are drawn from their own data only`,
    );
}

/**
 * The SVG as a PNG `width` pixels wide (default 960; the height keeps the aspect ratio), on
 * white, text in the system's fonts. Throws for an SVG that is not self-contained. The
 * drawing (tens of milliseconds a chart) runs on libuv's thread pool, off the event loop.
 */
export async function svgToPng(svg: string, opts: { width?: number } = {}): Promise<Buffer> {
  const options = checked(svg, opts.width);
  return (await renderAsync(svg, options)).asPng();
}

/** The render options for a checked SVG: self-contained, valid, of a drawable size. */
function checked(svg: string, requested: number | undefined): ResvgRenderOptions {
  assertSelfContained(svg);
  const width = Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, requested ?? PNG_WIDTH)));
  const options: ResvgRenderOptions = {
    background: '#ffffff',
    fitTo: { mode: 'width', value: width },
    font: fonts(),
    logLevel: 'off',
  };
  let r: Resvg;
  try {
    r = new Resvg(svg, options);
  } catch (err) {
    throw invalid(`the chart is not a valid SVG: ${(err as Error).message}`);
  }
  // resvg fetches nothing itself; whatever it would need from outside is refused.
  if (r.imagesToResolve().length)
    throw invalid(
      'the chart refers to images outside itself; charts are drawn from their own data only',
    );
  if (!(r.width > 0) || !(r.height > 0)) throw invalid('the chart has no size');
  if ((r.height * width) / r.width > MAX_HEIGHT)
    throw invalid(`the chart is too tall to draw (over ${MAX_HEIGHT} px at ${width} px wide)`);
  return options;
}
