// What a subscription mails: the dashboard as an inline image (the HTML part shows it by
// `cid:`), the files attached, a link into the app and a signed unsubscribe link (also as
// List-Unsubscribe with RFC 8058 one-click). Names are escaped by the template tag (HTML) and
// put on one line (subject, text).
import { html } from '../../shared/html.js';
import type { MailAttachment, MailMessage } from '../mail/mailer.js';

export interface SubscriptionNotice {
  dashboardName: string;
  projectLabel: string;
  /** The dashboard in the app. */
  link: string;
  /** Works signed out: the recipient's own, for this subscription only. */
  unsubscribe: string;
  /** The filters it was computed with (`Region: West`), none: the dashboard's own. */
  filters: string[];
  /** Who made the subscription. */
  by: string;
  /** The PNG of the dashboard, shown in the body. */
  image: Buffer | null;
  files: MailAttachment[];
  /** Items that could not be computed for this recipient (named, not hidden). */
  problems: string[];
  time: Date;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export const IMAGE_CID = 'dashboard@ursa';

export function subscriptionMail(n: SubscriptionNotice, to: string): Omit<MailMessage, 'to'> {
  const name = oneLine(n.dashboardName);
  const label = oneLine(n.projectLabel);
  const day = n.time.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const filters = n.filters.map(oneLine);
  const why = `You get this because ${oneLine(n.by)} subscribed ${to} to the dashboard "${name}" of the Ursa project "${label}".`;
  const files = n.files.map((f) => f.filename);
  return {
    subject: `${name} — ${day}`,
    text: [
      `${name} (${label}), ${day}`,
      filters.length ? `Filtered by ${filters.join('; ')}.` : '',
      n.problems.length ? `Not shown: ${n.problems.map(oneLine).join('; ')}.` : '',
      files.length ? `Attached: ${files.join(', ')}.` : '',
      '',
      `Open it in Ursa: ${n.link}`,
      '',
      why,
      `Unsubscribe: ${n.unsubscribe}`,
      '',
    ]
      .filter((l, i, all) => l !== '' || all[i - 1] !== '')
      .join('\n'),
    html: String(html`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5; color: #1d2330">
<h1 style="font-size: 20px; margin: 0 0 4px">${name}</h1>
<p style="color: #5f6b7a; margin: 0 0 12px">${label} · ${day}${filters.length ? html` · filtered by ${filters.join('; ')}` : ''}</p>
${n.problems.length ? html`<p style="color: #b3261e">Not shown: ${n.problems.map(oneLine).join('; ')}.</p>` : ''}
${n.image ? html`<p><a href="${n.link}"><img src="cid:${IMAGE_CID}" alt="${name}" style="max-width: 100%; border: 1px solid #dde3ea"></a></p>` : ''}
${files.length ? html`<p>Attached: ${files.join(', ')}.</p>` : ''}
<p><a href="${n.link}">Open it in Ursa</a></p>
<p style="color: #5f6b7a; font-size: small">${why} <a href="${n.unsubscribe}">Unsubscribe</a></p>
</body>
</html>
`),
    attachments: [
      ...(n.image
        ? [
            {
              filename: 'dashboard.png',
              content: n.image,
              contentType: 'image/png',
              cid: IMAGE_CID,
            },
          ]
        : []),
      ...n.files,
    ],
    headers: {
      'List-Unsubscribe': `<${n.unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}

/** A file name for a mail attachment: the title, without what file systems refuse. */
export function attachmentName(title: string, ext: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const base = oneLine(title.replace(/[\x00-\x1f\x7f/\\:*?"<>|]/g, ' ')).slice(0, 120);
  return `${base || 'Dashboard'}.${ext}`;
}
