// Human-browsable HTML views of the REST API: resource pages and the interactive API index.
// Pages are self-contained (inline CSS/JS, no external resources) and built with the html
// tag of src/web, which escapes every value: resource content is user-controlled.
import { html, type Html } from '../../shared/html.js';
import { renderPage, type Page } from '../../web/page.js';

export interface ResourcePageOptions {
  title: string;
  data: unknown;
  /** Request path, with or without the apiBase prefix; a query string is kept for format links. */
  path: string;
  apiBase: string;
  formats: string[];
  user?: string | null;
  status?: number;
}

export interface ApiRoute {
  methods: string[];
  path: string;
  description: string;
  level: string;
}

export interface ApiRouteGroup {
  name: string;
  description?: string;
  routes: ApiRoute[];
}

export interface ApiIndexOptions {
  apiBase: string;
  user?: string | null;
  groups: ApiRouteGroup[];
}

interface LinkItem {
  href: string;
  rel?: unknown;
  id?: unknown;
  title?: unknown;
}

// Deeper structures are summarised: keeps output bounded and recursion safe.
const MAX_DEPTH = 24;
const CONSOLE_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

// ---------------------------------------------------------------------------------------------
// Page shell

const STYLE = `
:root{color-scheme:light dark;--fg:#1d2330;--bg:#fff;--muted:#5f6b7a;--line:#d8dee6;--soft:#f3f5f8;
--accent:#1f5fbf;--err:#b3261e;--errbg:#fdecea}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ee;--bg:#14171c;--muted:#9aa5b4;--line:#2e343d;
--soft:#1c2027;--accent:#7aa7ff;--err:#ff8a80;--errbg:#3a1d1b}}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);
background:var(--bg)}
a{color:var(--accent)}
code,pre,textarea,input,select{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}
header.site{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;
padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--soft)}
.brand{font-weight:700;font-size:1.25rem;text-decoration:none}
.account{display:flex;gap:.75rem;align-items:center;flex-wrap:wrap}
.account form{margin:0}
.wrap{max-width:90rem;margin:0 auto;padding:0 1rem 2rem}
nav ol,nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem .5rem}
.crumbs{margin:.75rem 0 0}.crumbs li+li::before{content:"/";margin-right:.5rem;color:var(--muted)}
.formats{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0;color:var(--muted);font-size:.9rem}
h1{font-size:1.5rem;margin:1rem 0;overflow-wrap:anywhere}
dl{margin:0;display:grid;gap:.25rem}
dl>div{display:grid;grid-template-columns:minmax(8rem,14rem) 1fr;gap:.5rem;padding:.25rem 0;
border-bottom:1px solid var(--line)}
dt{font-weight:600;color:var(--muted);overflow-wrap:anywhere}
dd{margin:0;min-width:0}
dd,td{white-space:pre-wrap;overflow-wrap:break-word}
.brk{overflow-wrap:anywhere}
th{white-space:nowrap}
td{min-width:5rem}td.wide{min-width:18rem}
td dl>div{grid-template-columns:1fr;gap:0}
dl>div:has(>dd>.scroll){grid-template-columns:1fr;gap:.25rem}
@media (max-width:40rem){dl>div{grid-template-columns:1fr;gap:0}}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.95rem}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--soft)}
ol.items{margin:0;padding-left:1.5rem}
ul.links{list-style:none;margin:0;padding:0}
.rel,.badge,.level{display:inline-block;font-size:.75rem;font-weight:600;padding:0 .4rem;
border-radius:.25rem;background:var(--soft);border:1px solid var(--line);margin-right:.35rem}
.null,.muted{color:var(--muted)}
.error{border:2px solid var(--err);background:var(--errbg);border-radius:.5rem;padding:1rem;margin:1rem 0}
.error h1{color:var(--err);margin-top:0}
.error-message{font-size:1.15rem;font-weight:600}
.group{margin:1.5rem 0}
.routes{list-style:none;padding:0;margin:0}
.route{border-bottom:1px solid var(--line);padding:.5rem 0}
.route p{margin:.25rem 0 0;color:var(--muted)}
.route-head{display:flex;flex-wrap:wrap;gap:.35rem;align-items:center}
.route-head code,.route-head a{overflow-wrap:anywhere}
.m-get{color:#1a7f37}.m-post{color:#9a6700}.m-put,.m-patch{color:#1f5fbf}.m-delete{color:#b3261e}
.console{border:1px solid var(--line);border-radius:.5rem;padding:1rem;background:var(--soft)}
.console form{display:grid;gap:.5rem}
.console .row{display:grid;grid-template-columns:auto 1fr;gap:.5rem}
.console input,.console select,.console textarea{width:100%;font-size:1rem;padding:.4rem;
color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:.25rem}
button{font:inherit;padding:.3rem .8rem;cursor:pointer}
pre{background:var(--bg);border:1px solid var(--line);padding:.75rem;overflow:auto;max-height:60vh;
white-space:pre-wrap;overflow-wrap:anywhere}
pre:empty{display:none}
`;

function apiPage(opts: {
  title: string;
  user?: string | null;
  apiBase: string;
  body: Html;
  script?: string;
}): Page {
  return renderPage({
    title: `${opts.title} · Ursa`,
    style: STYLE,
    script: opts.script,
    connect: opts.script !== undefined,
    body: html`<a class="skip" href="#content">Skip to content</a>
${siteHeader(opts.apiBase, opts.user)}
<div class="wrap">${opts.body}</div>`,
  });
}

function siteHeader(apiBase: string, user: string | null | undefined): Html {
  const account = user
    ? html`<span class="user">${user}</span><form method="post" action="/auth/logout"><button type="submit">Log out</button></form>`
    : html`<a href="/auth/login">Log in</a>`;
  return html`<header class="site"><a class="brand" href="${apiBase || '/'}">Ursa</a><nav class="account" aria-label="Account">${account}</nav></header>`;
}

// ---------------------------------------------------------------------------------------------
// Resource pages

export function renderResourcePage(opts: ResourcePageOptions): Page {
  const apiBase = normalizeBase(opts.apiBase);
  const isError = opts.status !== undefined && opts.status >= 400;
  const content = isError
    ? renderError(opts.data, opts.status ?? 500, apiBase)
    : html`<h1>${opts.title}</h1>${renderValue(opts.data, apiBase, 0)}`;
  const body = html`${breadcrumbs(opts.path, apiBase)}${formatBar(opts.path, opts.formats)}<main id="content">${content}</main>`;
  return apiPage({ title: opts.title, user: opts.user, apiBase, body });
}

function breadcrumbs(path: string, apiBase: string): Html {
  const segments = relativeSegments(stripQuery(path), basePath(apiBase));
  let href = apiBase;
  const items = segments.map((segment, i) => {
    href += `/${encodeURIComponent(segment)}`;
    const current = i === segments.length - 1 && html` aria-current="page"`;
    return html`<li><a href="${href}"${current}>${segment}</a></li>`;
  });
  return html`<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="${apiBase || '/'}">API</a></li>${items}</ol></nav>`;
}

// Segments relative to the API base, decoded so that re-encoding never double-encodes.
function relativeSegments(pathname: string, base: string): string[] {
  const rest =
    base && (pathname === base || pathname.startsWith(`${base}/`))
      ? pathname.slice(base.length)
      : pathname;
  return rest.split('/').filter(Boolean).map(decodeSegment);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // malformed escapes: show as-is, encodeURIComponent will make it safe
  }
}

function formatBar(path: string, formats: string[]): Html {
  const offered = new Set(formats.map((f) => f.toLowerCase()));
  const wanted = ['json', 'yaml', ...['csv', 'tsv'].filter((f) => offered.has(f))];
  const query = queryOf(path);
  const links = wanted.map((format) => {
    // Keep other query parameters (paging, filters) so the alternative shows the same data.
    const params = new URLSearchParams(query);
    params.set('format', format);
    return html`<li><a href="?${params.toString()}">${format.toUpperCase()}</a></li>`;
  });
  return html`<nav class="formats" aria-label="Other formats"><span>Also as:</span><ul>${links}</ul></nav>`;
}

function renderError(data: unknown, status: number, apiBase: string): Html {
  const err = isRecord(data) ? data : {};
  const code = err.statusCode ?? status;
  const message = err.message ?? (typeof data === 'string' ? data : 'The request failed.');
  const errorId =
    err.errorId !== undefined &&
    err.errorId !== null &&
    html`<p>Error ID: <code class="error-id">${plainText(err.errorId)}</code> <span class="muted">(quote it when reporting the problem)</span></p>`;
  const context =
    !isEmpty(err.context) && html`<h2>Context</h2>${renderValue(err.context, apiBase, 1)}`;
  const rest = Object.entries(err).filter(
    ([k]) => !['statusCode', 'message', 'context', 'errorId'].includes(k),
  );
  const more = rest.length > 0 && renderObject(Object.fromEntries(rest), apiBase, 1);
  return html`<section class="error" role="alert" aria-labelledby="error-title"><h1 id="error-title">Error ${plainText(code)}</h1><p class="error-message">${plainText(message)}</p>${errorId}${context}</section>${more}`;
}

// ---------------------------------------------------------------------------------------------
// Recursive data rendering

function renderValue(value: unknown, apiBase: string, depth: number): Html {
  if (depth > MAX_DEPTH) return html`<span class="muted">…</span>`;
  if (isLinkArray(value)) return renderLinks(value);
  if (Array.isArray(value)) return renderArray(value, apiBase, depth);
  if (isRecord(value)) return renderObject(value, apiBase, depth);
  return renderScalar(value, apiBase);
}

function renderScalar(value: unknown, apiBase: string): Html {
  if (value === null || value === undefined) return html`<span class="null">null</span>`;
  if (typeof value === 'string') return renderString(value, apiBase);
  return html`${plainText(value)}`;
}

// Strings pointing into the API become navigable, which is what makes the pages browsable.
function renderString(s: string, apiBase: string): Html {
  const isApiLink = apiBase !== '' && (s === apiBase || s.startsWith(`${apiBase}/`));
  return isApiLink ? html`<a href="${s}">${breakable(s)}</a>` : breakable(s);
}

// Long unbroken runs (URLs, idents, AQL without spaces) may break anywhere; shorter words
// never do, so a squeezed table column stays as wide as its longest ordinary word.
function breakable(s: string): Html {
  return /\S{30}/.test(s) ? html`<span class="brk">${s}</span>` : html`${s}`;
}

function renderObject(obj: Record<string, unknown>, apiBase: string, depth: number): Html {
  const entries = Object.entries(obj);
  if (entries.length === 0) return html`<span class="muted">(empty)</span>`;
  const rows = entries.map(
    ([key, v]) => html`<div><dt>${key}</dt><dd>${renderValue(v, apiBase, depth + 1)}</dd></div>`,
  );
  return html`<dl>${rows}</dl>`;
}

function renderArray(items: unknown[], apiBase: string, depth: number): Html {
  if (items.length === 0) return html`<span class="muted">(empty list)</span>`;
  if (items.every(isRecord)) return renderTable(items, apiBase, depth);
  const lis = items.map((item) => html`<li>${renderValue(item, apiBase, depth + 1)}</li>`);
  return html`<ol class="items">${lis}</ol>`;
}

function renderTable(items: Record<string, unknown>[], apiBase: string, depth: number): Html {
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  const head = columns.map((c) => html`<th scope="col">${c}</th>`);
  const rows = items.map((item) => {
    const cells = columns.map((c) =>
      Object.hasOwn(item, c)
        ? html`<td${isWide(item[c]) && html` class="wide"`}>${renderValue(item[c], apiBase, depth + 1)}</td>`
        : html`<td></td>`,
    );
    return html`<tr>${cells}</tr>`;
  });
  return html`<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
}

// Cells holding prose, code or nested objects get room to wrap in lines instead of slivers;
// a table wider than the page then scrolls inside its box.
function isWide(value: unknown): boolean {
  return (typeof value === 'string' && value.length > 40) || isRecord(value);
}

function renderLinks(links: LinkItem[]): Html {
  const items = links.map((link) => {
    const rel = link.rel !== undefined && html`<span class="rel">${plainText(link.rel)}</span>`;
    const label = breakable(plainText(link.title ?? link.id ?? link.href));
    const href = safeHref(link.href);
    // Unsafe schemes (javascript:, data:) are shown as text instead of becoming clickable.
    const target = href === null ? html`${label}` : html`<a href="${href}">${label}</a>`;
    return html`<li>${rel}${target}</li>`;
  });
  return html`<ul class="links">${items}</ul>`;
}

// A link array is an array of objects with a string href and a rel (hypermedia `link` fields).
function isLinkArray(value: unknown): value is LinkItem[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => isRecord(v) && typeof v.href === 'string' && typeof v.rel === 'string')
  );
}

// ---------------------------------------------------------------------------------------------
// API index

export function renderApiIndex(opts: ApiIndexOptions): Page {
  const apiBase = normalizeBase(opts.apiBase);
  const toc = opts.groups.map((g, i) => html`<li><a href="#group-${i}">${g.name}</a></li>`);
  const groups = opts.groups.map((g, i) => renderGroup(g, i, apiBase));
  const body = html`<nav class="crumbs" aria-label="Sections"><ul>${toc}</ul></nav><main id="content"><h1>Ursa API</h1><p>Links open resources as HTML; <em>Try</em> loads a route into the console below.</p>${tryConsole(apiBase)}${groups}</main>`;
  return apiPage({ title: 'API', user: opts.user, apiBase, body, script: CONSOLE_SCRIPT });
}

function renderGroup(group: ApiRouteGroup, index: number, apiBase: string): Html {
  const routes = group.routes.map((r) => renderRoute(r, apiBase));
  const description = group.description && html`<p>${group.description}</p>`;
  return html`<section class="group" id="group-${index}" aria-labelledby="group-${index}-title"><h2 id="group-${index}-title">${group.name}</h2>${description}<ul class="routes">${routes}</ul></section>`;
}

function renderRoute(route: ApiRoute, apiBase: string): Html {
  const full = apiBase + route.path;
  const methods = route.methods.map((m) => m.toUpperCase());
  const badges = methods.map(
    (m) => html`<span class="badge m-${m.toLowerCase().replace(/[^a-z]/g, '')}">${m}</span>`,
  );
  const path = isBrowsable(route)
    ? html`<a href="${full}"><code>${full}</code></a>`
    : html`<code>${full}</code>`;
  const tryMethod = methods.find((m) => CONSOLE_METHODS.includes(m)) ?? 'GET';
  const tryButton = html`<button type="button" class="try" data-try-method="${tryMethod}" data-try-path="${full}" aria-label="Try ${tryMethod} ${full}">Try</button>`;
  return html`<li class="route"><div class="route-head">${badges}${path}<span class="level" title="Required access level">${route.level}</span>${tryButton}</div><p>${route.description}</p></li>`;
}

// Only concrete GET routes can be followed: placeholders ({id}, :id) would 404.
function isBrowsable(route: ApiRoute): boolean {
  const hasGet = route.methods.some((m) => m.toUpperCase() === 'GET');
  return hasGet && !/\{[^}]*\}|\/:/.test(route.path);
}

function tryConsole(apiBase: string): Html {
  const options = CONSOLE_METHODS.map((m) => html`<option>${m}</option>`);
  return html`<section class="console" id="try" aria-labelledby="try-title">
<h2 id="try-title">Try it</h2>
<form id="try-form">
<div class="row"><label for="try-method">Method</label><select id="try-method">${options}</select></div>
<label for="try-path">Path</label>
<input id="try-path" type="text" value="${apiBase}/projects" required autocomplete="off" spellcheck="false">
<label for="try-token">Bearer token <span class="muted">(optional; otherwise your session is used)</span></label>
<input id="try-token" type="password" autocomplete="off" spellcheck="false">
<label for="try-body">JSON body <span class="muted">(optional)</span></label>
<textarea id="try-body" rows="5" spellcheck="false"></textarea>
<div><button type="submit" id="try-send">Send</button></div>
</form>
<p id="try-status" role="status" aria-live="polite"></p>
<pre id="try-output"></pre>
</section>`;
}

// Static script (no interpolated data), so a CSP hash can allow it. Output goes through
// textContent only: responses may contain markup that must never be interpreted.
const CONSOLE_SCRIPT = `
(() => {
  const $ = (id) => document.getElementById(id);
  const form = $('try-form');
  const method = $('try-method');
  const path = $('try-path');
  const token = $('try-token');
  const body = $('try-body');
  const send = $('try-send');
  const show = (status, output) => {
    $('try-status').textContent = status;
    $('try-output').textContent = output;
  };
  const pretty = (raw) => {
    try {
      return JSON.stringify(JSON.parse(raw), null, 2);
    } catch {
      return raw;
    }
  };
  document.addEventListener('click', (event) => {
    const el = event.target instanceof Element ? event.target.closest('[data-try-path]') : null;
    if (!el) return;
    method.value = el.getAttribute('data-try-method') || 'GET';
    path.value = el.getAttribute('data-try-path') || '';
    path.focus();
    const start = path.value.indexOf('{');
    const end = path.value.indexOf('}', start);
    if (start >= 0 && end > start) path.setSelectionRange(start, end + 1);
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const headers = { Accept: 'application/json' };
    const init = { method: method.value, headers, credentials: 'same-origin' };
    const text = body.value.trim();
    if (text) {
      try {
        JSON.parse(text);
      } catch (err) {
        show('Invalid JSON body', String(err && err.message ? err.message : err));
        return;
      }
      if (init.method === 'GET') {
        show('A GET request cannot have a body', '');
        return;
      }
      headers['Content-Type'] = 'application/json';
      init.body = text;
    }
    if (token.value.trim()) headers.Authorization = 'Bearer ' + token.value.trim();
    show('Sending...', '');
    send.disabled = true;
    try {
      const res = await fetch(path.value, init);
      show(res.status + ' ' + res.statusText, pretty(await res.text()));
    } catch (err) {
      show('Request failed', String(err && err.message ? err.message : err));
    } finally {
      send.disabled = false;
    }
  });
})();
`;

// ---------------------------------------------------------------------------------------------
// Helpers

function normalizeBase(apiBase: string): string {
  return apiBase.replace(/\/+$/, '');
}

// apiBase may be absolute (https://host/api/v1); request paths only carry its pathname.
function basePath(apiBase: string): string {
  try {
    return normalizeBase(new URL(apiBase, 'http://localhost').pathname);
  } catch {
    return apiBase;
  }
}

function stripQuery(path: string): string {
  return path.split(/[?#]/, 1)[0] ?? '';
}

function queryOf(path: string): string {
  const q = path.indexOf('?');
  return q < 0 ? '' : (path.slice(q + 1).split('#', 1)[0] ?? '');
}

// Only http(s) and relative URLs may become anchors; the URL parser mirrors browser rules
// (e.g. it strips the tabs in "java\tscript:").
function safeHref(href: string): string | null {
  try {
    const { protocol } = new URL(href, 'http://localhost/');
    return protocol === 'http:' || protocol === 'https:' ? href : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  );
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

function plainText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}
