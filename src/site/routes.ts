// The public web surface (spec, "Public web surface"): pages, discovery files, the docs as
// Markdown and the site's assets. No authentication, GET only. Content is read and rendered
// once when the server starts; requests only pick a prepared answer (with its ETag).
import type { Engine } from '../engine/engine.js';
import { notFound } from '../engine/errors.js';
import type { Operation, RouteDef } from '../http/router.js';
import { diagram, DIAGRAM_PATH, logo, LOGO_PATH, stylesheet, STYLESHEET_PATH } from './assets.js';
import { blogIndexPage, findPost, pageCount, pageOf, postPage } from './blog.js';
import { loadDocs } from './docs.js';
import { homePage } from './home.js';
import { buildLlmsTxt } from './llms.js';
import { mcpServerCard } from './mcp-card.js';
import { loadPosts } from './posts.js';
import { pricingPage, loadPricing } from './pricing.js';
import { prepare, preparePage, sendPrepared, type Prepared } from './send.js';
import { sharePage } from './share.js';
import { appAsset, appShell } from './app.js';

const pricing = loadPricing();
const posts = loadPosts();
const docs = loadDocs();

const home = preparePage(homePage(posts.slice(0, 3)));
const pricingHtml = preparePage(pricingPage(pricing));
const blogPages = Array.from({ length: pageCount(posts.length) }, (_, i) =>
  preparePage(blogIndexPage(posts, i + 1)),
);
const postPages = posts.map((_, i) => preparePage(postPage(posts, i)));
const docFiles = new Map(
  docs.map((d) => [d.name, prepare('text/markdown; charset=utf-8', d.markdown)]),
);
const assets = new Map<string, Prepared>([
  [STYLESHEET_PATH, stylesheet],
  [LOGO_PATH, logo],
  [DIAGRAM_PATH, diagram],
]);

// llms.txt and the server card hold absolute URLs, so they depend on the server's address
// (known only once it listens): built on first use for each address, then reused.
function perSite(build: (engine: Engine) => Prepared): (engine: Engine) => Prepared {
  const built = new Map<string, Prepared>();
  return (engine) => {
    const key = `${engine.config.siteUrl} ${engine.config.auth.issuer}`;
    let p = built.get(key);
    if (!p) built.set(key, (p = build(engine)));
    return p;
  };
}

const llmsTxt = perSite((engine) =>
  prepare(
    'text/plain; charset=utf-8',
    buildLlmsTxt({ siteUrl: engine.config.siteUrl, pricing, posts, docs }),
  ),
);
const serverCard = perSite((engine) =>
  prepare(
    'application/json; charset=utf-8',
    `${JSON.stringify(mcpServerCard(engine.config.siteUrl, engine.config.auth.issuer), null, 2)}\n`,
    { maxAge: 3600 },
  ),
);

function get(path: string, description: string, handler: Operation['handler']): RouteDef {
  return { group: 'Site', path, ops: { GET: { access: 'public', description, handler } } };
}

export const siteRoutes: RouteDef[] = [
  get('/', 'Homepage.', ({ req, res }) => sendPrepared(req, res, home)),
  get('/pricing', 'Tiers, prices and AI credits.', ({ req, res }) =>
    sendPrepared(req, res, pricingHtml),
  ),
  get('/blog', 'Blog index, `page` 1-based, 24 posts per page.', ({ req, res, query }) => {
    const page = pageOf(query.page, blogPages.length);
    sendPrepared(req, res, blogPages[page - 1]!);
  }),
  get('/blog/:slug', 'One blog post.', ({ req, res, params }) =>
    sendPrepared(req, res, postPages[findPost(posts, params.slug!)]!),
  ),
  get('/llms.txt', 'Site summary and link map for language models.', ({ engine, req, res }) =>
    sendPrepared(req, res, llmsTxt(engine)),
  ),
  get('/.well-known/mcp.json', 'MCP server card.', ({ engine, req, res }) =>
    sendPrepared(req, res, serverCard(engine)),
  ),
  get('/docs/:file', 'Documentation as Markdown (the files llms.txt links to).', (c) => {
    const doc = docFiles.get(c.params.file!);
    if (!doc) throw notFound(`no document ${c.params.file}`, { available: [...docFiles.keys()] });
    sendPrepared(c.req, c.res, doc);
  }),
  get(
    '/share/:token',
    "A public dashboard share (HTML, framable by the project's embedOrigins; JSON with ?format=json); `filter` as for app/dashboards.",
    sharePage,
  ),
  get(
    '/app/assets/:file',
    "The web application's bundle (app.js, app.css, chunk-*.js loaded on demand).",
    (c) => {
      if (!appAsset(c)) throw notFound(`no asset ${c.params.file} of the web application`);
    },
  ),
  get('/app', 'The web application (signs you in, then works on /api/v1).', appShell),
  get(
    '/app/*rest',
    'The web application: every address under /app is one of its screens.',
    appShell,
  ),
  get('/assets/:file', 'Stylesheet and images of the site.', ({ req, res, params }) => {
    const asset = assets.get(`/assets/${params.file}`);
    if (!asset) throw notFound(`no asset ${params.file}`);
    sendPrepared(req, res, asset);
  }),
];
