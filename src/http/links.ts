// Hypermedia links. hrefs are root-relative URLs under /api/v1 (src/contract/urls.ts), so
// they work behind any host.
import type { Link } from '../contract/links.js';
import { apiHref, projectPath } from '../contract/urls.js';

export type { Link };
export { projectPath };
export const href = apiHref;
export const enc = encodeURIComponent;

export function link(rel: string, path: string, extra: { id?: string; title?: string } = {}): Link {
  return { href: href(path), ...extra, rel };
}

/** Each area adds the links a project's details point to. */
const projectLinkMakers: Array<(projectId: string) => Link[]> = [];

export function addProjectLinks(make: (projectId: string) => Link[]): void {
  projectLinkMakers.push(make);
}

export function projectLinks(projectId: string): Link[] {
  return projectLinkMakers.flatMap((m) => m(projectId));
}

/** Paging block for list resources, with the next page when there is one. */
export function paging(path: string, p: { limit: number; offset: number }, total: number) {
  const next =
    p.offset + p.limit < total
      ? href(`${path}?limit=${p.limit}&offset=${p.offset + p.limit}`)
      : undefined;
  return { total, limit: p.limit, offset: p.offset, ...(next ? { next } : {}) };
}
