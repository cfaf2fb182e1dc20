// Where a question is written: a labelled textarea that grows with its text; Enter sends,
// Shift+Enter starts a new line. Disabled (with the API's reason) when the server cannot
// answer at all.
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

export const MAX_QUESTION = 4000;

export function Composer(props: {
  /** Resolves true once the question is accepted (the box empties), false to keep it. */
  onAsk: (question: string) => Promise<boolean>;
  /** A question is being answered: it may be written, not sent. */
  busy: boolean;
  /** Why asking is impossible here (no AI provider configured), and what to do instead. */
  unavailable: ComponentChildren | null;
  followUp: boolean;
}) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  const canSend = !props.busy && !sending && !props.unavailable && text.trim().length > 0;

  const send = async () => {
    if (!canSend) return;
    const question = text.trim();
    setSending(true);
    setText('');
    const ok = await props.onAsk(question);
    setSending(false);
    if (!ok) setText((t) => t || question);
    ref.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
    e.preventDefault();
    void send();
  };

  return (
    <form
      class="chat-compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label for="chat-question">
        {props.followUp ? 'Ask a follow-up question' : 'Ask a question about the data'}
      </label>
      <div class="chat-compose-row">
        <textarea
          id="chat-question"
          ref={ref}
          rows={2}
          maxLength={MAX_QUESTION}
          value={text}
          disabled={!!props.unavailable}
          aria-describedby={props.unavailable ? 'chat-unavailable' : 'chat-hint'}
          placeholder={
            props.followUp ? 'And by month?' : 'Which carrier flew the most passengers in 2024?'
          }
          onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" disabled={!canSend}>
          Send
        </button>
      </div>
      {props.unavailable ? (
        <div class="chat-unavailable" id="chat-unavailable" role="note">
          {props.unavailable}
        </div>
      ) : (
        <p class="muted chat-hint" id="chat-hint">
          Enter sends, Shift+Enter starts a new line.
          {props.busy ? ' You can send once the answer is in.' : ''}
        </p>
      )}
    </form>
  );
}
