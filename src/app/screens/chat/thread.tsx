// The turns of a conversation: each question, then its answer, or why it has none.
import type { ComponentChildren } from 'preact';
import { Answer } from './answer';
import type { ChatMessage } from '../../../contract/chat';
import { isFinal } from './types';

export function Turn({ question, children }: { question: string; children?: ComponentChildren }) {
  return (
    <li class="chat-turn">
      <h3 class="chat-q">
        <span class="chat-sr">Question: </span>
        {question}
      </h3>
      {children}
    </li>
  );
}

export function MessageBody({ m }: { m: Pick<ChatMessage, 'status' | 'answer' | 'error'> }) {
  if (m.status === 'OK' && m.answer) return <Answer answer={m.answer} />;
  if (m.status === 'CANCELLED') return <p class="chat-failed">Stopped before it was answered.</p>;
  if (isFinal(m.status))
    return <p class="chat-failed">Not answered{m.error ? `: ${m.error}` : '.'}</p>;
  return <p class="muted">Being answered…</p>;
}
