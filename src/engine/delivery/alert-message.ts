// What an alert tells: the e-mail to a member and the webhook's JSON body. Values and names
// are escaped by the template tag (HTML) and put on one line (headers, text).
import { html } from '../../shared/html.js';
import type { AlertCondition } from './types.js';

export interface AlertNotice {
  projectId: string;
  projectLabel: string;
  alert: string;
  alertName: string;
  /** What is watched, as AQL (`SELECT [Cancellation Rate]`). */
  measure: string;
  condition: AlertCondition;
  value: number | null;
  /** For change%: the value it changed from (the previous evaluation's, or period's). */
  previous: number | null;
  /** Where it is seen in the app. */
  link: string;
  time: string;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The condition as words after the value: "is > 5", "changed by more than 10% …", "has no data". */
export function conditionText(c: AlertCondition): string {
  if (c.op === 'nodata') return 'has no data';
  if (c.op !== 'change%') return `is ${c.op} ${c.value}`;
  const against = c.period
    ? `against the same days of the previous ${c.period.grain}`
    : 'since the previous check';
  return `changed by more than ${c.value}% ${against}`;
}

/** What the notice says happened: "is 12 (was 10), which …" or "has no data". */
function what(n: AlertNotice): string {
  if (n.condition.op === 'nodata') return 'has no data';
  const was = n.previous !== null && n.condition.op === 'change%' ? ` (was ${n.previous})` : '';
  return `is ${n.value}${was}: it ${conditionText(n.condition)}`;
}

export function alertMail(n: AlertNotice, to: string) {
  const name = oneLine(n.alertName);
  const label = oneLine(n.projectLabel);
  const said = what(n);
  const headline =
    n.condition.op === 'nodata' ? 'no data' : `${n.value} ${conditionText(n.condition)}`;
  return {
    subject: `Alert "${name}": ${headline}`,
    text: [
      'Hello,',
      '',
      `The alert "${name}" of the Ursa project "${label}" fired: ${oneLine(n.measure)} ${said}.`,
      '',
      `Open the project: ${n.link}`,
      '',
      `You get this once until the condition clears. This message was sent to ${to}.`,
      '',
    ].join('\n'),
    html: String(html`<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5">
<p>Hello,</p>
<p>The alert <strong>"${name}"</strong> of the Ursa project <strong>"${label}"</strong> fired: <code>${oneLine(n.measure)}</code> ${said}.</p>
<p><a href="${n.link}">Open the project</a></p>
<p style="color: #666; font-size: small">You get this once until the condition clears. This message was sent to ${to}.</p>
</body>
</html>
`),
  };
}

export function alertWebhookBody(n: AlertNotice) {
  return {
    event: 'alert.fired',
    project: n.projectId,
    alert: n.alert,
    name: n.alertName,
    measure: n.measure,
    condition: n.condition,
    value: n.value,
    previous: n.previous,
    link: n.link,
    time: n.time,
  };
}
