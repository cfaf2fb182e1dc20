// The page shell every site page shares: head with the stylesheet, skip link, header with
// the main navigation, the page's <main>, and a footer that links to every page again.
import { API_PREFIX } from '../engine/config.js';
import { html, type Html } from '../shared/html.js';
import { renderPage, type Page } from '../web/page.js';
import { LOGO_PATH, STYLESHEET_PATH } from './assets.js';

/** The public surface's own version (spec, Versioning), separate from the API's v1. */
export const SITE_VERSION = '1.0.0';

export interface NavLink {
  href: string;
  label: string;
}

/** Shared navigation: every page links to all of these. */
export const NAV: readonly NavLink[] = [
  { href: '/', label: 'Home' },
  { href: '/pricing', label: 'Pricing' },
  { href: '/blog', label: 'Blog' },
  { href: API_PREFIX, label: 'API' },
  { href: '/llms.txt', label: 'llms.txt' },
  { href: '/.well-known/mcp.json', label: 'MCP server card' },
  { href: '/auth/login?next=/app', label: 'Sign in' },
];

export interface PageOptions {
  /** Shown in the tab; the site name is appended unless it is the homepage. */
  title: string;
  description: string;
  /** The nav entry this page belongs to (marked aria-current). */
  section: string;
  /** Everything inside <main>, including its single <h1>. */
  body: Html;
}

export function sitePage(opts: PageOptions): Page {
  return renderPage({
    title: opts.section === '/' ? opts.title : `${opts.title} · Ursa`,
    description: opts.description,
    stylesheets: [STYLESHEET_PATH],
    icon: LOGO_PATH,
    images: true,
    head: html`<link rel="alternate" type="text/plain" href="/llms.txt" title="llms.txt">`,
    body: html`<a class="skip" href="#content">Skip to content</a>
${header(opts.section)}
<main id="content" class="wrap" tabindex="-1">
${opts.body}
</main>
${footer()}`,
  });
}

function navList(section: string, withSignInButton: boolean): Html {
  const items = NAV.map((l) => {
    const current = l.href === section && html` aria-current="page"`;
    const cls = withSignInButton && l.href.startsWith('/auth/login') && html` class="signin"`;
    return html`<li><a href="${l.href}"${current}${cls}>${l.label}</a></li>`;
  });
  return html`<ul>${items}</ul>`;
}

// The logo's alt is empty: it is decoration next to the word "Ursa", which names the link.
function header(section: string): Html {
  return html`<header class="site-header"><div class="wrap">
<a class="brand" href="/"><img src="${LOGO_PATH}" alt="" width="32" height="32"> Ursa</a>
<nav class="site-nav" aria-label="Main">${navList(section, true)}</nav>
</div></header>`;
}

function footer(): Html {
  return html`<footer class="site-footer"><div class="wrap">
<nav aria-label="Footer">${navList('', false)}</nav>
<p>Ursa · public site ${SITE_VERSION} · REST API ${API_PREFIX.slice(API_PREFIX.lastIndexOf('/') + 1)}</p>
</div></footer>`;
}
