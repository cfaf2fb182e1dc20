import { html, type Html } from '../../shared/html.js';
import { validFor } from './password-link.js';

/** How the invited person gets in; decided by the identity provider and their account. */
export type InvitationSignIn =
  /** No password yet: a one-time link to set one. */
  | { kind: 'set-password'; url: string; expires: Date }
  /** A password already: sign in, or ask for a new one. */
  | { kind: 'password'; forgotUrl: string }
  /** An external identity provider signs people in; Ursa holds no passwords. */
  | { kind: 'external'; issuer: string };

export interface InvitationParams {
  to: string;
  inviter: string;
  projectId: string;
  projectLabel: string;
  projectUrl: string;
  loginUrl: string;
  signIn: InvitationSignIn;
  /** Display names of the granted levels, e.g. `Admin`, `MD Admin`; empty means plain member. */
  levels: string[];
}

export interface InvitationMessage {
  subject: string;
  text: string;
  html: string;
}

export function invitationMessage(p: InvitationParams): InvitationMessage {
  const inviter = oneLine(p.inviter);
  const label = oneLine(p.projectLabel);
  const access = describeLevels(p.levels);
  return {
    subject: `${inviter} invited you to the Ursa project "${label}"`,
    text: textBody(p, inviter, label, access),
    html: htmlBody(p, inviter, label, access),
  };
}

function textBody(p: InvitationParams, inviter: string, label: string, access: string): string {
  return [
    'Hello,',
    '',
    `${inviter} invited you to the Ursa project "${label}" (ID ${p.projectId}).`,
    `Your access: ${access}.`,
    '',
    ...signInText(p),
    `Open the project: ${p.projectUrl}`,
    '',
    `This invitation was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.`,
    '',
  ].join('\n');
}

function htmlBody(p: InvitationParams, inviter: string, label: string, access: string): string {
  // The kit's template tag escapes every interpolated value, so none can be forgotten.
  return String(html`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p><strong>${inviter}</strong> invited you to the Ursa project <strong>"${label}"</strong> (ID <code>${p.projectId}</code>).</p>
<p>Your access: ${access}.</p>
${signInHtml(p)}
<p style="color: #666; font-size: small">This invitation was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.</p>
</body>
</html>
`);
}

function signInText(p: InvitationParams): string[] {
  const s = p.signIn;
  if (s.kind === 'set-password')
    return [
      `You have no Ursa password yet. Choose one with this link; it signs you in and opens the project (it works once and expires in ${validFor(s.expires)}):`,
      s.url,
      '',
      `Later, sign in to Ursa at ${p.loginUrl}`,
    ];
  if (s.kind === 'password')
    return [
      `Sign in to Ursa with your password: ${p.loginUrl}`,
      `Forgot it? Ask for a new one: ${s.forgotUrl}`,
    ];
  return [
    `Sign in with your organization's account at ${s.issuer} (Ursa knows you by this e-mail address).`,
  ];
}

function signInHtml(p: InvitationParams): Html {
  const s = p.signIn;
  const open = html`<p>Then <a href="${p.projectUrl}">open the project</a>.</p>`;
  if (s.kind === 'set-password')
    return html`<p>You have no Ursa password yet. <a href="${s.url}">Choose your password</a>: it signs you in and opens the project (the link works once and expires in ${validFor(s.expires)}).</p><p>Later, <a href="${p.loginUrl}">sign in to Ursa</a> and <a href="${p.projectUrl}">open the project</a>.</p>`;
  if (s.kind === 'password')
    return html`<p><a href="${p.loginUrl}">Sign in to Ursa</a> with your password (<a href="${s.forgotUrl}">forgot it?</a>).</p>${open}`;
  return html`<p>Sign in with your organization's account at <a href="${s.issuer}">${s.issuer}</a> (Ursa knows you by this e-mail address).</p>${open}`;
}

/** "Admin, MD Admin and User Admin", or "member" when no extra level is granted. */
function describeLevels(levels: string[]): string {
  const names = [...new Set(levels.map(oneLine).filter((l) => l !== ''))];
  if (names.length <= 1) return names[0] ?? 'member';
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

// User-supplied names end up in the Subject header and in single text lines.
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
