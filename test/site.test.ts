// The public web surface over real HTTP: pages are accessible HTML that link to each other,
// the blog pages 24 posts at a time, pricing shows what site/pricing.yaml says, llms.txt
// follows llmstxt.org and only links to things that exist, and the MCP server card is
// complete, CORS-open and cacheable.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as yaml from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMIT_NAMES, loadPlans } from '../src/engine/limits/plans.js';
import { NAV } from '../src/site/layout.js';
import { parsePost, loadPosts } from '../src/site/posts.js';
import { formatPrice, loadPricing, PRICING_FILE } from '../src/site/pricing.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const posts = loadPosts();
const PAGES = ['/', '/pricing', '/blog', '/blog?page=2'];
const POST_PAGES = posts.map((p) => `/blog/${p.slug}`);

const count = (html: string, re: RegExp) => (html.match(re) ?? []).length;
const hrefs = (html: string) => [...html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/g)].map((m) => m[1]!);
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
const json = (r: Response): Promise<any> => r.json();
const text = (html: string) => unescape(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ');

interface LlmsLink {
  section: string;
  name: string;
  url: string;
  notes?: string;
}

/**
 * llmstxt.org: an H1 first (the only one), then a `> ` blockquote summary, then optional
 * prose without headings, then H2 sections whose lines are `- [name](url)` with optional
 * `: notes`; a section called "Optional" may be skipped by readers.
 */
function parseLlmsTxt(txt: string): { title: string; summary: string; links: LlmsLink[] } {
  const lines = txt.split('\n');
  expect(lines[0], 'first line is the H1').toMatch(/^# \S/);
  expect(
    lines.filter((l) => /^# /.test(l)),
    'exactly one H1',
  ).toHaveLength(1);
  const quote = lines.findIndex((l, i) => i > 0 && l.trim() !== '');
  expect(lines[quote], 'a blockquote follows the H1').toMatch(/^> \S/);
  const firstH2 = lines.findIndex((l) => l.startsWith('## '));
  expect(firstH2).toBeGreaterThan(quote);
  for (const l of lines.slice(quote + 1, firstH2))
    expect(l, 'no headings before the first H2').not.toMatch(/^#/);
  const links: LlmsLink[] = [];
  let section = '';
  const sizes = new Map<string, number>();
  for (const l of lines.slice(firstH2)) {
    if (l.trim() === '') continue;
    const h2 = /^## (\S.*)$/.exec(l);
    if (h2) {
      section = h2[1]!;
      expect(sizes.has(section), `section ${section} appears once`).toBe(false);
      sizes.set(section, 0);
      continue;
    }
    const item = /^- \[([^\]]+)\]\((\S+?)\)(?:: (\S.*))?$/.exec(l);
    expect(item, `"${l}" is a "- [name](url): notes" item`).not.toBeNull();
    links.push({ section, name: item![1]!, url: item![2]!, notes: item![3] });
    sizes.set(section, sizes.get(section)! + 1);
  }
  expect([...sizes.keys()]).toContain('Optional');
  for (const [name, n] of sizes) expect(n, `section ${name} lists links`).toBeGreaterThan(0);
  return { title: lines[0]!.slice(2), summary: lines[quote]!.slice(2), links };
}

describe('public web surface', () => {
  let s: TestServer;
  const get = (p: string, headers: Record<string, string> = {}) =>
    fetch(`${s.url}${p}`, { headers, redirect: 'manual' });
  const html = async (p: string) => {
    const r = await get(p, { accept: 'text/html' });
    expect(r.status, p).toBe(200);
    expect(r.headers.get('content-type'), p).toBe('text/html; charset=utf-8');
    return r.text();
  };

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  it('serves every page as accessible HTML that links to all the others', async () => {
    for (const p of [...PAGES, ...POST_PAGES]) {
      const page = await html(p);
      expect(page, p).toMatch(/^<!doctype html>\s*<html lang="en">/);
      expect(page, p).toMatch(
        /<meta name="viewport" content="width=device-width, initial-scale=1">/,
      );
      expect(page, p).toMatch(/<link rel="stylesheet" href="\/assets\/site\.css">/);
      expect(count(page, /<title>[^<]+<\/title>/g), p).toBe(1);
      expect(count(page, /<h1[\s>]/g), `${p}: one h1`).toBe(1);
      expect(count(page, /<main\b/g), `${p}: one main`).toBe(1);
      expect(page, p).toMatch(/<main id="content"/);
      expect(page, `${p}: skip link`).toMatch(/<a class="skip" href="#content">/);
      expect(page, p).toMatch(/<header\b/);
      expect(page, p).toMatch(/<footer\b/);
      // Every nav is labelled, so screen readers can tell the main one from the footer's.
      expect(count(page, /<nav\b/g), p).toBe(count(page, /<nav\b[^>]*aria-label="[^"]+"/g));
      for (const img of page.match(/<img\b[^>]*>/g) ?? []) expect(img, p).toMatch(/\balt="/);
      const links = new Set(hrefs(page));
      for (const l of NAV) expect(links, `${p} links to ${l.href}`).toContain(l.href);
    }
  });

  it('gives the homepage an image with a real description, and marks the current page', async () => {
    const home = await html('/');
    const alts = [...home.matchAll(/<img\b[^>]*\balt="([^"]*)"/g)].map((m) => m[1]!);
    expect(alts.some((a) => a.length > 20)).toBe(true);
    expect(home).toMatch(/<a href="\/" aria-current="page"/);
    expect(await html('/pricing')).toMatch(/<a href="\/pricing" aria-current="page"/);
  });

  it('serves its stylesheet and images', async () => {
    for (const [p, type] of [
      ['/assets/site.css', 'text/css; charset=utf-8'],
      ['/assets/logo.svg', 'image/svg+xml'],
      ['/assets/front-doors.svg', 'image/svg+xml'],
    ]) {
      const r = await get(p!);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toBe(type);
    }
    expect((await get('/assets/nope.css', { accept: 'application/json' })).status).toBe(404);
  });

  describe('blog', () => {
    const slugsOn = (page: string) =>
      [...page.matchAll(/<li class="post-item"><h2><a href="\/blog\/([^"]+)"/g)].map((m) => m[1]!);

    it('has enough posts for two pages', () => {
      expect(posts.length).toBeGreaterThan(24);
      expect(posts.length).toBeLessThanOrEqual(48);
    });

    it('shows 24 posts per page, newest first, and the rest on page 2', async () => {
      const one = slugsOn(await html('/blog'));
      expect(one).toHaveLength(24);
      expect(slugsOn(await html('/blog?page=1'))).toEqual(one);
      const two = slugsOn(await html('/blog?page=2'));
      expect(two).toHaveLength(posts.length - 24);
      expect([...one, ...two]).toEqual(posts.map((p) => p.slug));
      const dates = posts.map((p) => p.date);
      expect(dates).toEqual([...dates].sort().reverse());
    });

    it('links the pages to each other', async () => {
      const one = await html('/blog');
      expect(one).toMatch(/<a href="\/blog\?page=2" rel="next">/);
      expect(one).not.toMatch(/rel="prev"/);
      const two = await html('/blog?page=2');
      expect(two).toMatch(/<a href="\/blog" rel="prev">/);
      expect(two).not.toMatch(/rel="next"/);
      expect(two).toMatch(/<a href="\/blog\?page=2" aria-current="page"/);
    });

    it.each(['0', '-1', 'abc', '1.5', '', '2x', '1e1', ' 1'])(
      'answers page=%j with 400 in the error shape',
      async (page) => {
        const r = await get(`/blog?page=${encodeURIComponent(page)}`, {
          accept: 'application/json',
        });
        expect(r.status).toBe(400);
        const body = await json(r);
        expect(body).toMatchObject({ statusCode: 400, context: { field: 'page' } });
        expect(body.message).toMatch(/page must be a whole number of at least 1/);
        expect(typeof body.errorId).toBe('string');
      },
    );

    it('refuses a repeated page parameter', async () => {
      const r = await get('/blog?page=1&page=2', { accept: 'application/json' });
      expect(r.status).toBe(400);
    });

    it('answers an HTML page with the message when HTML is accepted', async () => {
      const r = await get('/blog?page=abc', { accept: 'text/html' });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(text(await r.text())).toContain('page must be a whole number of at least 1, not abc');
    });

    it.each(['3', '99', '99999999999999999999'])(
      'answers page=%s (past the last) with 404',
      async (page) => {
        const r = await get(`/blog?page=${page}`, { accept: 'application/json' });
        expect(r.status).toBe(404);
        expect(await json(r)).toMatchObject({ statusCode: 404, context: { pages: 2 } });
      },
    );

    it('serves each post at its own URL with its title, date and rendered Markdown', async () => {
      for (const p of posts) {
        const page = await html(`/blog/${p.slug}`);
        expect(page).toContain(`<h1 id="post-title">`);
        expect(text(page)).toContain(p.title);
        expect(page).toContain(`<time datetime="${p.date}">`);
        expect(page).toContain(p.html);
      }
      const r = await get('/blog/no-such-post', { accept: 'application/json' });
      expect(r.status).toBe(404);
      expect(await json(r)).toMatchObject({ statusCode: 404, context: { slug: 'no-such-post' } });
    });

    it('shows raw HTML of a post as text and drops script links', () => {
      const post = parsePost(
        'x.md',
        '---\ntitle: T\ndate: 2026-01-01\nauthor: A\nsummary: S\nslug: x\n---\n' +
          '# Top\n\n<script>alert(1)</script>\n\nHi <b onclick="x()">there</b> ' +
          '[bad](javascript:alert(1)) [good](/pricing) ![pic](javascript:x)\n',
      );
      expect(post.html).not.toMatch(/<script|<b |<h1|javascript:/);
      expect(post.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(post.html).toContain('<h2>Top</h2>');
      expect(post.html).toContain('<a href="/pricing">good</a>');
    });

    it('refuses posts with bad front matter, naming the file and the field', () => {
      const bad = (fm: string) => () => parsePost('bad.md', `---\n${fm}\n---\nbody\n`);
      expect(bad('title: T\ndate: 2026-02-30\nauthor: A\nsummary: S\nslug: bad')).toThrow(
        /bad\.md.*\n.*date: no such date/,
      );
      expect(bad('title: T\ndate: 2026-02-03\nauthor: A\nsummary: S\nslug: Bad Slug')).toThrow(
        /slug/,
      );
      expect(bad('title: T\ndate: 2026-02-03\nsummary: S\nslug: bad')).toThrow(/author/);
      expect(() => parsePost('n.md', 'no front matter')).toThrow(/no front matter/);
    });
  });

  describe('pricing', () => {
    const file = yaml.parse(fs.readFileSync(PRICING_FILE, 'utf8')) as {
      tiers: {
        id: string;
        name: string;
        monthly: number;
        annual: number;
        aiCreditsPerMonth: number;
        limits: Record<string, number>;
      }[];
    };

    it('has three or four tiers, Free to Enterprise', () => {
      expect(file.tiers.length).toBeGreaterThanOrEqual(3);
      expect(file.tiers.length).toBeLessThanOrEqual(4);
      expect(file.tiers.map((t) => t.name)).toEqual(['Free', 'Team', 'Business', 'Enterprise']);
    });

    it("shows every tier's monthly and annual price and AI credits from the YAML", async () => {
      const page = await html('/pricing');
      for (const t of file.tiers) {
        const card = new RegExp(
          `<li class="card tier[^"]*" id="tier-${t.id}">([\\s\\S]*?)</li>\\s*(?:<li class="card|</ul>)`,
        ).exec(page);
        expect(card, t.id).not.toBeNull();
        const shown = text(card![1]!);
        expect(shown).toContain(t.name);
        expect(shown).toContain(`${formatPrice(t.monthly)} per month`);
        expect(shown).toContain(`${formatPrice(t.annual)} per year`);
        expect(shown).toContain(
          `${t.aiCreditsPerMonth.toLocaleString('en-US')} AI credits per month`,
        );
        expect(card![1]).toContain(`data-monthly="${t.monthly}"`);
        expect(card![1]).toContain(`data-annual="${t.annual}"`);
        expect(card![1]).toContain(`data-credits="${t.aiCreditsPerMonth}"`);
      }
      expect(page).toMatch(/<th scope="col">Enterprise<\/th>/);
      expect(formatPrice(1990)).toBe('$1,990');
    });

    it('promises the limits config/plans.yaml enforces, for every plan it shares a name with', () => {
      const plans = loadPlans(path.join(ROOT, 'config/plans.yaml'), 'free');
      const shared = file.tiers.filter((t) => plans[t.id]);
      expect(shared.map((t) => t.id)).toEqual(['free', 'team', 'enterprise']);
      for (const t of shared) {
        expect(t.limits, t.id).toEqual(plans[t.id]!.limits);
        expect(t.name).toBe(plans[t.id]!.label);
      }
      for (const t of file.tiers)
        expect(Object.keys(t.limits).sort()).toEqual([...LIMIT_NAMES].sort());
    });

    it('refuses an invalid pricing file at load, naming the field', () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pricing-'));
      const f = path.join(dir, 'pricing.yaml');
      const doc = yaml.parse(fs.readFileSync(PRICING_FILE, 'utf8')) as {
        tiers: { monthly: unknown }[];
      };
      doc.tiers[1]!.monthly = 'cheap';
      fs.writeFileSync(f, yaml.stringify(doc));
      try {
        expect(() => loadPricing(f)).toThrow(/invalid pricing file .*\n\s+tiers\.1\.monthly/);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('llms.txt', () => {
    it('follows the llmstxt.org format', async () => {
      const r = await get('/llms.txt');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const { title, summary, links } = parseLlmsTxt(await r.text());
      expect(title).toBe('Ursa');
      expect(summary).toMatch(/analytics platform/);
      const sections = new Set(links.map((l) => l.section));
      expect([...sections]).toEqual(['Site', 'Docs', 'MCP', 'Optional']);
      const urls = links.map((l) => l.url);
      for (const p of ['/', '/pricing', '/blog', '/.well-known/mcp.json', '/docs/api.md'])
        expect(urls).toContain(`${s.url}${p}`);
      for (const p of posts) expect(urls).toContain(`${s.url}/blog/${p.slug}`);
      // Generated from the content: prices and the docs' sections appear in the notes.
      const pricing = links.find((l) => l.name === 'Pricing')!;
      for (const t of loadPricing().tiers) expect(pricing.notes).toContain(formatPrice(t.annual));
      expect(links.find((l) => l.url.endsWith('/docs/api.md'))!.notes).toMatch(
        /Sections: Conventions/,
      );
      expect(links.find((l) => l.name === 'MCP server card')!.notes).toMatch(/run_aql/);
    });

    it('links only to resources this server answers with 200', async () => {
      const { links } = parseLlmsTxt(await (await get('/llms.txt')).text());
      for (const l of links) {
        expect(l.url.startsWith(`${s.url}/`), l.url).toBe(true);
        const r = await get(l.url.slice(s.url.length));
        expect(r.status, l.url).toBe(200);
        await r.arrayBuffer();
      }
    });

    it('serves the docs it links to as raw Markdown, and nothing else', async () => {
      const r = await get('/docs/api.md');
      expect(r.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await r.text()).toBe(fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8'));
      for (const p of ['/docs/benchmarks.md', '/docs/nope.md', '/docs/..%2Fpackage.json'])
        expect((await get(p, { accept: 'application/json' })).status, p).toBe(404);
    });
  });

  describe('MCP server card', () => {
    it('names the server, its streamable-http endpoint, protocol versions and what needs a token', async () => {
      const r = await get('/.well-known/mcp.json');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      const card = await json(r);
      for (const field of ['$schema', 'name', 'version', 'description', 'remotes'])
        expect(card, field).toHaveProperty([field]);
      expect(card.$schema).toMatch(/^https:\/\/.+\.json$/);
      expect(card.name).toMatch(/^[^/]+\/[^/]+$/);
      expect(card.version).toBe('1.0.0');
      expect(card.remotes[0]).toMatchObject({
        type: 'streamable-http',
        url: `${s.url}/mcp`,
        supportedProtocolVersions: ['2025-06-18', '2025-11-25'],
        authentication: { required: true },
      });
      const access = card._meta['ursa/access'];
      expect(access.oauthProtectedResourceMetadata).toBe(
        `${s.url}/.well-known/oauth-protected-resource/mcp`,
      );
      expect(access.public.urls).toContain(`${s.url}/.well-known/mcp.json`);
      const tools = [
        'list_projects',
        'get_model',
        'search_objects',
        'get_object',
        'get_attribute_values',
        'compatible_objects',
        'run_aql',
        'explain_aql',
        'aql_help',
        'ask',
        'list_reports',
        'run_report',
        'list_dashboards',
        'get_dashboard',
        'create_metric',
        'update_object',
        'create_subscription',
        'create_alert',
        'list_deliveries',
        'change_delivery',
        'remove_delivery',
        'list_flows',
        'run_flow',
        'get_flow_run',
        'create_project',
        'list_warehouse_tables',
        'map_tables',
      ];
      expect(access.authenticated.tools).toEqual(tools);
      expect(card.tools.map((t: { name: string }) => t.name)).toEqual(tools);
      for (const t of card.tools) {
        expect(t._meta['ursa/authentication']).toBe('required');
        expect(t.inputSchema).toMatchObject({ type: 'object' });
      }
    });

    it('answers 304 to a matching If-None-Match, and 200 to another', async () => {
      const first = await get('/.well-known/mcp.json');
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(first.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
      for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const r = await get('/.well-known/mcp.json', { 'if-none-match': inm });
        expect(r.status, inm).toBe(304);
        expect(r.headers.get('etag')).toBe(etag);
        expect(r.headers.get('access-control-allow-origin')).toBe('*');
        expect(await r.text()).toBe('');
      }
      const other = await get('/.well-known/mcp.json', { 'if-none-match': '"stale"' });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(await first.text());
    });
  });

  it('gives every page an ETag and 304 too', async () => {
    for (const p of [...PAGES, '/blog/aql-basics', '/llms.txt', '/docs/api.md']) {
      const r = await get(p);
      const etag = r.headers.get('etag');
      expect(etag, p).toBeTruthy();
      expect((await get(p, { 'if-none-match': etag! })).status, p).toBe(304);
    }
    expect((await get('/blog')).headers.get('etag')).not.toBe(
      (await get('/blog?page=2')).headers.get('etag'),
    );
  });

  it('is read-only: other methods answer 405 with Allow', async () => {
    const r = await fetch(`${s.url}/pricing`, {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});
