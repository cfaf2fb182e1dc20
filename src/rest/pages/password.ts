// The password pages at /auth/password/…: forgot password, set a password from a one-time
// link, and what a dead link says. Bodies only (inside the sign-in look of authPage); every
// value is escaped by the template tag. Sent by src/rest/routes/password.ts.
import { html, type Html } from '../../shared/html.js';

const FORGOT = '/auth/password/forgot';
const SET = '/auth/password/set';

export interface Page {
  title: string;
  body: Html;
}

const errorLine = (error?: string) =>
  error ? html`<p class="error" role="alert">${error}</p>` : html``;

export function forgotPage(opts: { error?: string; email?: string } = {}): Page {
  return {
    title: 'Forgot password',
    body: html`<h1>Forgot your password?</h1>${errorLine(opts.error)}
<p>Enter the e-mail address of your Ursa account. We send it a link to choose a new password.</p>
<form method="post" action="${FORGOT}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<button type="submit">Send the link</button></form>
<p><a href="/auth/login">Back to sign in</a></p>`,
  };
}

/** The same page whether the account exists or not. */
export function forgotSentPage(message: string): Page {
  return {
    title: 'Check your e-mail',
    body: html`<h1>Check your e-mail</h1>
<p>${message}</p>
<p><a href="/auth/login">Back to sign in</a></p>`,
  };
}

export function setPasswordPage(opts: {
  token: string;
  email: string;
  purpose: 'invite' | 'reset';
  minLength: number;
  /** The app path the form leads to once the password is set. */
  next: string;
  error?: string;
}): Page {
  const heading =
    opts.purpose === 'invite' ? 'Welcome to Ursa: choose your password' : 'Choose a new password';
  return {
    title: 'Set your password',
    body: html`<h1>${heading}</h1>${errorLine(opts.error)}
<p>For <strong>${opts.email}</strong>. At least ${String(opts.minLength)} characters. Setting it signs you in to Ursa.</p>
<form method="post" action="${SET}"><input type="hidden" name="token" value="${opts.token}"><input type="hidden" name="next" value="${opts.next}">
<input name="email" type="email" autocomplete="username" value="${opts.email}" readonly hidden>
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${String(opts.minLength)}" required>
<label for="confirm">Repeat it</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${String(opts.minLength)}" required>
<button type="submit">Set password and sign in</button></form>`,
  };
}

/** A link that is unknown, expired or used up, or passwords that live elsewhere. */
export function linkProblemPage(message: string, canAskAgain: boolean): Page {
  const again = canAskAgain ? html`<p><a href="${FORGOT}">Ask for a new link</a></p>` : html``;
  return {
    title: 'Password link',
    body: html`<h1>This link does not work</h1>
<p class="error" role="alert">${message}</p>${again}
<p><a href="/auth/login">Sign in</a></p>`,
  };
}
