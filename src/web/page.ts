// The one page shell every HTML page of ours is built with (REST's browsable API, the sign-in
// and OAuth pages, the public site), and the headers it must be sent with. The page's
// Content-Security-Policy is derived from what the page declares it uses, so a page cannot
// be sent without one: inline CSS and scripts are allowed by their hash, nothing else runs.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { html, raw, type Html, type Interpolation } from '../shared/html.js';

export interface PageSpec {
  /** The full <title>. */
  title: string;
  description?: string;
  /** Same-origin stylesheets (`style-src 'self'`). */
  stylesheets?: string[];
  /** A same-origin SVG icon. */
  icon?: string;
  /** The page shows same-origin images (`img-src 'self'`). */
  images?: boolean;
  /** Inline CSS, allowed by its hash (after BASE_STYLE, which every page gets). */
  style?: string;
  /** Inline script (static text, no data), allowed by its hash; placed at the end of <body>. */
  script?: string;
  /** The script may fetch from this origin. */
  connect?: boolean;
  /**
   * Its forms may end somewhere else: OAuth pages post to us, and we redirect to the client's
   * redirect URI (any scheme), which `form-action` would block.
   */
  formsLeaveSite?: boolean;
  /**
   * Origins that may frame the page (a public share's `embedOrigins`; `*` any). Left out, no
   * page may frame it.
   */
  frameAncestors?: string[];
  /** More <head> markup (alternate links). */
  head?: Html;
  body: Html;
}

export interface Page {
  html: string;
  csp: string;
}

/**
 * What every page gets before its own style, so that none scrolls sideways on a phone (320 px
 * and up): widths include padding, long words (e-mail addresses, identifiers, file names)
 * break rather than widen the page, images and code stay within their box. Wide tables scroll
 * inside a box of their own page's making.
 */
export const BASE_STYLE =
  '*,*::before,*::after{box-sizing:border-box}body{overflow-wrap:anywhere}' +
  'img{max-width:100%;height:auto}pre{overflow-x:auto}';

const sha256 = (text: string): string =>
  `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export function renderPage(pageSpec: PageSpec): Page {
  const spec = {
    ...pageSpec,
    style: `${BASE_STYLE}${pageSpec.style ? `\n${pageSpec.style}` : ''}`,
  };
  const head: Interpolation[] = [
    html`<meta charset="utf-8">`,
    html`<meta name="viewport" content="width=device-width, initial-scale=1">`,
    html`<title>${spec.title}</title>`,
    spec.description !== undefined && html`<meta name="description" content="${spec.description}">`,
    (spec.stylesheets ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`),
    spec.icon && html`<link rel="icon" href="${spec.icon}" type="image/svg+xml">`,
    spec.head,
    html`<style>${raw(spec.style)}</style>`,
  ];
  const script = spec.script !== undefined && html`<script>${raw(spec.script)}</script>`;
  const doc = html`<!doctype html>
<html lang="en">
<head>
${lines(head)}</head>
<body>
${spec.body}
${script}
</body>
</html>
`;
  return { html: doc.toString(), csp: contentSecurityPolicy(spec) };
}

const lines = (items: Interpolation[]): Html =>
  html`${items
    .flat()
    .filter((i) => i !== undefined && i !== null && i !== false && i !== '')
    .map((i) => html`${i}\n`)}`;

function contentSecurityPolicy(spec: PageSpec): string {
  const styles = [
    ...(spec.stylesheets?.length ? ["'self'"] : []),
    ...(spec.style !== undefined ? [sha256(spec.style)] : []),
  ];
  const directives = [
    "default-src 'none'",
    styles.length && `style-src ${styles.join(' ')}`,
    (spec.images || spec.icon) && "img-src 'self'",
    spec.script !== undefined && `script-src ${sha256(spec.script)}`,
    spec.connect && "connect-src 'self'",
    "base-uri 'none'",
    !spec.formsLeaveSite && "form-action 'self'",
    `frame-ancestors ${spec.frameAncestors?.length ? spec.frameAncestors.join(' ') : "'none'"}`,
  ];
  return directives.filter(Boolean).join('; ');
}

/** The headers every HTML page of ours is sent with. */
export function pageHeaders(page: Page): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': page.csp,
    'X-Content-Type-Options': 'nosniff',
  };
}

export function sendPage(
  res: ServerResponse,
  status: number,
  page: Page,
  headers: Record<string, string> = {},
): void {
  for (const [k, v] of Object.entries({ ...pageHeaders(page), ...headers })) res.setHeader(k, v);
  res.setHeader('Content-Length', Buffer.byteLength(page.html));
  res.statusCode = status;
  res.end(page.html);
}
