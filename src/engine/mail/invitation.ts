export interface InvitationParams {
  to: string;
  inviter: string;
  projectId: string;
  projectLabel: string;
  projectUrl: string;
  loginUrl: string;
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
    `Sign in to Ursa: ${p.loginUrl}`,
    `Open the project: ${p.projectUrl}`,
    '',
    `This invitation was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.`,
    '',
  ].join('\n');
}

function htmlBody(p: InvitationParams, inviter: string, label: string, access: string): string {
  return safeHtml`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p><strong>${inviter}</strong> invited you to the Ursa project <strong>"${label}"</strong> (ID <code>${p.projectId}</code>).</p>
<p>Your access: ${access}.</p>
<p><a href="${p.loginUrl}">Sign in to Ursa</a>, then <a href="${p.projectUrl}">open the project</a>.</p>
<p style="color: #666; font-size: small">This invitation was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.</p>
</body>
</html>
`;
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

/** Template tag that HTML-escapes every interpolated value, so none can be forgotten. */
function safeHtml(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, s, i) => out + escapeHtml(values[i - 1] ?? '') + s);
}

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
