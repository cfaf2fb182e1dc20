// Requests another site makes a browser send, with this site's cookies or to get one: the
// sign-in, sign-out and password forms, the OAuth server's forms and cookie-authenticated API
// writes answer 403 unless the browser says (Origin, Sec-Fetch-Site) they come from this site.
// Clients that are no browser (no Origin, no Sec-Fetch-Site) and bearer tokens are not
// affected. Over real HTTP, and in headless Chromium with an attacker's page on another site.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, skipBrowser } from './helpers/app-browser.js';
import { rawRequest, setCookieValue, type RawResponse } from './helpers/http.js';
import { browse, Browser, oauthClient } from './helpers/oauth.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const EVIL = 'https://evil.example';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A 403 in the error shape that names the header it judged by. */
function expectRefused(r: RawResponse, header: 'Origin' | 'Sec-Fetch-Site'): void {
  expect(r.status, r.text).toBe(403);
  const body = JSON.parse(r.text);
  expect(Object.keys(body).sort()).toEqual(['context', 'errorId', 'message', 'statusCode']);
  expect(body.errorId).toMatch(UUID);
  expect(body.message).toMatch(/^cross-site request refused/);
  expect(body.message).toContain(header);
  expect(body.context.header).toBe(header);
  expect(r.headers['set-cookie']).toBeUndefined();
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const sessionOf = (r: RawResponse) => setCookieValue(r.headers, 'ursa_session')?.value;

describe('cross-site requests with browser credentials', () => {
  let s: TestServer;
  /** The same server by another name: the request's Host is 127.0.0.1, the site localhost. */
  let byIp: string;
  beforeAll(async () => {
    s = await startTestServer();
    byIp = s.url.replace('localhost', '127.0.0.1');
  });
  afterAll(() => s?.close());

  const login = (headers: Record<string, string>, base = s.url) =>
    rawRequest(`${base}/auth/login`, {
      method: 'POST',
      headers: { ...FORM, ...headers },
      body: form({ email: ADMIN, password: ADMIN_PASSWORD, next: '/api/v1' }),
    });
  const session = async () => sessionOf(await login({}))!;
  const announce = (cookie: string, headers: Record<string, string>, base = s.url) =>
    rawRequest(`${base}/api/v1/projects/${s.demo}/announce`, {
      method: 'PUT',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        cookie: `ursa_session=${cookie}`,
        ...headers,
      },
      body: JSON.stringify({ title: 'Hello', message: 'World' }),
    });
  const signedIn = async (cookie: string) =>
    (
      await rawRequest(`${s.url}/api/v1/projects`, {
        headers: { accept: 'application/json', cookie: `ursa_session=${cookie}` },
      })
    ).status === 200;

  it('a sign-in posted from another site is refused: 403 and no session cookie', async () => {
    expectRefused(await login({ origin: EVIL }), 'Origin');
    expectRefused(await login({ origin: EVIL, 'sec-fetch-site': 'cross-site' }), 'Sec-Fetch-Site');
    // Without an Origin (some browsers' form posts), fetch metadata alone decides.
    expectRefused(await login({ 'sec-fetch-site': 'cross-site' }), 'Sec-Fetch-Site');
    // A sibling host under the same domain is another application.
    expectRefused(await login({ 'sec-fetch-site': 'same-site' }), 'Sec-Fetch-Site');
    // Opaque origins (sandboxed frames) say nothing about whose page it was.
    expectRefused(await login({ origin: 'null' }), 'Origin');
    // The right host by the wrong scheme is another origin (a network attacker's http page).
    expectRefused(await login({ origin: s.url.replace('http:', 'https:') }), 'Origin');

    // From this site's page, under either of its names, and from a client that is no browser.
    for (const [headers, base] of [
      [{ origin: s.url, 'sec-fetch-site': 'same-origin' }, s.url],
      [{ origin: byIp, 'sec-fetch-site': 'same-origin' }, byIp],
      [{}, s.url],
    ] as const) {
      const r = await login(headers, base);
      expect(r.status, JSON.stringify(headers)).toBe(200); // JSON asked for: JSON answered
      expect(sessionOf(r)).toBeTruthy();
    }
  });

  it('sign-out and the password forms refuse other sites too; nothing changes', async () => {
    const cookie = await session();
    const out = await rawRequest(`${s.url}/auth/logout`, {
      method: 'POST',
      headers: { accept: 'application/json', cookie: `ursa_session=${cookie}`, origin: EVIL },
    });
    expectRefused(out, 'Origin');
    expect(await signedIn(cookie)).toBe(true);

    const forgot = await rawRequest(`${s.url}/auth/password/forgot`, {
      method: 'POST',
      headers: { ...FORM, 'sec-fetch-site': 'cross-site' },
      body: form({ email: ADMIN }),
    });
    expectRefused(forgot, 'Sec-Fetch-Site');

    const member = 'cross-site-member@example.com';
    await invite(s, s.demo, member);
    const link = await s.engine.passwordLinks.invitationSignIn(member);
    if (link.kind !== 'set-password') throw new Error(`no password link: ${link.kind}`);
    const token = new URL(link.url).searchParams.get('token')!;
    const setPassword = (headers: Record<string, string>) =>
      rawRequest(`${s.url}/auth/password/set`, {
        method: 'POST',
        headers: { ...FORM, ...headers },
        body: form({ token, password: 'a-new-password-1', confirm: 'a-new-password-1' }),
      });
    expectRefused(await setPassword({ origin: EVIL }), 'Origin');
    expect((await s.engine.passwordLinks.inspect(token)).email).toBe(member); // still unused
    // The password pages send no Referer, so the browser posts their form with `Origin: null`;
    // its Sec-Fetch-Site still says the page was ours.
    const ours = await setPassword({ origin: 'null', 'sec-fetch-site': 'same-origin' });
    // Setting the password signs this browser in.
    expect(ours.status, ours.text).toBe(200);
    expect(String(ours.headers['set-cookie'])).toMatch(/^ursa_session=/);
  });

  it('cookie-authenticated API writes: the wrong scheme or Sec-Fetch-Site cross-site → 403', async () => {
    const cookie = await session();
    const httpsTwin = s.url.replace('http:', 'https:');
    expectRefused(await announce(cookie, { origin: httpsTwin }), 'Origin');
    expectRefused(
      await announce(cookie, { origin: byIp.replace('http:', 'https:') }, byIp),
      'Origin',
    );
    expectRefused(
      await announce(cookie, { origin: s.url, 'sec-fetch-site': 'cross-site' }),
      'Sec-Fetch-Site',
    );
    const before = await s.api('GET', `/projects/${s.demo}/announce`);
    expect(before.json.announcement?.title).not.toBe('Hello');

    expect(
      (await announce(cookie, { origin: s.url, 'sec-fetch-site': 'same-origin' })).status,
    ).toBe(200);
    expect((await announce(cookie, { origin: byIp }, byIp)).status).toBe(200);
    // A bearer token is no ambient credential: fetch metadata does not matter to it.
    const bearer = await s.api('PUT', `/projects/${s.demo}/announce`, {
      body: { title: 'Hello', message: 'World' },
      headers: { origin: EVIL, 'sec-fetch-site': 'cross-site' },
    });
    expect(bearer.status).toBe(200);
  });

  it("the OAuth server's sign-in and consent forms refuse other sites", async () => {
    const oauth = oauthClient(() => s.url);
    const reg = await oauth.register();
    const { url } = await oauth.authorizationUrl(reg.body.client_id as string);
    const b = new Browser();
    let res = await b.request(url);
    while (res.status >= 300 && res.status < 400)
      res = await b.request(new URL(res.headers.get('location')!, url).href);
    const action = /<form method="post" action="([^"]+\/login)"/.exec(await res.text())?.[1];
    expect(action).toBeTruthy();
    const cookies = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const post = (headers: Record<string, string>) =>
      rawRequest(new URL(action!, s.url).href, {
        method: 'POST',
        headers: { ...FORM, cookie: cookies, ...headers },
        body: form({ email: ADMIN, password: ADMIN_PASSWORD }),
      });
    expectRefused(await post({ origin: EVIL }), 'Origin');
    expectRefused(await post({ 'sec-fetch-site': 'cross-site' }), 'Sec-Fetch-Site');
    // The same form from the site's own page goes on to consent.
    const ours = await post({ origin: s.url, 'sec-fetch-site': 'same-origin' });
    expect(ours.status, ours.text).toBe(303);
    expect(ours.headers.location).toMatch(/\/auth\/authorize\//);
  });

  it("the OAuth server's sign-out confirmation refuses other sites", async () => {
    const oauth = oauthClient(() => s.url);
    const reg = await oauth.register();
    const b = new Browser();
    await browse(b, (await oauth.authorizationUrl(reg.body.client_id as string)).url, {
      login: { email: ADMIN, password: ADMIN_PASSWORD },
    });
    const ask = await b.request(`${s.url}/auth/session/end`);
    const page = await ask.text();
    const action = /<form [^>]*action="([^"]+\/confirm)"/.exec(page)?.[1];
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page)?.[1];
    expect(action && xsrf, page).toBeTruthy();
    const confirm = (headers: Record<string, string>) =>
      rawRequest(new URL(action!, s.url).href, {
        method: 'POST',
        headers: {
          ...FORM,
          cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          ...headers,
        },
        body: form({ xsrf: xsrf!, logout: 'yes' }),
      });
    expectRefused(await confirm({ origin: EVIL }), 'Origin');
    const ours = await confirm({ origin: s.url, 'sec-fetch-site': 'same-origin' });
    expect(ours.status, ours.text).toBe(303);
  });
});

describe('behind a TLS proxy: the scheme comes from URSA_SITE_URL', () => {
  let s: TestServer;
  const SITE = 'https://ursa.example.test';
  beforeAll(async () => {
    s = await startTestServer({ URSA_SITE_URL: SITE });
  });
  afterAll(() => s?.close());

  // The proxy forwards plain HTTP with the public Host: the connection says nothing of https.
  const login = (origin: string) =>
    rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { ...FORM, host: 'ursa.example.test', origin },
      body: form({ email: ADMIN, password: ADMIN_PASSWORD }),
    });

  it('refuses the http origin of the same host, signs in from the https one', async () => {
    expectRefused(await login('http://ursa.example.test'), 'Origin');
    const ok = await login(SITE);
    expect(ok.status).toBe(200);
    expect(setCookieValue(ok.headers, 'ursa_session')?.attributes).toMatch(/;\s*Secure/i);
  });
});

describe.skipIf(skipBrowser)('in headless Chromium', () => {
  let s: TestServer;
  let chromium: Chromium;
  let attacker: http.Server;
  /** A page on another site (127.0.0.1 is not localhost) that posts a form to Ursa. */
  let attackerUrl: string;
  beforeAll(async () => {
    s = await startTestServer();
    chromium = await launch();
    attacker = http.createServer((req, res) => {
      res.setHeader('Content-Type', 'text/html');
      const fields = req.url === '/login' ? { email: ADMIN, password: ADMIN_PASSWORD } : {};
      res.end(
        `<form method="post" action="${s.url}/auth${req.url}">${Object.entries(fields)
          .map(([k, v]) => `<input name="${k}" value="${v}">`)
          .join('')}<button>Go</button></form>`,
      );
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await chromium?.close();
    await new Promise((r) => attacker?.close(r));
    await s?.close();
  });

  const cookieIn = async (ctx: Awaited<ReturnType<Chromium['newContext']>>) =>
    (await ctx.cookies(s.url)).find((c) => c.name === 'ursa_session')?.value;

  it("another site's sign-in form signs nobody in; sign-out from there does nothing", async () => {
    const ctx = await chromium.newContext();
    const page = await ctx.newPage();
    await page.goto(`${attackerUrl}/login`);
    const [answer] = await Promise.all([
      page.waitForResponse(`${s.url}/auth/login`),
      page.click('button'),
    ]);
    expect(answer.status()).toBe(403);
    expect(await cookieIn(ctx)).toBeUndefined();

    // Signed in on the site itself, a sign-out form elsewhere does not end the session.
    await page.goto(`${s.url}/auth/login?next=/api/v1`);
    await page.fill('#email', ADMIN);
    await page.fill('#password', ADMIN_PASSWORD);
    await Promise.all([page.waitForURL(`${s.url}/api/v1`), page.click('button[type=submit]')]);
    const sid = await cookieIn(ctx);
    expect(sid).toBeTruthy();
    await page.goto(`${attackerUrl}/logout`);
    const [out] = await Promise.all([
      page.waitForResponse(`${s.url}/auth/logout`),
      page.click('button'),
    ]);
    expect(out.status()).toBe(403);
    expect(await s.engine.sessionUser(sid!)).toBe(ADMIN);
    // The site's own sign-out button works.
    await page.goto(`${s.url}/api/v1`);
    await Promise.all([page.waitForURL(`${s.url}/auth/login`), page.click('text=Log out')]);
    expect(await s.engine.sessionUser(sid!)).toBeNull();
    await ctx.close();
  }, 60_000);

  it('the set-password form (a page that sends no Referer) still works', async () => {
    const member = 'chromium-member@example.com';
    await invite(s, s.demo, member);
    const link = await s.engine.passwordLinks.invitationSignIn(member);
    if (link.kind !== 'set-password') throw new Error(`no password link: ${link.kind}`);
    const ctx = await chromium.newContext();
    const page = await ctx.newPage();
    await page.goto(link.url.replace(/^http:\/\/localhost:\d+/, s.url));
    const inputs = page.locator('input[type=password]');
    await inputs.nth(0).fill('chromium-password-1');
    await inputs.nth(1).fill('chromium-password-1');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('button[type=submit]'),
    ]);
    // Signed in and sent into the app.
    expect(answer.status()).toBe(303);
    expect(await answer.headerValue('location')).toBe('/app');
    expect(await answer.request().headerValue('origin')).toBe('null');
    expect(await s.engine.accounts.checkPassword(member, 'chromium-password-1')).toBe(member);
    await ctx.close();
  }, 60_000);
});
