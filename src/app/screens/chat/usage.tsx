// The project's AI messages over the last 24 hours against the plan's aiMessagesPerDay, from
// GET /projects/{p}/limitadherence, so members see the limit coming before a 402.
import { formatNumber } from '../../format';
import type { Adherence } from '../../../contract/projects';

export type UsageLimit = Adherence['aiMessagesPerDay'];

export function UsageNote({ usage }: { usage: UsageLimit | undefined }) {
  if (!usage) return null;
  const left = Math.max(0, usage.limit - usage.value);
  const level = left === 0 ? 'full' : usage.value >= usage.limit * 0.8 ? 'near' : 'ok';
  return (
    <p class={`chat-usage chat-usage-${level}`} id="chat-usage">
      <span>
        AI messages in this project, last 24 hours:{' '}
        <strong>
          {formatNumber(usage.value)} of {formatNumber(usage.limit)}
        </strong>
      </span>
      <meter min={0} max={usage.limit} value={usage.value} aria-hidden="true" />
      {level === 'full' && (
        <span>
          The plan’s daily limit is reached: new questions are refused until earlier ones are a day
          old.
        </span>
      )}
      {level === 'near' && (
        <span>
          {formatNumber(left)} {left === 1 ? 'question' : 'questions'} left today.
        </span>
      )}
    </p>
  );
}
