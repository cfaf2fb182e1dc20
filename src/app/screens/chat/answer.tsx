// One answer: its Markdown, the chart, the dashboards and reports it links to, the queries
// it ran, and what it cost.
import { formatNumber } from '../../format';
import { Chart } from './chart';
import { Markdown, safeHref } from './markdown';
import { Queries } from './queries';
import type { MessageAnswer } from '../../../contract/chat';

export function Answer({ answer }: { answer: MessageAnswer }) {
  const links = (answer.links ?? []).filter((l) => safeHref(l.url));
  const tokens = answer.usage ? answer.usage.inputTokens + answer.usage.outputTokens : 0;
  return (
    <div class="chat-answer">
      <Markdown text={answer.answer} />
      {answer.complete === false && (
        <p class="chat-note">The agent stopped before finishing: this answer may be incomplete.</p>
      )}
      {answer.chart && <Chart chart={answer.chart} />}
      {links.length > 0 && (
        <ul class="chat-links" aria-label="Dashboards and reports in this answer">
          {links.map((l) => (
            <li key={l.url}>
              <a href={safeHref(l.url)!} target="_blank" rel="noopener noreferrer">
                {l.name}
              </a>{' '}
              <span class="muted">{l.kind}</span>
            </li>
          ))}
        </ul>
      )}
      <Queries queries={answer.queries} />
      {answer.steps !== undefined && (
        <p class="muted chat-meta">
          {answer.steps} {answer.steps === 1 ? 'step' : 'steps'} · {formatNumber(tokens)} tokens
        </p>
      )}
    </div>
  );
}
