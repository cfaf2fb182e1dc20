// The member's conversations, most recently active first: open one, delete one (after a
// confirmation), or start a new one. Folded on a phone, open on a wider screen.
import { useState } from 'preact/hooks';
import { formatDateTime } from '../../format';
import { appPath, Link } from '../../router';
import type { ConversationSummary } from '../../../contract/chat';

const when = formatDateTime;

export function ConversationList(props: {
  project: string;
  conversations: ConversationSummary[] | undefined;
  total: number;
  current: string | undefined;
  onDelete: (c: ConversationSummary) => void;
}) {
  const [wide] = useState(() => matchMedia('(min-width: 48rem)').matches);
  const list = props.conversations;
  return (
    <aside class="chat-side" aria-label="Conversations">
      <Link
        class="button chat-new"
        href={appPath('p', props.project, 'chat')}
        aria-current={props.current ? undefined : 'page'}
      >
        New conversation
      </Link>
      <details class="chat-convs" open={wide}>
        <summary>Conversations{list ? ` (${props.total})` : ''}</summary>
        {list && list.length === 0 && <p class="muted">No conversations yet.</p>}
        <ul>
          {(list ?? []).map((c) => (
            <li key={c.id} class={c.id === props.current ? 'chat-conv current' : 'chat-conv'}>
              <Link
                href={appPath('p', props.project, 'chat', c.id)}
                aria-current={c.id === props.current ? 'page' : undefined}
              >
                <span class="chat-conv-title">{c.title}</span>
                <span class="muted chat-conv-when">
                  {when(c.updated)} · {c.messages} {c.messages === 1 ? 'question' : 'questions'}
                </span>
              </Link>
              <button
                type="button"
                class="quiet chat-del"
                aria-label={`Delete conversation “${c.title}”`}
                title="Delete"
                onClick={() => props.onDelete(c)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
        {list && props.total > list.length && (
          <p class="muted">
            The {list.length} most recent of {props.total}.
          </p>
        )}
      </details>
    </aside>
  );
}
