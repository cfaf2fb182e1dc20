// The blog: an index of 24 posts per page (`?page=N`, 1-based) and one page per post at
// /blog/<slug>. A page that is not a whole number ≥ 1 is a 400; one past the last is a 404.
import { invalid, notFound } from '../engine/errors.js';
import { html, raw, type Html } from '../shared/html.js';
import type { Page } from '../web/page.js';
import { sitePage } from './layout.js';
import type { Post } from './posts.js';

/** Spec, Limits: blog posts per page. */
export const POSTS_PER_PAGE = 24;

export const pageCount = (posts: number): number => Math.max(1, Math.ceil(posts / POSTS_PER_PAGE));

export const blogPageHref = (page: number): string => (page === 1 ? '/blog' : `/blog?page=${page}`);
export const postHref = (p: Post): string => `/blog/${p.slug}`;

/** The page asked for by `?page=`; absent means 1. Throws the 400 or 404 the request earns. */
export function pageOf(raw: unknown, pages: number): number {
  if (raw === undefined) return 1;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < 1) {
    throw invalid(`page must be a whole number of at least 1, not ${text}`, {
      field: 'page',
      value: raw,
    });
  }
  const page = Number(raw);
  if (page > pages) {
    throw notFound(`blog page ${raw} does not exist: the blog has ${pages} page(s)`, {
      page,
      pages,
    });
  }
  return page;
}

export function findPost(posts: readonly Post[], slug: string): number {
  const i = posts.findIndex((p) => p.slug === slug);
  if (i < 0) throw notFound(`no blog post "${slug}"`, { slug });
  return i;
}

const longDate = (d: string): string =>
  new Date(`${d}T00:00:00Z`).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  });

const byline = (p: Post): Html =>
  html`<p class="meta"><time datetime="${p.date}">${longDate(p.date)}</time> · ${p.author}</p>`;

function pager(page: number, pages: number): Html | undefined {
  if (pages === 1) return undefined;
  const items: Html[] = [];
  if (page > 1)
    items.push(html`<li><a href="${blogPageHref(page - 1)}" rel="prev">← Newer posts</a></li>`);
  for (let n = 1; n <= pages; n++) {
    const current = n === page && html` aria-current="page"`;
    items.push(
      html`<li><a href="${blogPageHref(n)}"${current} aria-label="Page ${n}">${n}</a></li>`,
    );
  }
  if (page < pages)
    items.push(html`<li><a href="${blogPageHref(page + 1)}" rel="next">Older posts →</a></li>`);
  return html`<nav class="pager" aria-label="Blog pages"><ul>${items}</ul></nav>`;
}

export function blogIndexPage(posts: readonly Post[], page: number): Page {
  const pages = pageCount(posts.length);
  const shown = posts.slice((page - 1) * POSTS_PER_PAGE, page * POSTS_PER_PAGE);
  const items = shown.map(
    (p) => html`<li class="post-item"><h2><a href="${postHref(p)}">${p.title}</a></h2>
${byline(p)}<p>${p.summary}</p></li>\n`,
  );
  const list = items.length ? html`<ul class="posts">${items}</ul>` : html`<p>No posts yet.</p>`;
  const body = html`<h1>Blog</h1>
<p class="lead">How to get correct answers out of your data with Ursa: AQL, modelling, security,
loading data and connecting AI assistants.${pages > 1 && ` Page ${page} of ${pages}.`}</p>
${list}
${pager(page, pages)}`;
  return sitePage({
    title: page === 1 ? 'Blog' : `Blog, page ${page}`,
    description: 'Articles about Ursa: AQL, data modelling, row-level security, MCP and more.',
    section: '/blog',
    body,
  });
}

export function postPage(posts: readonly Post[], index: number): Page {
  const p = posts[index]!;
  const newer = posts[index - 1];
  const older = posts[index + 1];
  const links = [
    newer && html`<li><a href="${postHref(newer)}" rel="prev">← ${newer.title}</a></li>`,
    html`<li><a href="${blogPageHref(Math.floor(index / POSTS_PER_PAGE) + 1)}">All posts</a></li>`,
    older && html`<li><a href="${postHref(older)}" rel="next">${older.title} →</a></li>`,
  ];
  // The post's HTML comes from the sanitizing Markdown renderer (markdown.ts).
  const body = html`<article class="post" aria-labelledby="post-title">
<h1 id="post-title">${p.title}</h1>
${byline(p)}
${raw(p.html)}
</article>
<nav class="post-nav" aria-label="More posts"><ul>${links}</ul></nav>`;
  return sitePage({ title: p.title, description: p.summary, section: '/blog', body });
}
