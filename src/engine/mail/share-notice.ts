// The e-mail telling a member that a dashboard was shared with them (`emailNotif`): who shared
// it, the dashboard's name and the link to its page. Sent with the mailer of invitations.
import { html } from '../../shared/html.js';

export interface ShareNoticeParams {
  to: string;
  sharer: string;
  projectId: string;
  projectLabel: string;
  dashboardName: string;
  /** `{site_url}/api/v1/projects/{p}/app/dashboards/{id}`. */
  dashboardUrl: string;
  loginUrl: string;
}

export interface ShareNoticeMessage {
  subject: string;
  text: string;
  html: string;
}

export function shareNoticeMessage(p: ShareNoticeParams): ShareNoticeMessage {
  const sharer = oneLine(p.sharer);
  const name = oneLine(p.dashboardName);
  const label = oneLine(p.projectLabel);
  return {
    subject: `${sharer} shared the dashboard "${name}" with you`,
    text: [
      'Hello,',
      '',
      `${sharer} shared the dashboard "${name}" of the Ursa project "${label}" (ID ${p.projectId}) with you.`,
      '',
      `Open it: ${p.dashboardUrl}`,
      `(Sign in to Ursa first if you are asked to: ${p.loginUrl})`,
      '',
      `This message was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.`,
      '',
    ].join('\n'),
    // The template tag escapes every interpolated value, so none can be forgotten.
    html: String(html`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p><strong>${sharer}</strong> shared the dashboard <strong>"${name}"</strong> of the Ursa project <strong>"${label}"</strong> (ID <code>${p.projectId}</code>) with you.</p>
<p><a href="${p.dashboardUrl}">Open the dashboard</a> (<a href="${p.loginUrl}">sign in to Ursa</a> first if you are asked to).</p>
<p style="color: #666; font-size: small">This message was sent to ${p.to}. If you weren't expecting it, you can ignore this e-mail.</p>
</body>
</html>
`),
  };
}

// Names end up in the Subject header and in single text lines.
function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
