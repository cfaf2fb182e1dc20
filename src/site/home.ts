// The homepage: what Ursa is, who it is for, and where to go next.
import { API_PREFIX } from '../engine/config.js';
import { DIAGRAM_PATH } from './assets.js';
import { postHref } from './blog.js';
import { html } from '../shared/html.js';
import type { Page } from '../web/page.js';
import { sitePage } from './layout.js';
import type { Post } from './posts.js';

const FEATURES: readonly { title: string; text: string; href: string; link: string }[] = [
  {
    title: 'Correct by construction',
    text: 'AQL resolves joins from your model and aggregates every metric on its own dataset, so fan and chasm traps cannot double count.',
    href: '/blog/fan-traps-explained',
    link: 'How Ursa avoids fan traps',
  },
  {
    title: 'Secure for every asker',
    text: 'Permission levels, object access per role and row-level filters apply to people, integrations and AI assistants alike.',
    href: '/blog/row-level-security',
    link: 'Row-level security in Ursa',
  },
  {
    title: 'Ready for AI assistants',
    text: 'An MCP server gives assistants the model, AQL and saved reports, with the same permissions as the user who connects them.',
    href: '/blog/connect-an-ai-assistant-with-mcp',
    link: 'Connect an assistant',
  },
  {
    title: 'An API for everything',
    text: 'The web application is built on the same REST API you get: browsable HTML, JSON, YAML and CSV, with links between resources.',
    href: API_PREFIX,
    link: 'Browse the REST API',
  },
];

export function homePage(latest: readonly Post[]): Page {
  const features = FEATURES.map(
    (f) => html`<li class="card"><h3>${f.title}</h3><p>${f.text}</p>
<p><a href="${f.href}">${f.link}</a></p></li>`,
  );
  const posts = latest.map(
    (p) => html`<li class="card"><h3><a href="${postHref(p)}">${p.title}</a></h3>
<p class="meta"><time datetime="${p.date}">${p.date}</time></p><p>${p.summary}</p></li>`,
  );
  const body = html`<h1>Answers from your data — correct, fast and explained</h1>
<p class="lead">Ursa loads your data, models it once, and lets people, integrations and AI
assistants ask questions in AQL. Every answer respects the asker's permissions and row-level
security, and never double counts.</p>
<p class="actions"><a class="button primary" href="/auth/login?next=/app">Sign in to the demo</a>
<a class="button" href="/pricing">See pricing</a></p>
<figure>
<img src="${DIAGRAM_PATH}" width="640" height="260" alt="Diagram: AI assistants connect through the MCP server at /mcp, apps and integrations through the REST API at /api/v1, people and crawlers through the website and llms.txt; all three use one engine that enforces permissions, row-level security and AQL.">
</figure>
<h2>Why Ursa</h2>
<ul class="grid">${features}</ul>
<h2>For AI assistants and crawlers</h2>
<p>Point an MCP client at the <a href="/.well-known/mcp.json">MCP server card</a> to find the
endpoint and how to authenticate, or read <a href="/llms.txt">llms.txt</a> for a map of this
site and its documentation in plain text.</p>
${posts.length > 0 && html`<h2>From the blog</h2><ul class="grid">${posts}</ul><p><a href="/blog">All posts</a></p>`}`;
  return sitePage({
    title: 'Ursa — analytics for people and AI assistants',
    description:
      'Ursa: an analytics platform with a REST API, an MCP server for AI assistants and AI chat over your data.',
    section: '/',
    body,
  });
}
