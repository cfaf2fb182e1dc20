// The OAuth server's pages at /auth/interaction/{uid}: sign-in (the sign-in page's look; the
// password checked like /auth/login, or an existing `ursa_session` cookie accepted), then a
// consent screen naming the client, the scopes and the resource. Deny answers access_denied.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { errors, type Provider } from 'oidc-provider';
import type { Engine } from '../../engine/engine.js';
import { readCookie, SESSION_COOKIE } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { authPage } from '../routes/identity.js';
import { changesState, refuseCrossSite } from '../../http/same-origin.js';
import { refuseUnstorable } from '../../http/storable.js';
import { clientAddress, SIGN_IN_SCOPE } from '../../http/throttle.js';
import { html, type Html } from '../../shared/html.js';
import { sendPage } from '../../web/page.js';
import { oauthResources } from '../../http/oauth-resources.js';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

interface ConsentDetails {
  missingOIDCScope?: string[];
  missingOIDCClaims?: string[];
  missingResourceScopes?: Record<string, string[]>;
  missingResources?: string[];
}

const SCOPE_TEXT: Record<string, string> = {
  mcp: 'use the MCP server’s tools as you',
  api: 'call the REST API as you',
  openid: 'confirm who you are',
  email: 'see your e-mail address',
  offline_access: 'stay connected when you are away (refresh tokens)',
};

export function interactionRouter(engine: Engine, provider: Provider): Router {
  const router = express.Router();
  // Its forms' fields are checked like every REST body (src/http/storable.ts).
  const form = [
    express.urlencoded({ extended: false, limit: '16kb' }),
    (req: Request, _res: Response, next: NextFunction) => {
      try {
        refuseUnstorable(req.body, 'body');
        next();
      } catch (err) {
        next(err);
      }
    },
  ];
  const resources = () => oauthResources(engine);
  // Its forms sign in and grant access with this browser's cookies: from our pages only.
  router.use((req, _res, next) => {
    if (changesState(req.method)) refuseCrossSite(engine, req);
    next();
  });

  /** The interaction this browser is in, which must be the one in the URL. */
  async function current(req: Request, res: Response, prompt?: string): Promise<Interaction> {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== req.params.uid || (prompt && details.prompt.name !== prompt))
      throw new HttpError(400, 'this page does not belong to the authorization in progress', {});
    return details;
  }

  // Their forms end at the client's redirect URI once the provider is done.
  const page = (res: Response, status: number, title: string, inner: Html) =>
    sendPage(res, status, authPage(title, inner, { formsLeaveSite: true }), {
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
    });

  const loginPage = (res: Response, uid: string, status = 200, error?: string, email = '') =>
    page(
      res,
      status,
      'Sign in',
      html`<h1>Sign in to Ursa</h1>${error && html`<p class="error" role="alert">${error}</p>`}
<p>An application asks to use Ursa as you. Sign in first.</p>
<form method="post" action="/auth/interaction/${uid}/login">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<form method="post" action="/auth/interaction/${uid}/abort"><button type="submit" class="secondary">Cancel</button></form>`,
    );

  async function consentPage(res: Response, details: Interaction): Promise<void> {
    const clientId = String(details.params.client_id);
    const client = await provider.Client.find(clientId);
    const name = client?.clientName ?? clientId;
    const redirect = safeOrigin(details.params.redirect_uri);
    const d = details.prompt.details as ConsentDetails;
    const asked = new Set([
      ...(d.missingResources ?? []),
      ...Object.keys(d.missingResourceScopes ?? {}),
      ...[details.params.resource ?? []].flat().map(String),
    ]);
    const resourceItems = resources()
      .filter((r) => asked.has(r.indicator))
      .map((r) => html`<li>${r.label} (<code>${r.indicator}</code>)</li>`);
    const scopes = String(details.params.scope ?? '')
      .split(' ')
      .filter(Boolean);
    const scopeItems = scopes.map(
      (s) =>
        html`<li><code>${s}</code>: ${SCOPE_TEXT[s] ?? 'a permission Ursa does not describe'}</li>`,
    );
    page(
      res,
      200,
      'Allow access',
      html`<h1>Allow access?</h1>
<p><strong id="client">${name}</strong> (a client that registered itself; Ursa does not vouch for it) asks to act as <strong>${details.session?.accountId ?? ''}</strong>.</p>
<p>Resource:</p><ul id="resources">${resourceItems.length ? resourceItems : html`<li>none</li>`}</ul>
<p>Scopes:</p><ul id="scopes">${scopeItems.length ? scopeItems : html`<li>none requested</li>`}</ul>
${redirect && html`<p>You will return to <code>${redirect}</code>.</p>`}
<form method="post" action="/auth/interaction/${details.uid}/consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`,
    );
  }

  router.get('/:uid', async (req, res) => {
    const details = await current(req, res);
    if (details.prompt.name === 'login') {
      // Already signed in to Ursa in this browser: no password, unless the client insists.
      const forced = details.prompt.reasons.some((r) => r === 'login_prompt' || r === 'max_age');
      const sid = readCookie(req, SESSION_COOKIE);
      const email = !forced && sid ? await engine.sessionUser(sid) : null;
      if (email && (await engine.accounts.exists(email)))
        return provider.interactionFinished(
          req,
          res,
          { login: { accountId: email } },
          { mergeWithLastSubmission: false },
        );
      return loginPage(res, details.uid);
    }
    if (details.prompt.name === 'consent') return consentPage(res, details);
    throw new HttpError(400, `unsupported interaction "${details.prompt.name}"`, {});
  });

  router.post('/:uid/login', ...form, async (req, res) => {
    const details = await current(req, res, 'login');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const email = typeof body.email === 'string' ? body.email.slice(0, 254) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1000) : '';
    const guess = await engine.throttle.guess(SIGN_IN_SCOPE, email.trim(), clientAddress(req));
    if (guess.retryAfter !== null) {
      res.setHeader('Retry-After', String(guess.retryAfter));
      const wait = `Too many failed sign-ins; retry in ${guess.retryAfter} s.`;
      return loginPage(res, details.uid, 429, wait, email);
    }
    const user = email && password ? await engine.accounts.checkPassword(email, password) : null;
    if (!user) return loginPage(res, details.uid, 401, 'Wrong e-mail or password.', email);
    await guess.succeeded();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user } },
      { mergeWithLastSubmission: false },
    );
  });

  router.post('/:uid/consent', ...form, async (req, res) => {
    const details = await current(req, res, 'consent');
    const decision = (req.body as Record<string, unknown> | undefined)?.decision;
    if (decision !== 'allow') return deny(req, res);
    const accountId = details.session?.accountId;
    if (!accountId) throw new HttpError(400, 'nobody is signed in for this authorization', {});
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    if (!grant) throw new HttpError(400, 'the grant of this authorization is gone', {});
    const d = details.prompt.details as ConsentDetails;
    if (d.missingOIDCScope?.length) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    if (d.missingOIDCClaims?.length) grant.addOIDCClaims(d.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    // A resource asked for without any of its scopes is granted with its own scope.
    for (const indicator of d.missingResources ?? []) {
      const r = resources().find((x) => x.indicator === indicator);
      if (r && !grant.resources?.[indicator]) grant.addResourceScope(indicator, r.scope);
    }
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { consent: { grantId } },
      { mergeWithLastSubmission: true },
    );
  });

  router.post('/:uid/abort', async (req, res) => {
    await current(req, res);
    await deny(req, res);
  });

  function deny(req: Request, res: Response) {
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'the user did not allow access' },
      { mergeWithLastSubmission: false },
    );
  }

  // An expired or foreign interaction is the browser's problem, not a server error.
  router.use((err: unknown, _req: Request, _res: Response, next: NextFunction) => {
    if (err instanceof errors.OIDCProviderError)
      return next(
        new HttpError(
          400,
          `this authorization cannot go on (${err.error_description ?? err.message}); start again from the application`,
          { error: err.error },
        ),
      );
    next(err);
  });
  return router;
}

function safeOrigin(uri: unknown): string | undefined {
  try {
    const u = new URL(String(uri));
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : `${u.protocol}…`;
  } catch {
    return undefined;
  }
}
