// Guessing secrets is limited, over real HTTP from several client addresses (127.0.0.x):
// WebDAV tokens and passwords per account-and-address and per address (429 + Retry-After),
// without locking the real user out from their own address; a plain member holding the right
// WebDAV token learns nothing from the answer; the registration limit survives a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../src/server.js';
import { oauthClient } from './helpers/oauth.js';
import { basic, rawRequest, type RawResponse } from './helpers/http.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
  startOnPort,
} from './helpers/server.js';

const TOKEN = 'webdav-token-for-throttle-1';
const MEMBER = 'plain-member@example.com';

/** The parts of a response that may tell a right token from a wrong one. */
function comparable(r: RawResponse) {
  const headers = { ...r.headers };
  for (const h of ['date', 'x-request-id']) delete headers[h];
  const body = JSON.parse(r.text) as Record<string, unknown>;
  delete body.errorId;
  return { status: r.status, headers, body };
}

describe('guessing WebDAV tokens and passwords is throttled', () => {
  let s: TestServer;
  let root: string;
  const propfind = (user: string, secret: string, from: string) =>
    rawRequest(`${root}/`, {
      method: 'PROPFIND',
      headers: { depth: '0', authorization: basic(user, secret) },
      from,
    });
  const login = (email: string, password: string, from: string) =>
    rawRequest(`${s.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password }).toString(),
      from,
    });

  beforeAll(async () => {
    s = await startTestServer();
    root = `${s.url}/api/v1/projects/${s.demo}/webdav`;
    const r = await s.api('PUT', `/projects/${s.demo}`, { body: { webdavToken: TOKEN } });
    expect(r.status, r.text).toBe(200);
    await invite(s, s.demo, MEMBER);
  });
  afterAll(() => s.close());

  it('400 wrong WebDAV tokens: 429 with Retry-After after ten, even sent in parallel', async () => {
    const attacker = '127.0.0.2';
    const answers: RawResponse[] = [];
    for (let batch = 0; batch < 10; batch++)
      answers.push(
        ...(await Promise.all(
          Array.from({ length: 40 }, (_, i) => propfind(ADMIN, `guess-${batch}-${i}`, attacker)),
        )),
      );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 401)).toHaveLength(10);
    expect(statuses.filter((x) => x === 429)).toHaveLength(390);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(JSON.parse(refused.text)).toMatchObject({
      statusCode: 429,
      context: { retryAfter: Number(refused.headers['retry-after']) },
      errorId: expect.any(String),
    });
    // The attacker's address waits even with the right token, and naming another address in
    // X-Forwarded-For changes nothing without URSA_TRUST_PROXY…
    expect((await propfind(ADMIN, TOKEN, attacker)).status).toBe(429);
    const spoofed = await rawRequest(`${root}/`, {
      method: 'PROPFIND',
      headers: { depth: '0', authorization: basic(ADMIN, TOKEN), 'x-forwarded-for': '192.0.2.9' },
      from: attacker,
    });
    expect(spoofed.status).toBe(429);
    // …the real user at their own address does not.
    const real = await propfind(ADMIN, TOKEN, '127.0.0.3');
    expect(real.status, real.text).toBe(207);
  });

  it('a plain member with the right token gets exactly the 401 of a wrong token, counted alike', async () => {
    const from = '127.0.0.4';
    const right = await propfind(MEMBER, TOKEN, from);
    const wrong = await propfind(MEMBER, 'not-the-token', from);
    expect(right.status).toBe(401);
    expect(comparable(right)).toEqual(comparable(wrong));
    // Both count as failures: the throttle does not tell them apart either.
    const more: number[] = [];
    for (let i = 0; i < 9; i++) more.push((await propfind(MEMBER, TOKEN, from)).status);
    expect(more).toEqual([...Array<number>(8).fill(401), 429]);
  });

  it('one address guessing many accounts is stopped after fifty failures', async () => {
    const from = '127.0.0.5';
    const statuses: number[] = [];
    for (let user = 0; user < 5; user++)
      for (let i = 0; i < 10; i++)
        statuses.push((await propfind(`user${user}@example.com`, `guess-${i}`, from)).status);
    expect(statuses).toEqual(Array<number>(50).fill(401));
    const next = await propfind('someone-else@example.com', 'guess', from);
    expect(next.status).toBe(429);
    expect(Number(next.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('400 wrong passwords at /auth/login: 429 with Retry-After; the right one elsewhere still signs in', async () => {
    const attacker = '127.0.0.6';
    const statuses: number[] = [];
    let refused: RawResponse | undefined;
    for (let i = 0; i < 400; i++) {
      const r = await login(ADMIN, `wrong-password-${i}`, attacker);
      statuses.push(r.status);
      if (r.status === 429) refused ??= r;
    }
    expect(statuses.slice(0, 10)).toEqual(Array<number>(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array<number>(390).fill(429));
    expect(Number(refused!.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused!.headers['set-cookie']).toBeUndefined();
    expect((await login(ADMIN, ADMIN_PASSWORD, attacker)).status).toBe(429);
    const real = await login(ADMIN, ADMIN_PASSWORD, '127.0.0.7');
    expect(real.status).toBe(303);
    expect(real.headers['set-cookie']?.join()).toContain('ursa_session=');
  });

  it('a success forgets the failures of that account at that address', async () => {
    const from = '127.0.0.8';
    for (let i = 0; i < 9; i++) expect((await login(ADMIN, `typo-${i}`, from)).status).toBe(401);
    expect((await login(ADMIN, ADMIN_PASSWORD, from)).status).toBe(303);
    for (let i = 0; i < 9; i++) expect((await login(ADMIN, `typo-${i}`, from)).status).toBe(401);
  });
});

describe('behind a trusted proxy (URSA_TRUST_PROXY)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ URSA_TRUST_PROXY: 'loopback' });
  });
  afterAll(() => s.close());

  it('counts each forwarded client address on its own', async () => {
    const login = (password: string, client: string) =>
      rawRequest(`${s.url}/auth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': client,
        },
        body: new URLSearchParams({ email: ADMIN, password }).toString(),
      });
    for (let i = 0; i < 10; i++)
      expect((await login(`wrong-${i}`, '198.51.100.7')).status).toBe(401);
    expect((await login('wrong', '198.51.100.7')).status).toBe(429);
    // Another client behind the same proxy signs in.
    expect((await login(ADMIN_PASSWORD, '198.51.100.8')).status).toBe(303);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    const login = (client: string) =>
      rawRequest(`${s.url}/auth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': client,
        },
        body: new URLSearchParams({ email: ADMIN, password: 'wrong-password' }).toString(),
      });
    for (let i = 1; i <= 10; i++) expect((await login(`2001:db8:1:2::${i}`)).status).toBe(401);
    expect((await login('2001:db8:1:2:ffff:ffff:ffff:1')).status).toBe(429);
    expect((await login('2001:db8:1:3::1')).status).toBe(401);
  });
});

describe('the client registration limit survives a restart', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-throttle-'));
  let server: RunningServer | undefined;
  const start = (port: number) =>
    startOnPort(dataDir, port, { URSA_OAUTH_REGISTRATIONS_PER_HOUR: '2' });
  afterAll(async () => {
    await server?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('registrations counted before the restart still count after it', async () => {
    server = await start(0);
    const port = Number(new URL(server.engine.config.siteUrl).port);
    let oc = oauthClient(() => server!.engine.config.siteUrl);
    expect((await oc.register()).status).toBe(201);
    expect((await oc.register()).status).toBe(201);
    await server.close();
    server = undefined;
    // Let pooled client sockets to the old server close (the new one has the same address).
    await new Promise((r) => setTimeout(r, 200));

    server = await start(port);
    oc = oauthClient(() => server!.engine.config.siteUrl);
    const third = await oc.register();
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ error: 'too_many_requests' });
  });
});
