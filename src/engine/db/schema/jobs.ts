// Metadata tables, declared once with the column kit (./kit.ts).
// Jobs (queries, loads, exports, flow runs, AI answers) and AI chat conversations.
import { table, text, time, int, bigint, bool, json, index } from './kit.js';
import { projects } from './projects.js';

export const jobs = table(
  'jobs',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    status: text('status').notNull(),
    message: text('message'),
    params: json('params').$type<Record<string, unknown>>().notNull(),
    result: json('result').$type<unknown>(),
    progress: json('progress').$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    created: time('created').notNull(),
    started: time('started'),
    finished: time('finished'),
    /** The process running the job (null: queued, or never claimed). */
    owner: text('owner'),
    /** Until when (epoch ms) the owner's claim holds; its heartbeat renews it. */
    leaseUntil: bigint('lease_until'),
    /** Set by a cancel from any process; the owner aborts the job when it sees it. */
    cancelRequested: bool('cancel_requested').notNull().default(false),
    /** How many times a process claimed it (a query whose process died runs again, once). */
    attempts: int('attempts').notNull().default(0),
  },
  (t) => [
    index('jobs_project_created').on(t.projectId, t.created),
    index('jobs_status').on(t.status),
  ],
);

/** AI chat conversations, private to the member who started them. */
export const aiConversations = table(
  'ai_conversations',
  {
    id: text('id').primaryKey(),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    owner: text('owner').notNull(),
    title: text('title').notNull(),
    created: time('created').notNull(),
    updated: time('updated').notNull(),
  },
  (t) => [index('ai_conversations_owner').on(t.projectId, t.owner, t.updated)],
);

/** One question of a conversation and, once its `ai` job ends, the answer (an AiAnswer). */
export const aiMessages = table(
  'ai_messages',
  {
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => aiConversations.id, { onDelete: 'cascade' }),
    seq: int('seq').notNull(),
    jobId: text('job_id').notNull(),
    question: text('question').notNull(),
    status: text('status').notNull(),
    answer: json('answer').$type<unknown>(),
    error: text('error'),
    created: time('created').notNull(),
    finished: time('finished'),
  },
  (t) => [index('ai_messages_conversation').on(t.conversationId, t.seq)],
);
