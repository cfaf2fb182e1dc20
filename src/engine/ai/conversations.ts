// AI chat conversations and their messages in the metadata DB. A conversation belongs to the
// member who started it: others (Admins included) never see it.
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { ProjectActor } from '../access/actor.js';
import { type Db, first, tx, tablesOf, type Tables } from '../db/index.js';
import { notFound } from '../errors.js';
import { nowIso, uuid } from '../ids.js';
import { FINAL_STATUSES, type Job, type JobStatus } from '../jobs/jobs.js';
import type { AiAnswer } from './types.js';
import type { ChatMessage, Conversation, ConversationSummary } from '../../contract/chat.js';

export type { ConversationSummary };

/** A message as stored (text cells), before the door adds its links. */
export type MessageView = Omit<ChatMessage<string>, 'link'>;

export type ConversationView = Omit<Conversation<string>, 'messages' | 'link'> & {
  messages: MessageView[];
};

/** A message with its job's live status (a job ended by a restart never ran its listener). */
type MessageRow = Tables['aiMessages']['$inferSelect'] & { jobMessage: string | null };

const TITLE_CHARS = 80;

function titleOf(question: string): string {
  const oneLine = question.replace(/\s+/g, ' ').trim();
  return oneLine.length > TITLE_CHARS ? `${oneLine.slice(0, TITLE_CHARS - 1)}…` : oneLine;
}

function toMessage(r: MessageRow): MessageView {
  let answer: MessageView['answer'];
  if (r.answer) {
    const { conversation: _c, message: _m, question: _q, ...rest } = r.answer as AiAnswer;
    answer = rest;
  }
  return {
    id: r.id,
    question: r.question,
    status: r.status as JobStatus,
    jobId: r.jobId,
    created: r.created,
    ...(r.finished ? { finished: r.finished } : {}),
    ...(answer ? { answer } : {}),
    ...(r.status !== 'OK' && (r.error ?? r.jobMessage)
      ? { error: (r.error ?? r.jobMessage)! }
      : {}),
  };
}

export class Conversations {
  constructor(private readonly db: Db) {}

  private async own(a: ProjectActor, id: string) {
    const { aiConversations } = tablesOf(this.db);
    const row = await this.db
      .select()
      .from(aiConversations)
      .where(
        and(
          eq(aiConversations.id, id),
          eq(aiConversations.projectId, a.projectId),
          eq(aiConversations.owner, a.email),
        ),
      )
      .then(first);
    if (!row)
      throw notFound(`conversation "${id}" not found in project "${a.projectId}"`, {
        conversation: id,
      });
    return row;
  }

  /**
   * The conversation's messages, oldest first. A message is settled (settle()) just after its
   * job ends: in between, the job's status and answer are the message's, so a reader never sees
   * "OK" without the answer.
   */
  async messages(conversationId: string): Promise<MessageRow[]> {
    const { aiMessages, jobs } = tablesOf(this.db);
    return (
      await this.db
        .select({
          m: aiMessages,
          status: jobs.status,
          jobMessage: jobs.message,
          jobAnswer:
            sql<unknown>`case when ${aiMessages.answer} is null and ${jobs.status} = 'OK' then ${jobs.result} end`.mapWith(
              jobs.result,
            ),
        })
        .from(aiMessages)
        .leftJoin(jobs, eq(jobs.id, aiMessages.jobId))
        .where(eq(aiMessages.conversationId, conversationId))
        .orderBy(asc(aiMessages.seq))
    ).map(({ m, status, jobMessage, jobAnswer }) => ({
      ...m,
      status: status ?? m.status,
      answer: m.answer ?? jobAnswer ?? null,
      jobMessage,
    }));
  }

  /** A message still being answered, if any (a conversation answers one question at a time). */
  async pending(a: ProjectActor, conversationId: string): Promise<MessageRow | undefined> {
    await this.own(a, conversationId);
    return (await this.messages(conversationId)).find(
      (m) => !FINAL_STATUSES.includes(m.status as JobStatus),
    );
  }

  /**
   * Adds a question (to a new conversation unless one is given) and its job, in one
   * transaction: `submit` creates the job from the ids.
   */
  add(
    a: ProjectActor,
    question: string,
    conversationId: string | undefined,
    submit: (ids: { conversation: string; message: string }) => Promise<Job>,
  ): Promise<{ job: Job; conversation: string; message: string }> {
    const { aiConversations, aiMessages } = tablesOf(this.db);
    return tx(this.db, async () => {
      const now = nowIso();
      let conversation = conversationId;
      if (conversation) {
        await this.own(a, conversation);
        await this.db
          .update(aiConversations)
          .set({ updated: now })
          .where(eq(aiConversations.id, conversation));
      } else {
        conversation = uuid();
        await this.db.insert(aiConversations).values({
          id: conversation,
          projectId: a.projectId,
          owner: a.email,
          title: titleOf(question),
          created: now,
          updated: now,
        });
      }
      const seq =
        ((
          await this.db
            .select({ n: sql<number>`max(${aiMessages.seq})`.mapWith(Number) })
            .from(aiMessages)
            .where(eq(aiMessages.conversationId, conversation))
            .then(first)
        )?.n ?? 0) + 1;
      const message = uuid();
      const job = await submit({ conversation, message });
      await this.db.insert(aiMessages).values({
        id: message,
        conversationId: conversation,
        seq,
        jobId: job.id,
        question,
        status: job.status,
        created: now,
      });
      return { job, conversation, message };
    });
  }

  /** Stores how a message's job ended. False when the message no longer exists. */
  async settle(job: Job): Promise<boolean> {
    const { aiMessages, aiConversations } = tablesOf(this.db);
    const p = job.params as { message?: string; conversation?: string };
    if (!p.message) return false;
    const r = await this.db
      .update(aiMessages)
      .set({
        status: job.status,
        answer: job.status === 'OK' ? (job.result ?? null) : null,
        error: job.status === 'OK' ? null : (job.message ?? null),
        finished: job.finished ?? nowIso(),
      })
      .where(eq(aiMessages.id, p.message))
      .returning({ id: aiMessages.id });
    if (r.length && p.conversation)
      await this.db
        .update(aiConversations)
        .set({ updated: nowIso() })
        .where(eq(aiConversations.id, p.conversation));
    return r.length > 0;
  }

  async question(messageId: string): Promise<Tables['aiMessages']['$inferSelect'] | undefined> {
    const { aiMessages } = tablesOf(this.db);
    return this.db.select().from(aiMessages).where(eq(aiMessages.id, messageId)).then(first);
  }

  async list(
    a: ProjectActor,
    page: { limit: number; offset: number },
  ): Promise<{ items: ConversationSummary[]; total: number }> {
    const { aiConversations } = tablesOf(this.db);
    const where = and(
      eq(aiConversations.projectId, a.projectId),
      eq(aiConversations.owner, a.email),
    );
    const rows = await this.db
      .select({
        id: aiConversations.id,
        title: aiConversations.title,
        created: aiConversations.created,
        updated: aiConversations.updated,
        messages:
          sql<number>`(select count(*) from ai_messages m where m.conversation_id = ai_conversations.id)`.mapWith(
            Number,
          ),
      })
      .from(aiConversations)
      .where(where)
      .orderBy(desc(aiConversations.updated), desc(aiConversations.id))
      .limit(page.limit)
      .offset(page.offset);
    const total =
      (
        await this.db
          .select({ n: sql<number>`count(*)`.mapWith(Number) })
          .from(aiConversations)
          .where(where)
          .then(first)
      )?.n ?? 0;
    return { items: rows, total };
  }

  async get(a: ProjectActor, id: string): Promise<ConversationView> {
    const c = await this.own(a, id);
    return {
      id: c.id,
      title: c.title,
      created: c.created,
      updated: c.updated,
      messages: (await this.messages(id)).map(toMessage),
    };
  }

  /**
   * Deletes a conversation and its messages, and clears the answers its jobs hold (the jobs
   * stay: they are the record of AI usage). Returns the jobs of messages still unanswered.
   */
  async delete(a: ProjectActor, id: string): Promise<string[]> {
    const { jobs, aiConversations } = tablesOf(this.db);
    await this.own(a, id);
    return tx(this.db, async () => {
      const msgs = await this.messages(id);
      const jobIds = msgs.map((m) => m.jobId);
      if (jobIds.length)
        await this.db.update(jobs).set({ result: null }).where(inArray(jobs.id, jobIds));
      await this.db.delete(aiConversations).where(eq(aiConversations.id, id));
      return msgs
        .filter((m) => !FINAL_STATUSES.includes(m.status as JobStatus))
        .map((m) => m.jobId);
    });
  }

  /** Clears the answer a job holds (its message was deleted while it ran). */
  async scrubJob(jobId: string): Promise<void> {
    const { jobs } = tablesOf(this.db);
    await this.db.update(jobs).set({ result: null }).where(eq(jobs.id, jobId));
  }
}
