// Chat with the data: the member's conversations, questions and answers with the queries
// behind them and their charts. The address names the open conversation
// (/app/p/{project}/chat/{conversation}); without one, the next question starts a new one.
import { useEffect, useRef } from 'preact/hooks';
import { useProject } from '../../project';
import { appPath, Link } from '../../router';
import { ErrorNote, Loading, Title } from '../../ui';
import { docHref } from '../docs/docs';
import { Composer } from './composer';
import { ConversationList } from './conversations';
import { Progress } from './progress';
import { MessageBody, Turn } from './thread';
import { UsageNote } from './usage';
import { useChat } from './use-chat';
import './chat.css';

/**
 * Said before anyone types when the server has no AI model: a member learns whom to ask and
 * where to ask questions meanwhile; an Admin also reads how to configure one (the API's words).
 */
function NoModel({ reason }: { reason: string }) {
  const project = useProject();
  return (
    <>
      <p>
        <strong>The chat cannot answer here: no AI model is configured on this server.</strong>
      </p>
      <p>
        Meanwhile, ask your questions in{' '}
        <Link href={appPath('p', project.id, 'explore')}>Explore</Link>: pick fields and filters,
        and it shows the table and chart.
      </p>
      {project.access.admin ? (
        <p>
          How to turn the chat on (on the server): {reason}{' '}
          <Link href={docHref('ai.md')}>How to configure the AI chat</Link>
        </p>
      ) : (
        <p>To turn the chat on, ask an Admin of {project.label}: the server needs an AI model.</p>
      )}
    </>
  );
}

export function Chat({ rest }: { rest: string[] }) {
  const project = useProject();
  const id = rest[0];
  const c = useChat(project.id, id);
  const pending = c.pending && c.pending.conversation === id ? c.pending : null;
  const messages = (c.current?.messages ?? []).filter((m) => m.id !== pending?.message);
  const conversations = c.list.value?.conversations;
  const live = useRef<HTMLDivElement>(null);

  // The newest turn in view: on opening a conversation and on asking.
  const shownId = c.current?.id;
  useEffect(() => {
    if (shownId) live.current?.scrollIntoView({ block: 'end' });
  }, [shownId]);
  const asked = pending?.question;
  useEffect(() => {
    if (asked) live.current?.scrollIntoView({ block: 'nearest' });
  }, [asked]);

  const missing = id && c.conv.error;
  return (
    <div class="chat">
      <ConversationList
        project={project.id}
        conversations={conversations}
        total={c.list.value?.paging?.total ?? conversations?.length ?? 0}
        current={id}
        onDelete={(x) => void c.remove(x)}
      />
      <section class="chat-main">
        <Title text={c.current?.title ?? 'Chat'} />
        <UsageNote usage={c.usage} />
        <ErrorNote error={c.list.error} />
        {missing && (
          <>
            <ErrorNote error={c.conv.error} />
            <p>
              <Link href={appPath('p', project.id, 'chat')}>Start a new conversation</Link>
            </p>
          </>
        )}
        {id && !c.current && !missing && <Loading what="the conversation" />}
        {!id && !pending && !c.unavailable && (
          <p class="muted chat-intro">
            Ask about the data of {project.label} in plain language. Every answer shows the queries
            it ran, so each number can be checked.
          </p>
        )}
        {(messages.length > 0 || pending) && (
          <ol class="chat-turns" aria-label="Questions and answers">
            {messages.map((m) => (
              <Turn key={m.id} question={m.question}>
                <MessageBody m={m} />
              </Turn>
            ))}
            {pending && (
              <Turn key={pending.message ?? 'asking'} question={pending.question}>
                {pending.final && (
                  <MessageBody
                    m={{
                      status: pending.final.status,
                      answer: pending.final.result,
                      error: pending.final.message,
                    }}
                  />
                )}
              </Turn>
            )}
          </ol>
        )}
        <div class="chat-live" role="status" aria-live="polite" aria-atomic="false" ref={live}>
          {pending && !pending.final ? (
            <Progress
              status={pending.status}
              progress={pending.progress}
              trail={pending.trail}
              onStop={pending.job ? () => void c.stop() : undefined}
            />
          ) : (
            <span class="chat-sr">{c.announce}</span>
          )}
        </div>
        {c.notice && (
          <p class="error chat-notice" role="alert">
            {c.notice.message}
          </p>
        )}
        {!missing && (
          <Composer
            onAsk={c.ask}
            busy={!!c.pending && !c.pending.final}
            unavailable={c.unavailable && <NoModel reason={c.unavailable} />}
            followUp={!!id}
          />
        )}
      </section>
    </div>
  );
}
