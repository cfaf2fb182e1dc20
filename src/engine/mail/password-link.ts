// The "set your password" e-mail of the forgot-password flow, and how a link's lifetime reads.
import { html } from '../../shared/html.js';

export interface PasswordLinkParams {
  to: string;
  url: string;
  expires: Date;
  loginUrl: string;
}

export function passwordLinkMessage(p: PasswordLinkParams): {
  subject: string;
  text: string;
  html: string;
} {
  const lifetime = validFor(p.expires);
  return {
    subject: 'Set your Ursa password',
    text: [
      'Hello,',
      '',
      `Someone (hopefully you) asked to set the password of the Ursa account ${p.to}.`,
      `Choose a new password with this link (it works once and expires in ${lifetime}):`,
      p.url,
      '',
      `Then sign in: ${p.loginUrl}`,
      '',
      "If you didn't ask, ignore this e-mail: your password stays as it is.",
      '',
    ].join('\n'),
    html: html`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p>Someone (hopefully you) asked to set the password of the Ursa account <strong>${p.to}</strong>.</p>
<p><a href="${p.url}">Choose a new password</a> (the link works once and expires in ${lifetime}), then <a href="${p.loginUrl}">sign in</a>.</p>
<p style="color: #666; font-size: small">If you didn't ask, ignore this e-mail: your password stays as it is.</p>
</body>
</html>
`.toString(),
  };
}

/** "7 days", "1 day", "36 hours", "1 hour", "30 minutes": the time left until `expires`. */
export function validFor(expires: Date, now = Date.now()): string {
  const minutes = Math.max(1, Math.round((expires.getTime() - now) / 60_000));
  if (minutes % 1440 === 0) return plural(minutes / 1440, 'day');
  if (minutes % 60 === 0) return plural(minutes / 60, 'hour');
  return plural(minutes, 'minute');
}

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
