// find_dashboards, the chat tool behind "show me the ops dashboard": the dashboards and reports
// the asking member may open (Reports.list: their roles, or a share), matched by the words of
// a query against title, description and identifier, each with the URL that renders it. The
// model links to these URLs (the system prompt forbids making one up), and the answer keeps
// the links it used (`AiAnswer.links`).
import type { ProjectActor } from '../access/actor.js';
import { apiHref, dashboardPath, reportPath } from '../../contract/urls.js';
import type { Reports } from '../reports/reports.js';
import type { AiLink } from './types.js';

export const LINK_KINDS = ['dashboard', 'report'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface FoundLink extends AiLink {
  description: string;
}

/** A description in a tool answer: enough to tell items apart. */
const DESCRIPTION_CHARS = 200;
/** Words of a request that name the kind rather than the item ("the ops dashboard"). */
const KIND_WORDS = new Set(['dashboard', 'dashboards', 'report', 'reports']);

/** Where a dashboard or report renders for a signed-in member (SHARING.md "Rendering"). */
export function renderUrl(siteUrl: string, projectId: string, kind: LinkKind, ident: string) {
  const path = kind === 'dashboard' ? dashboardPath : reportPath;
  return `${siteUrl}${apiHref(path(projectId, ident))}`;
}

/**
 * Dashboards, then reports, the actor may open, best matches first: every word of `query`
 * (case-insensitive; "dashboard" and "report" left aside) found in the title, description or
 * identifier. When nothing has every word, those with some of them (`partial`). No query: all.
 */
export async function findDashboards(
  reports: Reports,
  siteUrl: string,
  actor: ProjectActor,
  q: { query?: string; kind?: LinkKind },
): Promise<{ items: FoundLink[]; partial: boolean }> {
  const text = (q.query ?? '').trim().toLowerCase();
  const words = text.split(/\s+/).filter((w) => w && !KIND_WORDS.has(w));
  const all: FoundLink[] = [];
  for (const kind of q.kind ? [q.kind] : LINK_KINDS)
    all.push(
      ...(await reports.list(actor, kind))
        .map((r) => ({
          kind,
          ident: r.ident,
          name: r.name,
          description: r.description,
          url: renderUrl(siteUrl, actor.projectId, kind, r.ident),
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    );
  if (!words.length) return { items: all, partial: false };
  const hits = (i: FoundLink) => {
    const fields = [i.name, i.description, i.ident].map((f) => f.toLowerCase());
    return words.filter((w) => fields.some((f) => f.includes(w))).length;
  };
  // Best first: the title is the query, then contains it, then the rest (stable: kind, title).
  const rank = (i: FoundLink) => {
    const name = i.name.toLowerCase();
    return name === text ? 0 : name.includes(text) ? 1 : 2;
  };
  const every = all.filter((i) => hits(i) === words.length);
  if (every.length) return { items: every.sort((a, b) => rank(a) - rank(b)), partial: false };
  const some = all.filter((i) => hits(i) > 0).sort((a, b) => hits(b) - hits(a));
  return { items: some, partial: some.length > 0 };
}

/** What a tool answer says of an item. */
export const shown = (i: FoundLink) => ({
  kind: i.kind,
  ident: i.ident,
  name: i.name,
  description:
    i.description.length > DESCRIPTION_CHARS
      ? `${i.description.slice(0, DESCRIPTION_CHARS)}…`
      : i.description,
  url: i.url,
});

/**
 * The found links the answer uses, in the order found (a URL no tool gave is not one). A URL
 * counts where it ends (`…/dashboard.ops` is not a use of it inside `…/dashboard.ops_2`).
 */
export function linksIn(answer: string, found: readonly AiLink[]): AiLink[] {
  const uses = (url: string) => {
    for (let at = answer.indexOf(url); at >= 0; at = answer.indexOf(url, at + 1))
      if (!/^(?:[\w~%/-]|\.[\w~%/-])/.test(answer.slice(at + url.length))) return true;
    return false;
  };
  return found.filter((l) => uses(l.url));
}
