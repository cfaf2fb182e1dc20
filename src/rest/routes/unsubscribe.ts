// The unsubscribe link of a subscription e-mail (docs/delivery.md): no sign-in, the signed
// token is the proof. GET shows what it would do (link checkers and mail scanners fetch links:
// a GET changes nothing); POST does it — the page's button, or a mail client's RFC 8058
// one-click POST (`List-Unsubscribe=One-Click`). JSON for integrations.
import type { Request, Response } from 'express';
import { html } from '../../shared/html.js';
import type { RouteDef } from '../../http/router.js';
import { sendPage } from '../../web/page.js';
import { authPage } from './identity.js';

// The URL carries the token: never send it on as a Referer, never cache it.
const HEADERS = { 'Referrer-Policy': 'no-referrer', 'Cache-Control': 'no-store' };

const wantsJson = (req: Request) =>
  (req.headers.accept ?? '').startsWith('application/json') ||
  (req.headers['content-type'] ?? '').includes('json');

function page(res: Response, title: string, body: ReturnType<typeof html>) {
  sendPage(res, 200, authPage(title, body), HEADERS);
}

export const unsubscribeRoutes: RouteDef[] = [
  {
    group: 'Delivery',
    path: '/unsubscribe/:token',
    ops: {
      GET: {
        access: 'public',
        description:
          "A subscription e-mail's unsubscribe link (no sign-in): a page asking to confirm (JSON: `{ email, subscription, name, removed: false }`); 400 for a link that is not one.",
        handler: async ({ engine, req, res, params }) => {
          const r = await engine.delivery.unsubscribe(params.token!, false);
          if (wantsJson(req)) return { title: 'Unsubscribe', body: r };
          page(
            res,
            'Unsubscribe',
            html`<h1>Unsubscribe</h1>
<p>Stop sending the dashboard subscription <strong>${r.name}</strong> to <strong>${r.email}</strong>?</p>
<form method="post"><button type="submit">Unsubscribe</button></form>`,
          );
        },
      },
      POST: {
        access: 'public',
        description:
          "Takes the link's address off its subscription (a form, an RFC 8058 one-click POST, or JSON): `{ email, subscription, name, removed }` (`removed: false`: it was not on it any more); a revision of the subscription by that address.",
        handler: async ({ engine, req, res, params }) => {
          const r = await engine.delivery.unsubscribe(params.token!, true);
          if (wantsJson(req) || req.headers['content-type'] === undefined)
            return { title: 'Unsubscribed', body: r };
          page(
            res,
            'Unsubscribed',
            html`<h1>Unsubscribed</h1>
<p><strong>${r.email}</strong> no longer gets <strong>${r.name}</strong>${r.removed ? '' : ' (it was not on it any more)'}.</p>`,
          );
        },
      },
    },
  },
];
