// AI chat: ask (→ an `ai` job), conversations (list, read, delete) and a message's chart.
import type { Asked, ChatMessage, Conversation } from '../../contract/chat.js';
import type { ConversationView, MessageView } from '../../engine/ai/conversations.js';
import { jsonAnswer } from '../../engine/ai/json-answer.js';
import { pagingSchema, parseInput } from '../../engine/validate.js';
import { HttpError } from '../../http/errors.js';
import { enc, link, paging, projectPath } from '../../http/links.js';
import type { RouteDef } from '../../http/router.js';
import { addJobLinks, jobPath, jobStarted } from './jobs.js';

const aiPath = (projectId: string) => `${projectPath(projectId)}/app/ai`;
const conversationPath = (projectId: string, id: string) =>
  `${aiPath(projectId)}/conversations/${enc(id)}`;
const chartPath = (projectId: string, conversation: string, message: string) =>
  `${conversationPath(projectId, conversation)}/messages/${enc(message)}/chart`;

addJobLinks((job) => {
  const p = job.params as { conversation?: string };
  return job.type === 'ai' && p.conversation
    ? [
        link('conversation', conversationPath(job.projectId, p.conversation), {
          id: p.conversation,
        }),
      ]
    : [];
});

function messageView(projectId: string, conversation: string, m: MessageView): ChatMessage {
  return {
    ...m,
    ...(m.answer ? { answer: jsonAnswer(m.answer) } : {}),
    link: [
      link('scache', jobPath(projectId, m.jobId), { id: m.jobId }),
      ...(m.answer?.chart
        ? [link('chart', chartPath(projectId, conversation, m.id), { id: m.id })]
        : []),
    ],
  };
}

function conversationView(projectId: string, c: ConversationView): Conversation {
  return {
    ...c,
    messages: c.messages.map((m) => messageView(projectId, c.id, m)),
    link: [link('self', conversationPath(projectId, c.id), { id: c.id })],
  };
}

export const aiRoutes: RouteDef[] = [
  {
    group: 'AI chat',
    path: '/projects/:project/app/ai',
    ops: {
      GET: {
        access: 'member',
        description:
          'Whether the chat can answer here: `{ configured: true }`, or `{ configured: false, message, configure }` when no AI provider is configured (asking would answer 503).',
        handler: ({ engine, actor }) => ({
          title: 'AI chat',
          body: {
            ...engine.ai.status(),
            link: [
              link('messages', `${aiPath(actor.projectId)}/messages`),
              link('conversations', `${aiPath(actor.projectId)}/conversations`),
            ],
          },
        }),
      },
    },
  },
  {
    group: 'AI chat',
    path: '/projects/:project/app/ai/messages',
    ops: {
      POST: {
        access: 'member',
        description:
          'Ask `{ question, conversation? }` → 202 with links `scache` (the `ai` job; its result is the answer) and `conversation`. 503 when no AI provider is configured, 402 over the plan’s AI messages per day.',
        handler: async ({ engine, actor, body }) => {
          const r = await engine.ai.ask(actor, body);
          const started = jobStarted(r.job);
          return {
            ...started,
            title: 'Question asked',
            body: {
              link: [
                ...started.body.link,
                link('conversation', conversationPath(actor.projectId, r.conversation), {
                  id: r.conversation,
                }),
              ],
              conversation: r.conversation,
              message: r.message,
            } satisfies Asked,
          };
        },
      },
    },
  },
  {
    group: 'AI chat',
    path: '/projects/:project/app/ai/conversations',
    ops: {
      GET: {
        access: 'member',
        description: 'Your conversations, most recently active first (`limit`, `offset`).',
        handler: async ({ engine, actor, query }) => {
          const page = parseInput(pagingSchema, query, 'paging');
          const { items, total } = await engine.ai.list(actor, page);
          return {
            title: 'Conversations',
            body: {
              conversations: items.map((c) => ({
                ...c,
                link: [link('self', conversationPath(actor.projectId, c.id), { id: c.id })],
              })),
              paging: paging(`${aiPath(actor.projectId)}/conversations`, page, total),
            },
            tabular: items,
            filename: 'conversations',
          };
        },
      },
    },
  },
  {
    group: 'AI chat',
    path: '/projects/:project/app/ai/conversations/:conversationId',
    ops: {
      GET: {
        access: 'member',
        description:
          'One of your conversations: its messages with status, answer (Markdown), queries with their results, chart and token usage.',
        handler: async ({ engine, actor, params }) => ({
          title: 'Conversation',
          body: {
            conversation: conversationView(
              actor.projectId,
              await engine.ai.get(actor, params.conversationId!),
            ),
          },
        }),
      },
      DELETE: {
        access: 'member',
        description:
          'Delete a conversation and its answers (a question still being answered is cancelled).',
        handler: async ({ engine, actor, params }) => {
          await engine.ai.delete(actor, params.conversationId!);
          return { status: 204 };
        },
      },
    },
  },
  {
    group: 'AI chat',
    path: '/projects/:project/app/ai/conversations/:conversationId/messages/:messageId/chart',
    ops: {
      GET: {
        access: 'member',
        description: 'The chart of an answer as SVG (`image/svg+xml`); 404 when it has none.',
        handler: async ({ engine, actor, params, res }) => {
          const c = await engine.ai.get(actor, params.conversationId!);
          const m = c.messages.find((x) => x.id === params.messageId);
          if (!m)
            throw new HttpError(
              404,
              `message "${params.messageId}" not found in this conversation`,
              {
                message: params.messageId,
              },
            );
          const svg = m.answer?.chart?.svg;
          if (!svg)
            throw new HttpError(404, `the answer of message "${m.id}" has no chart`, {
              message: m.id,
              status: m.status,
            });
          // Drawn by ECharts from our own spec; served inert all the same.
          res.setHeader('Content-Type', 'image/svg+xml; charset=utf-8');
          res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('Content-Length', Buffer.byteLength(svg));
          res.status(200).end(svg);
        },
      },
    },
  },
];
