// A public share's page, `{site_url}/share/{token}` (SHARING.md "Shares"): the dashboard as the
// Admin who shared it sees it, without signing in. HTML (framable by the project's
// embedOrigins) or JSON/YAML (each item's columns and rows). Never cached, never indexed, and
// the token never leaves in a Referer.
import { SHARE_PATH } from '../engine/sharing/shares.js';
import { negotiate } from '../http/negotiate.js';
import type { Reply } from '../http/respond.js';
import type { Ctx } from '../http/router.js';
import { dashboardPage, foldDateFields } from '../web/report-pages.js';
import { dashboardJson, exactParam } from '../web/report-json.js';
import { sendPage } from '../web/page.js';
import { untilCallerGone } from '../http/caller-gone.js';

export const SHARE_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
};

export async function sharePage({ engine, req, res, params, query }: Ctx): Promise<Reply | void> {
  // Set first, so errors (404 for a stopped share) carry them too.
  for (const [k, v] of Object.entries(SHARE_HEADERS)) res.setHeader(k, v);
  const format = negotiate(
    { method: req.method, accept: req.headers.accept, formatParam: query.format },
    ['json', 'yaml', 'html'],
  );
  const exact = exactParam(query);
  const gone = untilCallerGone(res);
  const token = params.token!;
  const { run, frameAncestors } = await engine.shares.publicDashboard(
    token,
    foldDateFields(query),
    // The page's filters offer their values to pick from: it has no API to ask.
    { signal: gone, choices: format === 'html' },
  );
  if (format === 'html') {
    sendPage(
      res,
      200,
      dashboardPage(run, {
        formAction: `${SHARE_PATH}/${encodeURIComponent(token)}`,
        frameAncestors,
      }),
    );
    return;
  }
  return {
    title: run.name,
    body: dashboardJson(run, exact),
  };
}
