// PDF export (SHARING.md "Export to PDF"): given HTML, or a dashboard, report or share of this
// site rendered as the caller, printed by the engine's headless Chromium with the network
// blocked. The answer is the PDF file itself, written here (replies only carry text formats).
import type { Request, Response } from 'express';
import { invalid } from '../../engine/errors.js';
import { DEFAULT_TITLE } from '../../engine/export/exports.js';
import { parsePdfOptions } from '../../engine/export/pdf-options.js';
import { exportableSiteUrl, projectOfUrl } from '../../engine/export/site-url.js';
import { sitePageHtml } from '../../web/report-pages.js';
import { sendMadeFile } from '../../http/file-response.js';
import { negotiate } from '../../http/negotiate.js';
import type { RouteDef } from '../../http/router.js';

/** PDF is the only representation: Accept must allow it (absent, `*\/*`, `application/pdf`). */
function requirePdf(req: Request): void {
  negotiate({ method: req.method, accept: req.headers.accept, formatParam: req.query.format }, [
    'pdf',
  ]);
}

/** The body as an object of fields (none sent: no fields). */
function fields(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalid('the body must be an object of fields', { field: '(body)' });
  return body as Record<string, unknown>;
}

const sendPdf = (res: Response, pdf: Buffer, title: string) =>
  sendMadeFile(res, pdf, 'application/pdf', title, 'pdf');

const OPTIONS_TEXT =
  'options `landscape`, `pageType` (A3, A4, A5, Letter, Legal, Tabloid), `width`, `height`, `margin`, `scale` (0.1–2), `printBackground`';

export const exportRoutes: RouteDef[] = [
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/export/html',
    ops: {
      POST: {
        access: 'member',
        description: `\`{ html, title?, ...options }\` → the HTML printed to PDF (JavaScript off, no network; ${OPTIONS_TEXT}).`,
        handler: async ({ engine, actor, body, req, res }) => {
          requirePdf(req);
          const { html, title, ...options } = fields(body);
          const pdf = await engine.exports.pdf(actor, html as string, options, {
            title: title as string,
          });
          sendPdf(res, pdf, typeof title === 'string' && title.trim() ? title : DEFAULT_TITLE);
        },
      },
    },
  },
  {
    group: 'Sharing and export',
    path: '/projects/:project/app/export/url',
    ops: {
      POST: {
        access: 'member',
        description: `\`{ url, title?, ...options }\` → a dashboard, report or share of this site, as the caller sees it, printed to PDF (${OPTIONS_TEXT}).`,
        handler: async ({ engine, actor, body, req, res }) => {
          requirePdf(req);
          const { url, title, ...options } = fields(body);
          // Everything about the request is checked before any query runs for the page.
          const target = exportableSiteUrl(url, engine.config.siteUrl);
          const project = projectOfUrl(target);
          if (project !== null && project !== actor.projectId)
            throw invalid(
              `url is a page of project ${project}; export it with /projects/${project}/app/export/url`,
              { field: 'url', project },
            );
          parsePdfOptions(options);
          const page = await sitePageHtml(engine, actor, target);
          if (!page)
            throw invalid('only dashboards, reports and shares of this site can be exported', {
              field: 'url',
            });
          const name = typeof title === 'string' && title.trim() ? title : page.title;
          const pdf = await engine.exports.pdf(actor, page.html, options, { title: name });
          sendPdf(res, pdf, name);
        },
      },
    },
  },
];
