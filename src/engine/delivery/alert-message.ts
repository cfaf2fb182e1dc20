// What an alert tells: the e-mail to a member and the webhook's JSON body. Values and names
// are escaped by the template tag (HTML) and put on one line (headers, text).
import { html } from '../../shared/html.js';

export interface AlertNotice {
  projectId: string;
  projectLabel: string;
  alert: string;
  alertName: string;
  /** What is watched, as AQL (`SELECT [Cancellation Rate]`). */
  measure: string;
  condition: { op: string; value: number };
  value: number | null;
  /** For change%: the value it changed from. */
  previous: number | null;
  /** Where it is seen in the app. */
  link: string;
  time: string;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

export function conditionText(c: { op: string; value: number }): string {
  return c.op === 'change%' ? `changed by more than ${c.value}%` : `${c.op} ${c.value}`;
}

export function alertMail(n: AlertNotice, to: string) {
  const name = oneLine(n.alertName);
  const label = oneLine(n.projectLabel);
  const cond = conditionText(n.condition);
  const was = n.previous !== null && n.condition.op === 'change%' ? ` (was ${n.previous})` : '';
  return {
    subject: `Alert "${name}": ${n.value} ${n.condition.op === 'change%' ? cond : `is ${cond}`}`,
    text: [
      'Hello,',
      '',
      `The alert "${name}" of the Ursa project "${label}" fired: ${oneLine(n.measure)} is ${n.value}${was}, which is ${cond}.`,
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
<p>The alert <strong>"${name}"</strong> of the Ursa project <strong>"${label}"</strong> fired: <code>${oneLine(n.measure)}</code> is <strong>${String(n.value)}</strong>${was}, which is ${cond}.</p>
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
