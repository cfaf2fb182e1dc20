// How a new member gets in, over real HTTP with a real SMTP server: the invitation's one-time
// link to set a password, "forgot password", their limits, and what a dead link answers.
import { sql } from 'drizzle-orm';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createLogger } from '../src/engine/logger.js';
import { startServer, type RunningServer } from '../src/server.js';
import {
  createProject,
  parseMail,
  startSmtpSink,
  waitFor,
  type SmtpSink,
} from './helpers/fixtures.js';
import { startFakeIssuer, type FakeIssuer } from './helpers/oidc.js';
import {
  ADMIN,
  invite,
  startTestServer,
  testConfig,
  type ApiResponse,
  type TestServer,
} from './helpers/server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LINK = /http:\/\/localhost:\d+\/auth\/password\/set\?token=([A-Za-z0-9_-]+)/;

function expectError(r: ApiResponse, status: number, message?: RegExp): void {
  expect(r.status, r.text).toBe(status);
  expect(Object.keys(r.json as object).sort()).toEqual([
    'context',
    'errorId',
    'message',
    'statusCode',
  ]);
  expect(r.json.statusCode).toBe(status);
  expect(r.json.errorId).toMatch(UUID);
  if (message) expect(r.json.message).toMatch(message);
}

function expectStrictPage(r: { headers: Headers }): void {
  expect(r.headers.get('content-type')).toMatch(/^text\/html/);
  const csp = r.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("form-action 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toMatch(/script-src/);
  expect(r.headers.get('referrer-policy')).toBe('no-referrer');
  expect(r.headers.get('cache-control')).toBe('no-store');
}

describe('password links with the built-in identity provider', () => {
  let smtp: SmtpSink;
  let s: TestServer;
  /** Messages already claimed by a test, so each test reads only its own. */
  const claimed = new Set<object>();

  beforeAll(async () => {
    smtp = await startSmtpSink();
    s = await startTestServer({
      URSA_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      // Every request of this suite comes from 127.0.0.1: only the per-account limit bites.
      URSA_PASSWORD_RESETS_PER_HOUR: '1000',
    });
  });
  afterAll(async () => {
    await s.close();
    await smtp.close();
  });

  /** The next mail to `to` not yet read, parsed. */
  async function nextMail(to: string) {
    const msg = await waitFor(() =>
      smtp.messages.find((m) => m.to.includes(to) && !claimed.has(m)),
    );
    claimed.add(msg);
    return parseMail(msg.raw);
  }

  async function linkIn(to: string): Promise<{ url: string; token: string }> {
    const mail = await nextMail(to);
    const m = LINK.exec(mail.body);
    if (!m) throw new Error(`no password link in the mail to ${to}:\n${mail.body}`);
    return { url: m[0].replace(/^http:\/\/localhost:\d+/, s.url), token: m[1]! };
  }

  const page = (url: string) => fetch(url, { headers: { accept: 'text/html' } });
  const postForm = (p: string, fields: Record<string, string>, headers = {}) =>
    fetch(`${s.url}${p}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'text/html',
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
  const postJson = (p: string, body: unknown) => s.api('POST', p, { as: null, body });

  /** Signs in with JSON; the session cookie when it worked. */
  async function signIn(email: string, password: string): Promise<string | null> {
    const r = await postJson('/auth/login', { email, password });
    if (r.status !== 200) return null;
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith('ursa_session='));
    return cookie ? cookie.split(';')[0]! : null;
  }
  const withCookie = (cookie: string, p: string) =>
    s.api('GET', p, { as: null, headers: { cookie } });

  const inviteWithMail = async (project: string, email: string) => {
    const r = await s.api('POST', `/projects/${project}/users`, {
      body: { id: email, sendemail: true },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.users[0]).toMatchObject({ id: email, emailSent: true });
  };

  it('an invited member sets a password from the link, is signed in and lands in the project', async () => {
    const email = 'newbie@example.com';
    await inviteWithMail(s.demo, email);
    const mail = await nextMail(email);
    expect(mail.headers.get('subject')).toBe(`${ADMIN} invited you to the Ursa project "Demo"`);
    expect(mail.body).toMatch(/expires in 7 days/);
    const token = LINK.exec(mail.body)?.[1] ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The link, the project and the later sign-in all lead into the app's project page.
    const next = `/app/p/${s.demo}`;
    const url = `${s.url}/auth/password/set?token=${token}&next=${encodeURIComponent(next)}`;
    expect(mail.body).toContain(url.replace(s.url, ''));
    expect(mail.body).toMatch(new RegExp(`Open the project: http://localhost:\\d+${next}\r?\n`));
    expect(mail.body).toContain(
      `/auth/login?next=${encodeURIComponent(next)}&email=${encodeURIComponent(email)}`,
    );
    // Invited, but no password yet.
    expect(await signIn(email, 'anything-at-all')).toBeNull();

    const form = await page(url);
    expect(form.status).toBe(200);
    expectStrictPage(form);
    const html = await form.text();
    expect(html).toContain(email);
    expect(html).toContain(`name="token" value="${token}"`);
    expect(html).toContain(`name="next" value="${next}"`);
    expect(html).toContain('action="/auth/password/set"');

    // The policy, in the form and in JSON: 400, and the link still works afterwards.
    const short = await postForm('/auth/password/set', {
      token,
      password: 'short',
      confirm: 'short',
    });
    expect(short.status).toBe(400);
    expectStrictPage(short);
    expect(await short.text()).toMatch(/at least 8 characters/);
    expectError(
      await postJson('/auth/password/set', { token, password: 'short' }),
      400,
      /at least 8/,
    );
    const differ = await postForm('/auth/password/set', {
      token,
      password: 'first-choice-1',
      confirm: 'second-choice-2',
    });
    expect(differ.status).toBe(400);
    expect(await differ.text()).toMatch(/differ/);

    const done = await postForm('/auth/password/set', {
      token,
      next,
      password: 'newbie-password-1',
      confirm: 'newbie-password-1',
    });
    // Signed in, with the cookie /auth/login sets, and sent to the project in the app.
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(next);
    expect(done.headers.get('cache-control')).toBe('no-store');
    const set = done.headers.getSetCookie();
    expect(set).toHaveLength(1);
    expect(set[0]).toMatch(
      /^ursa_session=[A-Za-z0-9_-]{20,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/,
    );
    const cookie = set[0]!.split(';')[0]!;
    const project = await withCookie(cookie, `/api/v1/projects/${s.demo}`);
    expect(project.status, project.text).toBe(200);
    const list = await withCookie(cookie, '/api/v1/projects');
    expect(Object.keys(list.json.projects)).toContain(s.demo);
    expect(await signIn(email, 'newbie-password-1')).toBeTruthy();

    // Not twice.
    const again = await postJson('/auth/password/set', { token, password: 'another-password-2' });
    expectError(again, 410, /already used/);
    expect(again.json.context).toMatchObject({ reason: 'used', forgot: '/auth/password/forgot' });
    const againPage = await page(url);
    expect(againPage.status).toBe(410);
    expectStrictPage(againPage);
    const againHtml = await againPage.text();
    expect(againHtml).toMatch(/already used/);
    expect(againHtml).toContain('href="/auth/password/forgot"');
    expect(await signIn(email, 'another-password-2')).toBeNull();
    expect(await signIn(email, 'newbie-password-1')).toBeTruthy();
  });

  it('a password link leads only into the app: any other next is /app', async () => {
    const email = 'redirects@example.com';
    await invite(s, s.demo, email);
    const link = await s.engine.passwordLinks.invitationSignIn(email);
    if (link.kind !== 'set-password') throw new Error(`no link for ${email}`);
    const token = new URL(link.url).searchParams.get('token')!;
    const cases = [
      ['//evil.example/app', '/app'],
      ['https://evil.example/app/p/x', '/app'],
      ['/\\evil.example', '/app'],
      ['/\t/evil.example/app', '/app'],
      ['/api/v1/projects', '/app'],
      ['/app/../api/v1', '/app'],
      ['/app/%2e%2e/api/v1', '/app'],
      ['/application', '/app'],
      ['javascript:alert(1)', '/app'],
      ['', '/app'],
      [`/app/p/${s.demo}/explore?q=1`, `/app/p/${s.demo}/explore?q=1`],
    ] as const;
    for (const [next, to] of cases) {
      const form = await page(
        `${link.url.replace(/^http:\/\/localhost:\d+/, s.url)}&next=${encodeURIComponent(next)}`,
      );
      expect(await form.text(), next).toContain(`name="next" value="${to}"`);
      // A refused password shows the form again, with the same cleaned next.
      const again = await postForm('/auth/password/set', {
        token,
        next,
        password: 'redirect-password-1',
        confirm: 'another-password-2',
      });
      expect(again.status).toBe(400);
      expect(await again.text(), next).toContain(`name="next" value="${to}"`);
    }
    const r = await postForm('/auth/password/set', {
      token,
      next: '//evil.example/app',
      password: 'redirect-password-1',
      confirm: 'redirect-password-1',
    });
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe('/app');
  });

  it('the sign-in form prefills the e-mail a link carries and leads into the app', async () => {
    const r = await page(
      `${s.url}/auth/login?next=${encodeURIComponent(`/app/p/${s.demo}`)}&email=${encodeURIComponent('a"b@example.com')}`,
    );
    const html = await r.text();
    expect(html).toContain('value="a&quot;b@example.com"');
    expect(html).toContain(`name="next" value="/app/p/${s.demo}"`);
    // Without a next, a sign-in lands in the app, not on the API.
    expect(await (await page(`${s.url}/auth/login`)).text()).toContain('name="next" value="/app"');
  });

  it('an expired link is refused with a clear page and error', async () => {
    const email = 'late@example.com';
    await inviteWithMail(s.demo, email);
    const { url, token } = await linkIn(email);
    // Time passes: the link's expiry is now behind us.
    await s.engine.store.run(
      sql`UPDATE password_links SET expires = ${new Date(Date.now() - 1000).toISOString()} WHERE email = ${email}`,
    );

    const r = await page(url);
    expect(r.status).toBe(410);
    expectStrictPage(r);
    expect(await r.text()).toMatch(/expired/);
    const json = await s.api('GET', `/auth/password/set?token=${token}`, { as: null });
    expectError(json, 410, /expired/);
    expect(json.json.context.reason).toBe('expired');
    expectError(
      await postJson('/auth/password/set', { token, password: 'late-password-1' }),
      410,
      /expired/,
    );
    expect(await signIn(email, 'late-password-1')).toBeNull();
  });

  it('a newer link replaces the older one', async () => {
    const email = 'twice@example.com';
    await inviteWithMail(s.demo, email);
    const first = await linkIn(email);
    await inviteWithMail(s.demo, email);
    const second = await linkIn(email);
    expect(second.token).not.toBe(first.token);

    const old = await postJson('/auth/password/set', {
      token: first.token,
      password: 'twice-password-1',
    });
    expectError(old, 410, /newer password link/);
    expect(old.json.context.reason).toBe('replaced');
    const current = await s.api('GET', `/auth/password/set?token=${second.token}`, { as: null });
    expect(current.status, current.text).toBe(200);
    expect(current.json).toMatchObject({ user: email, purpose: 'invite' });
    expect(Date.parse(current.json.expires as string)).toBeGreaterThan(Date.now());
  });

  it('an unknown or missing token answers 404, in the page and in JSON', async () => {
    const unknown = await page(`${s.url}/auth/password/set?token=not-a-real-token`);
    expect(unknown.status).toBe(404);
    expectStrictPage(unknown);
    expect(await unknown.text()).toMatch(/not valid/);
    expectError(await s.api('GET', '/auth/password/set?token=nope', { as: null }), 404);
    expectError(await s.api('GET', '/auth/password/set', { as: null }), 404);
    expectError(
      await postJson('/auth/password/set', { token: 'nope', password: 'long-enough-1' }),
      404,
    );
    expectError(await postJson('/auth/password/set', { password: 'long-enough-1' }), 400);
  });

  it('escapes what it shows: a token from the URL cannot inject markup', async () => {
    const r = await page(
      `${s.url}/auth/password/set?token=${encodeURIComponent('"><script>x</script>')}`,
    );
    expect(r.status).toBe(404);
    expect(await r.text()).not.toContain('<script>');
  });

  it('someone who already has a password is invited without a link, told how to sign in', async () => {
    const email = 'has-password@example.com';
    await invite(s, s.demo, email);
    await s.engine.accounts.setPassword(email, 'kept-password-1');
    const project = await createProject(s, 'second', 'Second');
    await inviteWithMail(project, email);
    const mail = await nextMail(email);
    expect(mail.body).not.toContain('/auth/password/set');
    expect(mail.body).toContain(`${s.url}/auth/password/forgot`);
    expect(mail.body).toContain(`Sign in to Ursa with your password: ${s.url}/auth/login`);
    // And the invitation changed nothing about the password.
    expect(await signIn(email, 'kept-password-1')).toBeTruthy();
  });

  it('the sign-in page links to "forgot password", whose form is a strict page', async () => {
    const login = await page(`${s.url}/auth/login`);
    expect(await login.text()).toContain('href="/auth/password/forgot"');
    const forgot = await page(`${s.url}/auth/password/forgot`);
    expect(forgot.status).toBe(200);
    expectStrictPage(forgot);
    const html = await forgot.text();
    expect(html).toContain('action="/auth/password/forgot"');
    expect(html).toContain('name="email"');
  });

  it('forgot password answers the same for an account and for none, and mails only the account', async () => {
    const known = 'forgetful@example.com';
    await invite(s, s.demo, known); // an account, never mailed
    const ghost = 'nobody-here@example.com';

    const pages = [];
    for (const email of [known, ghost])
      pages.push(await postForm('/auth/password/forgot', { email }));
    const jsons = [];
    for (const email of [known, ghost])
      jsons.push(await postJson('/auth/password/forgot', { email }));

    const comparable = async (r: Response) => ({
      status: r.status,
      type: r.headers.get('content-type'),
      csp: r.headers.get('content-security-policy'),
      cookies: r.headers.getSetCookie(),
      body: await r.text(),
    });
    const [pKnown, pGhost] = await Promise.all(pages.map(comparable));
    expect(pKnown!.status).toBe(200);
    expect(pKnown!.body).toMatch(/If that address belongs to an Ursa account/);
    expect(pGhost).toEqual(pKnown);
    expectStrictPage(pages[0]!);

    const [jKnown, jGhost] = jsons;
    expect(jKnown!.status).toBe(202);
    expect(jKnown!.json).toEqual({ message: expect.stringMatching(/expires in 7 days/) });
    expect(jGhost!.status).toBe(jKnown!.status);
    expect(jGhost!.text).toBe(jKnown!.text);
    expect(jGhost!.headers.get('content-type')).toBe(jKnown!.headers.get('content-type'));

    // Two mails to the account (the second link replaces the first), none to the ghost.
    const first = await linkIn(known);
    const second = await linkIn(known);
    const mail = smtp.messages.find((m) => m.raw.includes(second.token))!;
    expect(parseMail(mail.raw).headers.get('subject')).toBe('Set your Ursa password');
    expect(smtp.messages.some((m) => m.to.includes(ghost))).toBe(false);
    expect(
      (await s.api('GET', `/auth/password/set?token=${first.token}`, { as: null })).status,
    ).toBe(410);
    const ok = await s.api('GET', `/auth/password/set?token=${second.token}`, { as: null });
    expect(ok.json).toMatchObject({ user: known, purpose: 'reset' });
  });

  it('a reset link sets the password, ends every other session and signs this one in', async () => {
    const email = 'resetme@example.com';
    await invite(s, s.demo, email);
    await s.engine.accounts.setPassword(email, 'old-password-1');
    const before = await signIn(email, 'old-password-1');
    expect((await withCookie(before!, '/api/v1/projects')).status).toBe(200);
    // An OAuth sign-in of the same account, as the authorization server stores it.
    await s.engine.oidcModels.upsert(
      'Session',
      'oauth-session-of-resetme',
      { accountId: email },
      3600,
    );
    await s.engine.oidcModels.upsert(
      'Session',
      'oauth-session-of-someone',
      { accountId: ADMIN },
      3600,
    );

    expect((await postJson('/auth/password/forgot', { email })).status).toBe(202);
    const { token } = await linkIn(email);
    const set = await postJson('/auth/password/set', { token, password: 'new-password-22' });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toEqual({ user: email, expires: expect.any(String) });
    // The browser that set it is signed in; every earlier session has ended.
    const fresh = set.headers.getSetCookie()[0]!.split(';')[0]!;
    expect(fresh).toMatch(/^ursa_session=/);
    expect((await withCookie(fresh, '/api/v1/projects')).status).toBe(200);

    expect((await withCookie(before!, '/api/v1/projects')).status).toBe(401);
    expect(
      await s.engine.oidcModels.find('Session', 'id', 'oauth-session-of-resetme'),
    ).toBeUndefined();
    expect(
      await s.engine.oidcModels.find('Session', 'id', 'oauth-session-of-someone'),
    ).toBeDefined();
    expect(await signIn(email, 'old-password-1')).toBeNull();
    expect(await signIn(email, 'new-password-22')).toBeTruthy();
    expectError(await postJson('/auth/password/set', { token, password: 'third-password-3' }), 410);
  });

  it('setting a password any other way ends the open links too', async () => {
    const email = 'cli-user@example.com';
    await invite(s, s.demo, email);
    await postJson('/auth/password/forgot', { email });
    const { token } = await linkIn(email);
    await s.engine.accounts.setPassword(email, 'set-by-operator-1');
    const r = await postJson('/auth/password/set', { token, password: 'taken-over-1' });
    expectError(r, 410);
    expect(r.json.context.reason).toBe('password_set');
  });

  it('limits requests per account, the same way for an address that is no account', async () => {
    const known = 'limited@example.com';
    await invite(s, s.demo, known);
    const answers: Record<string, ApiResponse[]> = {};
    for (const email of [known, 'limited-ghost@example.com']) {
      answers[email] = [];
      for (let i = 0; i < 4; i++)
        answers[email].push(await postJson('/auth/password/forgot', { email }));
    }
    for (const list of Object.values(answers)) {
      expect(list.slice(0, 3).map((r) => r.status)).toEqual([202, 202, 202]);
      const refused = list[3]!;
      expectError(refused, 429, /too many password requests/);
      const retry = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retry)).toBe(true);
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(3600);
    }
    // The same words for both; the seconds to wait depend only on when each count began.
    const [k, g] = Object.values(answers).map((l) =>
      String(l[3]!.json.message).replace(/retry in \d+ s/, 'retry in N s'),
    );
    expect(g).toBe(k);
    // The form says so too.
    const form = await postForm('/auth/password/forgot', { email: known });
    expect(form.status).toBe(429);
    expect(form.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await form.text()).toMatch(/too many password requests/);
  });

  it('refuses what is not an e-mail address with 400', async () => {
    expectError(await postJson('/auth/password/forgot', { email: 'not-an-address' }), 400);
    expectError(await postJson('/auth/password/forgot', {}), 400);
    const form = await postForm('/auth/password/forgot', { email: 'not-an-address' });
    expect(form.status).toBe(400);
    expectStrictPage(form);
  });
});

describe('forgot password per client address, kept in the metadata DB', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-pwlimit-'));
  let running: RunningServer | undefined;
  const start = () => {
    const config = testConfig(dataDir, {
      URSA_DEMO: 'false',
      URSA_PASSWORD_RESETS_PER_HOUR: '2',
      URSA_PASSWORD_LINK_TTL_HOURS: '0.5',
    });
    return startServer(config, createLogger('silent'), false);
  };
  const forgot = (email: string) =>
    fetch(`${running!.url}/auth/password/forgot`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email }),
    });

  afterAll(async () => {
    await running?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 429 with Retry-After past the limit, also after a restart', async () => {
    running = await start();
    const first = await forgot('a@example.com');
    expect(first.status).toBe(202);
    expect(((await first.json()) as { message: string }).message).toMatch(/expires in 30 minutes/);
    expect((await forgot('b@example.com')).status).toBe(202);
    const third = await forgot('c@example.com');
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    await running.close();
    running = await start();
    const after = await forgot('d@example.com');
    expect(after.status).toBe(429);
    expect(Number(after.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('password link settings', () => {
  it('refuses a link lifetime that is not a positive number of hours up to 30 days', () => {
    for (const bad of ['0', '-1', 'week', '721'])
      expect(() => loadConfig({ URSA_PASSWORD_LINK_TTL_HOURS: bad })).toThrow(
        /URSA_PASSWORD_LINK_TTL_HOURS/,
      );
    expect(() => loadConfig({ URSA_PASSWORD_RESETS_PER_HOUR: '0' })).toThrow(
      /URSA_PASSWORD_RESETS_PER_HOUR/,
    );
    expect(loadConfig({}).passwordLinks).toEqual({ ttlHours: 168, resetsPerHourPerAddress: 20 });
  });
});

describe('with an external identity provider', () => {
  let idp: FakeIssuer;
  let s: TestServer;

  beforeAll(async () => {
    idp = await startFakeIssuer();
    s = await startTestServer({ URSA_AUTH_ISSUER: idp.url, URSA_AUTH_AUDIENCE: 'ursa-api' });
  });
  afterAll(async () => {
    await s?.close();
    await idp?.close();
  });

  it('the invitation says to sign in at the provider and carries no password link', async () => {
    const bearer = await idp.sign({ email: ADMIN });
    const r = await s.api('POST', `/projects/${s.demo}/users`, {
      bearer,
      body: { id: 'external@example.com', sendemail: true },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.users[0].emailSent).toBe(true);
    const outbox = path.join(s.dataDir, 'outbox');
    const [file] = fs.readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    const mail = parseMail(fs.readFileSync(path.join(outbox, file!), 'utf8'));
    expect(mail.body).toContain(`organization's account at ${idp.url}`);
    expect(mail.body).not.toContain('/auth/password');
    expect(await s.engine.store.rows(sql`SELECT count(*) AS n FROM password_links`)).toEqual([
      { n: 0 },
    ]);
  });

  it('has no password pages: 404 naming the provider', async () => {
    const r = await s.api('POST', '/auth/password/forgot', {
      as: null,
      body: { email: 'external@example.com' },
    });
    expectError(r, 404, /external identity provider/);
    expect(r.json.context.issuer).toBe(idp.url);
    expectError(await s.api('GET', '/auth/password/set?token=x', { as: null }), 404);
    const form = await fetch(`${s.url}/auth/password/forgot`, { headers: { accept: 'text/html' } });
    expect(form.status).toBe(404);
    expect(await form.text()).toContain(idp.url);
  });
});
