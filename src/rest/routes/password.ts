// /auth/password/forgot and /auth/password/set: the pages a browser uses and the same actions
// as JSON for integrations. The engine (src/engine/users/password-links.ts) decides; this file
// picks HTML or JSON and sets the headers of our pages. Setting a password signs the browser
// in, with the session cookie of /auth/login, and the form leads into the app (`next`).
import type { Request, Response } from 'express';
import { z } from 'zod';
import { EngineError } from '../../engine/errors.js';
import { validFor } from '../../engine/mail/password-link.js';
import { MIN_PASSWORD_LENGTH } from '../../engine/users/accounts.js';
import { parseInput } from '../../engine/validate.js';
import { HttpError, STATUS_OF } from '../../http/errors.js';
import {
  forgotPage,
  forgotSentPage,
  linkProblemPage,
  setPasswordPage,
  type Page,
} from '../pages/password.js';
import type { Ctx, RouteDef } from '../../http/router.js';
import { sendPage as sendWebPage } from '../../web/page.js';
import { appNext, authPage, sessionCookie } from './identity.js';

const forgotSchema = z.object({ email: z.string().min(1).max(254) });
const setSchema = z.object({
  token: z.string().min(1).max(200),
  password: z.string(),
  /** The form's second field; JSON clients may leave it out. */
  confirm: z.string().optional(),
  /** Where the form leads once the password is set: an app path (anything else is /app). */
  next: z.string().max(2000).optional(),
});

// The set-password URL carries the token: never send it on as a Referer, never cache it.
const PAGE_HEADERS = { 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };

function sendPage(res: Response, status: number, page: Page, headers: Record<string, string> = {}) {
  sendWebPage(res, status, authPage(page.title, page.body), { ...PAGE_HEADERS, ...headers });
}

function wantsJson(req: Request): boolean {
  return (
    (req.headers['content-type'] ?? '').includes('json') ||
    (req.headers.accept ?? '').startsWith('application/json')
  );
}

/** The client's address as this server sees it (behind a proxy: the proxy's). */
const clientAddress = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

/** An engine refusal about the link (unknown, expired, used, external provider) as a page. */
function linkProblem(res: Response, err: unknown): void {
  if (!(err instanceof EngineError) || !['not_found', 'gone'].includes(err.kind)) throw err;
  sendPage(res, STATUS_OF[err.kind], linkProblemPage(err.message, !('issuer' in err.context)));
}

function sentMessage(ttlHours: number): string {
  const lifetime = validFor(new Date(Date.now() + ttlHours * 3_600_000));
  return `If that address belongs to an Ursa account, a link to choose its password is on its way. It works once and expires in ${lifetime}.`;
}

async function forgot({ engine, req, res, body }: Ctx): Promise<void> {
  const json = wantsJson(req);
  const input = parseInput(forgotSchema, body ?? {}, 'password request');
  let decision;
  try {
    decision = await engine.passwordLinks.requestReset(input.email, clientAddress(req));
  } catch (err) {
    if (json || !(err instanceof EngineError)) throw err;
    if (err.kind !== 'invalid') return linkProblem(res, err);
    return sendPage(res, 400, forgotPage({ error: err.message, email: input.email }));
  }
  if (!decision.ok) {
    const retry = String(decision.retryAfterSeconds);
    const message = `too many password requests from this address or for this account; retry in ${retry} s`;
    if (!json)
      return sendPage(res, 429, forgotPage({ error: message, email: input.email }), {
        'Retry-After': retry,
      });
    throw new HttpError(
      429,
      message,
      { retryAfter: decision.retryAfterSeconds },
      {
        'Retry-After': retry,
      },
    );
  }
  // Identical for every e-mail: whether it is an account shows nowhere.
  const message = sentMessage(engine.passwordLinks.ttlHours);
  if (json) res.status(202).set('Cache-Control', 'no-store').json({ message });
  else sendPage(res, 200, forgotSentPage(message));
}

async function showSetForm({ engine, req, res, query }: Ctx): Promise<void> {
  const token = typeof query.token === 'string' ? query.token : '';
  if (wantsJson(req)) {
    const link = await engine.passwordLinks.inspect(token);
    res
      .status(200)
      .set('Cache-Control', 'no-store')
      .json({ user: link.email, purpose: link.purpose, expires: link.expires });
    return;
  }
  try {
    const link = await engine.passwordLinks.inspect(token);
    sendPage(
      res,
      200,
      setPasswordPage({
        token,
        email: link.email,
        purpose: link.purpose,
        minLength: MIN_PASSWORD_LENGTH,
        next: appNext(query.next),
      }),
    );
  } catch (err) {
    linkProblem(res, err);
  }
}

async function setPassword({ engine, req, res, body }: Ctx): Promise<void> {
  const json = wantsJson(req);
  const input = parseInput(setSchema, body ?? {}, 'new password');
  try {
    if (input.confirm !== undefined && input.confirm !== input.password)
      throw new EngineError('invalid', 'the two passwords differ; type the same one twice', {
        field: 'confirm',
      });
    const { email } = await engine.passwordLinks.setPassword(input.token, input.password);
    // Setting the password ended every session of the account; this browser gets a new one.
    const session = await engine.startSession(email);
    res.setHeader('Set-Cookie', sessionCookie(engine, session.id));
    res.set('Cache-Control', 'no-store');
    if (json) res.status(200).json({ user: email, expires: session.expires.toISOString() });
    else res.redirect(303, appNext(input.next));
  } catch (err) {
    if (json || !(err instanceof EngineError)) throw err;
    if (err.kind !== 'invalid') return linkProblem(res, err);
    // A refused password: the form again, with the reason.
    try {
      const link = await engine.passwordLinks.inspect(input.token);
      sendPage(
        res,
        400,
        setPasswordPage({
          token: input.token,
          email: link.email,
          purpose: link.purpose,
          minLength: MIN_PASSWORD_LENGTH,
          next: appNext(input.next),
          error: err.message,
        }),
      );
    } catch (linkErr) {
      linkProblem(res, linkErr);
    }
  }
}

export const passwordRoutes: RouteDef[] = [
  {
    group: 'Identity',
    path: '/password/forgot',
    ops: {
      GET: {
        access: 'public',
        description: 'Form asking for the e-mail of an account that forgot its password.',
        handler: ({ engine, res }) => {
          try {
            engine.passwordLinks.requireBuiltin();
          } catch (err) {
            return linkProblem(res, err);
          }
          sendPage(res, 200, forgotPage());
        },
      },
      POST: {
        access: 'public',
        description:
          '`email` (form or JSON): mails a one-time link to set the password when it is an account; the same answer either way (JSON: 202 `{ message }`); rate-limited (429 with Retry-After).',
        handler: forgot,
      },
    },
  },
  {
    group: 'Identity',
    path: '/password/set',
    ops: {
      GET: {
        access: 'public',
        description:
          '`token`, `next` (an /app path): the form to choose a password (JSON: `{ user, purpose, expires }`); 404 unknown link, 410 expired or used.',
        handler: showSetForm,
      },
      POST: {
        access: 'public',
        description:
          "`token`, `password` (and `confirm`, `next` in the form): sets the password once, ends the account's other sessions and signs this browser in (session cookie; form: 303 to `next`, an /app path, else /app; JSON: `{ user, expires }`); 400 when the password breaks the policy.",
        handler: setPassword,
      },
    },
  },
];
