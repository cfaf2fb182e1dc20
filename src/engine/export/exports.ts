// PDF export: HTML printed by headless Chromium with the network blocked, then stamped with
// the title, the caller and the date. Everything is checked before Chromium is asked.
import type { Logger } from 'pino';
import type { ProjectActor } from '../access/actor.js';
import { invalid } from '../errors.js';
import { PdfRenderer, type RendererSettings } from './browser.js';
import { parsePdfOptions } from './pdf-options.js';
import { withPdfMeta } from './pdf-meta.js';

/** The largest HTML document an export prints (UTF-8 bytes). */
export const MAX_HTML_BYTES = 5 * 1024 * 1024;
export const MAX_TITLE_CHARS = 200;
export const DEFAULT_TITLE = 'Ursa export';

export class Exports {
  private readonly renderer: PdfRenderer;

  constructor(settings: RendererSettings, log?: Logger) {
    this.renderer = new PdfRenderer(settings, log);
  }

  /**
   * `html` printed to PDF as `a` asked: `options` are the export options (pdf-options.ts),
   * `meta.title` the document's title (blank: "Ursa export"). 400 for bad options, an empty
   * or too large document or a too long title; 400 when rendering outlasts the time limit,
   * 409 when no renderer came free within it (a user renders at most half of them at once,
   * browser.ts); 503 when Chromium is missing.
   */
  async pdf(
    a: ProjectActor,
    html: string,
    options: unknown,
    meta: { title: string },
  ): Promise<Buffer> {
    const opts = parsePdfOptions(options);
    const doc = checkHtml(html);
    const title = checkTitle(meta.title);
    const printed = await this.renderer.render(doc, opts, a.email);
    return withPdfMeta(printed, { title, author: a.email });
  }

  /**
   * A dashboard page for a subscription: its PDF (US Letter, as an export with no options) and
   * a PNG of it `widthPx` wide for the e-mail's body, from one load of the page.
   */
  async pdfAndImage(
    a: ProjectActor,
    html: string,
    meta: { title: string },
    png: { widthPx: number; maxHeightPx: number },
  ): Promise<{ pdf: Buffer; png: Buffer }> {
    const doc = checkHtml(html);
    const title = checkTitle(meta.title);
    const out = await this.renderer.renderBoth(doc, parsePdfOptions({}), a.email, png);
    return { pdf: await withPdfMeta(out.pdf, { title, author: a.email }), png: out.png };
  }

  /** Closes Chromium. */
  close(): Promise<void> {
    return this.renderer.close();
  }
}

function checkHtml(html: unknown): string {
  if (typeof html !== 'string')
    throw invalid('html must be a string: the HTML document to print', { field: 'html' });
  if (html.trim() === '') throw invalid('html is empty: nothing to print', { field: 'html' });
  const size = Buffer.byteLength(html);
  if (size > MAX_HTML_BYTES)
    throw invalid(
      `html is ${size} bytes; an export prints at most ${MAX_HTML_BYTES} bytes (5 MiB)`,
      { field: 'html', size, max: MAX_HTML_BYTES },
    );
  return html;
}

function checkTitle(title: unknown): string {
  if (title === undefined || title === null) return DEFAULT_TITLE;
  if (typeof title !== 'string') throw invalid('title must be a string', { field: 'title' });
  // Control characters have no business in a title or a file name.
  // eslint-disable-next-line no-control-regex
  const clean = title.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  if (clean.length > MAX_TITLE_CHARS)
    throw invalid(`title is ${clean.length} characters long; at most ${MAX_TITLE_CHARS}`, {
      field: 'title',
      max: MAX_TITLE_CHARS,
    });
  return clean || DEFAULT_TITLE;
}
