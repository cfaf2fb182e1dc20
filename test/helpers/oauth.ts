// OAuth client side for tests over real HTTP: a cookie-keeping browser driven through the
// sign-in and consent pages, PKCE, and the registration, authorization and token requests of
// one authorization server.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { ADMIN, ADMIN_PASSWORD } from './server.js';

export const REDIRECT = 'http://127.0.0.1:7/callback';

/** A browser: follows nothing by itself, keeps cookies by name. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async request(url: string, method = 'GET', form?: Record<string, string>): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(url, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0\b/i.test(line))
        this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}

export interface Flow {
  /** Where the browser was finally sent: the client's redirect URI with code or error. */
  redirect: URL;
  pages: { kind: 'login' | 'consent'; status: number; html: string }[];
}

/**
 * Drives a browser from an authorization URL to the client's redirect URI: submits the
 * sign-in form (with `login`) and the consent form (with `decision`) when they show up.
 */
export async function browse(
  b: Browser,
  authorizationUrl: string,
  o: { login?: { email: string; password: string }; decision?: 'allow' | 'deny' } = {},
): Promise<Flow> {
  const pages: Flow['pages'] = [];
  let url = authorizationUrl;
  let method = 'GET';
  let form: Record<string, string> | undefined;
  for (let i = 0; i < 20; i++) {
    const res = await b.request(url, method, form);
    if (res.status >= 300 && res.status < 400) {
      await res.arrayBuffer();
      const to = new URL(res.headers.get('location')!, url);
      // Leaving the authorization server: the client's redirect URI.
      if (to.origin !== new URL(url).origin) return { redirect: to, pages };
      [url, method, form] = [to.href, 'GET', undefined];
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (!action || !res.headers.get('content-type')?.startsWith('text/html'))
      throw new Error(`unexpected answer ${res.status} at ${url}: ${html}`);
    const target = new URL(action, url).href;
    if (action.endsWith('/login')) {
      pages.push({ kind: 'login', status: res.status, html });
      if (!o.login || pages.filter((p) => p.kind === 'login').length > 1)
        throw new Error(`sign-in page shown (${res.status}): ${html}`);
      [url, method, form] = [target, 'POST', o.login];
    } else if (action.endsWith('/consent')) {
      pages.push({ kind: 'consent', status: res.status, html });
      [url, method, form] = [target, 'POST', { decision: o.decision ?? 'allow' }];
    } else throw new Error(`unknown form ${action}`);
  }
  throw new Error('too many redirects');
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface Metadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  jwks_uri: string;
  revocation_endpoint: string;
  [k: string]: unknown;
}

export async function json(res: Response) {
  const text = await res.text();
  try {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary JSON shapes
    return JSON.parse(text) as any;
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
}

/** The pieces of one authorization server under test, and its flows. */
export function oauthClient(site: () => string) {
  let meta: Metadata | undefined;
  const metadata = async (): Promise<Metadata> =>
    (meta ??= await json(await fetch(`${site()}/.well-known/oauth-authorization-server/auth`)));

  async function register(extra: Record<string, unknown> = {}) {
    const res = await fetch((await metadata()).registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Test MCP client',
        redirect_uris: [REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...extra,
      }),
    });
    return { status: res.status, body: await json(res) };
  }

  async function authorizationUrl(
    clientId: string,
    params: Record<string, string | undefined> = {},
  ): Promise<{ url: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const u = new URL((await metadata()).authorization_endpoint);
    const all: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'mcp',
      state: 'st-123',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: `${site()}/mcp`,
      ...params,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) u.searchParams.set(k, v);
    return { url: u.href, verifier };
  }

  async function token(form: Record<string, string>) {
    const res = await fetch((await metadata()).token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, body: await json(res) };
  }

  /** Registration → authorization (sign-in, consent) → code exchange. */
  async function obtainTokens(params: Record<string, string | undefined> = {}) {
    const reg = await register();
    expect(reg.status, JSON.stringify(reg.body)).toBe(201);
    const clientId = reg.body.client_id as string;
    const { url, verifier } = await authorizationUrl(clientId, params);
    const flow = await browse(new Browser(), url, {
      login: { email: ADMIN, password: ADMIN_PASSWORD },
    });
    const code = flow.redirect.searchParams.get('code');
    expect(code, flow.redirect.href).toBeTruthy();
    const t = await token({
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
      ...(params.resource !== undefined ? { resource: params.resource } : {}),
    });
    expect(t.status, JSON.stringify(t.body)).toBe(200);
    return { clientId, flow, code: code!, verifier, tokens: t.body };
  }

  return { metadata, register, authorizationUrl, token, obtainTokens };
}
