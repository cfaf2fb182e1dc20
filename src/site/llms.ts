// /llms.txt (llmstxt.org): an H1, a blockquote summary, a paragraph, then H2 sections of
// `- [name](url): notes` links, the last one `## Optional`. Generated from the site's own
// pages and content, the docs served at /docs/*.md and the MCP server card, so it cannot
// drift from them. Links are absolute: the file is read out of context.
import { API_PREFIX } from '../engine/config.js';
import { pageCount, POSTS_PER_PAGE, postHref } from './blog.js';
import { docPath, type DocFile } from './docs.js';
import {
  MCP_PROTOCOL_VERSIONS,
  MCP_TOOLS,
  mcpUrl,
  protectedResourceMetadataUrl,
} from './mcp-card.js';
import type { Post } from './posts.js';
import { formatPrice, type Pricing } from './pricing.js';

export interface LlmsSources {
  siteUrl: string;
  pricing: Pricing;
  posts: readonly Post[];
  docs: readonly DocFile[];
}

// Brackets in a name and line breaks anywhere would break the `- [name](url): notes` form.
const name = (s: string): string => s.replace(/[[\]]/g, '').replace(/\s+/g, ' ');
const note = (s: string): string => s.replace(/\s+/g, ' ').trim();
const item = (title: string, url: string, notes: string): string =>
  `- [${name(title)}](${url}): ${note(notes)}`;

export function buildLlmsTxt(src: LlmsSources): string {
  const site = src.siteUrl;
  const tiers = src.pricing.tiers
    .map(
      (t) =>
        `${t.name} ${formatPrice(t.monthly)}/month or ${formatPrice(t.annual)}/year with ` +
        `${t.aiCreditsPerMonth.toLocaleString('en-US')} AI credits/month`,
    )
    .join('; ');
  const pages = pageCount(src.posts.length);
  const docLine = (d: DocFile) =>
    item(
      d.title,
      site + docPath(d),
      `${d.about}.${d.sections.length ? ` Sections: ${d.sections.join(', ')}.` : ''}`,
    );
  const tools = MCP_TOOLS.map((t) => t.name).join(', ');

  const lines = [
    '# Ursa',
    '',
    '> Ursa is an analytics platform: load data, describe it once in a semantic model, and ask ' +
      'questions in AQL through a REST API, an MCP server for AI assistants, or AI chat. Every ' +
      "answer respects the asker's permissions and row-level security, and never double counts.",
    '',
    `The REST API is at ${site}${API_PREFIX} and the MCP server (Streamable HTTP) at ` +
      `${mcpUrl(site)}; both need authentication (an OAuth 2.0 bearer token, or a browser ` +
      `session from ${site}/auth/login). The pages and files listed here are public. The ` +
      'documentation links below are raw Markdown. PostgreSQL clients (psql, pandas, JDBC, ' +
      'ODBC, BI tools) read the model over the SQL API when the server enables it (docs/sql.md).',
    '',
    '## Site',
    '',
    item('Home', `${site}/`, 'what Ursa is, its three front doors and the latest blog posts'),
    item('Pricing', `${site}/pricing`, `tiers and limits: ${tiers}`),
    item(
      'Blog',
      `${site}/blog`,
      `${src.posts.length} articles, ${POSTS_PER_PAGE} per page (${pages} page(s), ?page=N)`,
    ),
    '',
    '## Docs',
    '',
    ...src.docs.filter((d) => d.topic === 'api').map(docLine),
    '',
    '## MCP',
    '',
    item(
      'MCP server card',
      `${site}/.well-known/mcp.json`,
      `endpoint ${mcpUrl(site)} (streamable-http), protocol versions ` +
        `${MCP_PROTOCOL_VERSIONS.join(' and ')}; every tool needs authentication, OAuth ` +
        `protected-resource metadata at ${protectedResourceMetadataUrl(site)}; tools: ${tools}`,
    ),
    ...src.docs.filter((d) => d.topic === 'mcp').map(docLine),
    '',
    '## Optional',
    '',
    item(
      'Interactive API index',
      `${site}${API_PREFIX}`,
      'every route grouped by resource, as HTML with a try-it console or as JSON',
    ),
    ...src.posts.map((p) => item(p.title, site + postHref(p), p.summary)),
    '',
  ];
  return lines.join('\n');
}
