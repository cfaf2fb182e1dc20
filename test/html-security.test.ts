// Every HTML page of ours carries a strict Content-Security-Policy and nosniff (issue 10,
// item 3): the public site and its error pages, 404s, the browsable API and its index,
// /auth/login, and the OAuth sign-in, consent, error and sign-out pages. Each inline style or
// script a page holds is allowed by its hash and nothing else runs. Then, in headless
// Chromium, the pages still work under their policy: no violation is reported, the API
// console's script runs and calls the API, and an OAuth authorization ends at a client on
// another origin, also through the provider's self-submitting form_post page.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPosts } from '../src/site/posts.js';
import { ADMIN, ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
const inCi = process.env.CI === 'true';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Directives of a policy by name. */
function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

/** The page is HTML with our headers; every inline style and script is allowed by hash. */
function expectProtected(label: string, headers: Headers, body: string): Map<string, string[]> {
  expect(headers.get('content-type'), label).toMatch(/^text\/html/);
  expect(headers.get('x-content-type-options'), label).toBe('nosniff');
  const csp = headers.get('content-security-policy');
  expect(csp, `${label}: Content-Security-Policy`).toBeTruthy();
  expect(csp, label).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  const d = directives(csp!);
  expect(d.get('default-src'), label).toEqual(["'none'"]);
  expect(d.get('frame-ancestors'), label).toEqual(["'none'"]);
  expect(d.get('base-uri'), label).toEqual(["'none'"]);
  for (const [, style] of body.matchAll(/<style>([\s\S]*?)<\/style>/g))
    expect(d.get('style-src'), `${label}: inline style`).toContain(sha256(style!));
  for (const [, script] of body.matchAll(/<script>([\s\S]*?)<\/script>/g))
    expect(d.get('script-src'), `${label}: inline script`).toContain(sha256(script!));
  expect(body, `${label}: no script from elsewhere`).not.toMatch(/<script\s[^>]*src=/);
  return d;
}

/** A browser without JavaScript: follows nothing by itself, keeps cookies. */
class Agent {
  readonly cookies = new Map<string, string>();
  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, {
      method: init.method ?? (init.form ? 'POST' : 'GET'),
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return { res, text: await res.text() };
  }
  /** Follows redirects within `origin` until a page (or a redirect elsewhere) answers. */
  async follow(url: string, origin: string, init: { form?: Record<string, string> } = {}) {
    let r = await this.request(url, init);
    while (r.res.status >= 300 && r.res.status < 400) {
      const to = new URL(r.res.headers.get('location')!, url);
      if (to.origin !== origin) return { ...r, location: to };
      url = to.href;
      r = await this.request(url);
    }
    return { ...r, location: undefined, url };
  }
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A client's redirect URI on another origin, recording what arrives there. */
async function startCallback() {
  const hits: { method: string; url: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, body });
      res.setHeader('Content-Type', 'text/plain');
      res.end('client reached');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return { url, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('HTML pages and their security headers', () => {
  let s: TestServer;
  let callback: Awaited<ReturnType<typeof startCallback>>;
  let clientId: string;

  const register = async () => {
    const r = await fetch(`${s.url}/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Security <test> client',
        redirect_uris: [callback.url],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(r.status).toBe(201);
    return ((await r.json()) as { client_id: string }).client_id;
  };

  const authorizeUrl = (extra: Record<string, string> = {}) => {
    const u = new URL(`${s.url}/auth/authorize`);
    const params = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.url,
      scope: 'mcp',
      state: 'st',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      ...extra,
    };
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.href;
  };

  beforeAll(async () => {
    s = await startTestServer();
    callback = await startCallback();
    clientId = await register();
  });
  afterAll(async () => {
    await callback?.close();
    await s?.close();
  });

  it('sends every site page, API page, sign-in page and error page with the policy', async () => {
    const slug = loadPosts()[0]!.slug;
    const token = await s.token(ADMIN);
    const pages: { path: string; status: number; auth?: boolean; method?: string }[] = [
      { path: '/', status: 200 },
      { path: '/pricing', status: 200 },
      { path: '/blog', status: 200 },
      { path: `/blog/${slug}`, status: 200 },
      { path: '/blog?page=abc', status: 400 },
      { path: '/blog/no-such-post', status: 404 },
      { path: '/no/such/page', status: 404 },
      { path: '/pricing', status: 405, method: 'POST' },
      { path: '/auth/login', status: 200 },
      { path: '/api/v1', status: 200 },
      { path: '/api/v1', status: 200, auth: true },
      { path: '/api/v1/projects', status: 200, auth: true },
      { path: `/api/v1/projects/${s.demo}/pmd/obj`, status: 200, auth: true },
      { path: '/api/v1/projects', status: 401 },
      { path: '/api/v1/projects/no-such-project', status: 401, auth: true },
      { path: '/api/v1/no-such-route', status: 404 },
    ];
    for (const p of pages) {
      const label = `${p.method ?? 'GET'} ${p.path}`;
      const res = await fetch(`${s.url}${p.path}`, {
        method: p.method ?? 'GET',
        headers: { accept: 'text/html', ...(p.auth ? { authorization: `Bearer ${token}` } : {}) },
      });
      expect(res.status, label).toBe(p.status);
      expectProtected(label, res.headers, await res.text());
    }
  });

  it('the API index allows its console script by hash and lets it call the API', async () => {
    const res = await fetch(`${s.url}/api/v1`, { headers: { accept: 'text/html' } });
    const d = expectProtected('API index', res.headers, await res.text());
    expect(d.get('script-src')).toHaveLength(1);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('form-action')).toEqual(["'self'"]);
  });

  it('a failed sign-in answers its page with the policy too', async () => {
    const r = await new Agent().request(`${s.url}/auth/login`, {
      form: { email: ADMIN, password: 'wrong-password', next: '/api/v1' },
    });
    expect(r.res.status).toBe(401);
    expectProtected('POST /auth/login', r.res.headers, r.text);
  });

  it('protects the OAuth sign-in, consent, error and sign-out pages', async () => {
    const agent = new Agent();
    const login = await agent.follow(authorizeUrl(), s.url);
    expect(login.text).toContain('Sign in to Ursa');
    let d = expectProtected('OAuth sign-in', login.res.headers, login.text);
    // Their forms end at the client's redirect URI, so form-action cannot be 'self'.
    expect(d.has('form-action')).toBe(false);
    const action = /<form method="post" action="([^"]+\/login)"/.exec(login.text)![1]!;
    const consent = await agent.follow(new URL(action, s.url).href, s.url, {
      form: { email: ADMIN, password: ADMIN_PASSWORD },
    });
    expect(consent.text).toContain('Allow access?');
    // The client's self-chosen name is shown as text.
    expect(consent.text).toContain('Security &lt;test&gt; client');
    d = expectProtected('OAuth consent', consent.res.headers, consent.text);
    expect(d.has('form-action')).toBe(false);

    const error = await new Agent().request(
      `${s.url}/auth/authorize?client_id=no-such-client&response_type=code`,
    );
    expect(error.res.status).toBe(400);
    expect(error.text).toContain('Authorization failed');
    expectProtected('OAuth error', error.res.headers, error.text);

    // Signed in to the OAuth server, /auth/session/end asks before signing out.
    const signOut = await agent.request(`${s.url}/auth/session/end`);
    expect(signOut.res.status).toBe(200);
    expect(signOut.text).toContain('Sign out of Ursa?');
    expectProtected('OAuth sign-out', signOut.res.headers, signOut.text);
    // Not signed in, the provider answers its own self-submitting form: its script by hash.
    const auto = await new Agent().request(`${s.url}/auth/session/end`);
    expect(auto.text).toContain('document.forms[0].submit()');
    d = expectProtected('provider form', auto.res.headers, auto.text);
    expect(d.get('script-src')).toContain(
      sha256(/<script>([\s\S]*?)<\/script>/.exec(auto.text)![1]!),
    );
  });

  describe.skipIf(!haveChromium && !inCi)('in headless Chromium', () => {
    let browser: Browser;
    const violations: string[] = [];

    beforeAll(async () => {
      if (!haveChromium)
        throw new Error(`CI=true but Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
    });
    afterAll(() => browser?.close());

    async function open(): Promise<Page> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('console', (m) => {
        // Error statuses are logged as failed loads; the pages themselves must not complain.
        if (/Content Security Policy|Refused to/i.test(m.text()))
          violations.push(`${page.url()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => violations.push(`${page.url()}: ${e.message}`));
      return page;
    }

    it('signs in, browses the API and uses its console without a violation', async () => {
      violations.length = 0;
      const page = await open();
      await page.goto(`${s.url}/auth/login?next=/api/v1`);
      // The sign-in page's inline style applied: the form sits on a white card.
      expect(
        await page.evaluate(`getComputedStyle(document.querySelector('main')).backgroundColor`),
      ).toBe('rgb(255, 255, 255)');
      await page.fill('#email', ADMIN);
      await page.fill('#password', ADMIN_PASSWORD);
      await Promise.all([page.waitForURL(`${s.url}/api/v1`), page.click('button[type=submit]')]);
      expect(await page.locator('h1').textContent()).toBe('Ursa API');
      await page.click(`button[data-try-path="/api/v1/projects"]`);
      await page.click('#try-send');
      await expect.poll(() => page.locator('#try-status').textContent()).toMatch(/^200/);
      expect(await page.locator('#try-output').textContent()).toContain('"projects"');
      await page.goto(`${s.url}/api/v1/no-such-route`);
      expect(await page.locator('h1').textContent()).toBe('Error 404');
      expect(violations).toEqual([]);
      await page.close();
    }, 60_000);

    it('authorizes a client on another origin, by redirect and by form_post', async () => {
      violations.length = 0;
      const page = await open();
      for (const mode of ['query', 'form_post']) {
        const before = callback.hits.length;
        await page.goto(authorizeUrl({ response_mode: mode, prompt: 'consent' }));
        if (await page.locator('#password').count()) {
          await page.fill('#email', ADMIN);
          await page.fill('#password', ADMIN_PASSWORD);
          await page.click('button[type=submit]');
        }
        await page.waitForSelector('button[value=allow]');
        await page.click('button[value=allow]');
        await page.waitForURL(`${callback.url}**`);
        expect(await page.textContent('body')).toBe('client reached');
        const hit = callback.hits[before]!;
        expect(hit.method, mode).toBe(mode === 'query' ? 'GET' : 'POST');
        expect(mode === 'query' ? hit.url : hit.body, mode).toMatch(/code=/);
      }
      expect(violations).toEqual([]);
      await page.close();
    }, 60_000);
  });
});
