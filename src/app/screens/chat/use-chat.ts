// The chat's state over the API: the member's conversations, the open one, the plan usage,
// and the question being answered. Asking POSTs the question, then polls its `ai` job
// (fast at first) for progress until it ends; the conversation is then read again, which
// holds the answer for good.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, get, projectApi } from '../../api';
import { useResource } from '../../data';
import { appPath, navigate } from '../../router';
import { plainText } from './markdown';
import { stepText } from './progress';
import type { Adherence } from '../../../contract/projects';
import type { AiProgress, Asked, Conversation, ConversationSummary } from '../../../contract/chat';
import type { JobStatus } from '../../../contract/jobs';
import { isFinal, linkOf, type AiJob } from './types';

export interface Pending {
  question: string;
  /** Unknown until the API accepted a question that starts a conversation. */
  conversation?: string;
  message?: string;
  /** The job's API path. */
  job?: string;
  status?: JobStatus;
  progress?: AiProgress;
  trail: string[];
  lastStep?: string;
  /** The job once it ended (its result renders until the conversation is read again). */
  final?: AiJob;
}

/** Known for the page's life once the API said it: no AI provider is configured. */
let unavailableMessage: string | null = null;

const asApiError = (e: unknown) => (e instanceof ApiError ? e : new ApiError(0, String(e)));
const enc = encodeURIComponent;

function withProgress(p: Pending, j: AiJob): Pending {
  const next: Pending = { ...p, status: j.status, progress: j.progress ?? p.progress };
  const pr = j.progress;
  if (pr?.tool) {
    const key = `${pr.steps}:${pr.tool}:${pr.queries}`;
    if (key !== p.lastStep) {
      next.lastStep = key;
      next.trail = [...p.trail, stepText(pr)];
    }
  }
  return next;
}

function announcement(j: AiJob): string {
  if (j.status === 'OK' && j.result) {
    const text = plainText(j.result.answer);
    return `Answer: ${text.length > 600 ? `${text.slice(0, 600)}…` : text}`;
  }
  return `The question was not answered: ${j.message ?? j.status.toLowerCase()}`;
}

export function useChat(project: string, id: string | undefined) {
  const base = `${projectApi(project)}/app/ai`;
  const list = useResource<{ conversations: ConversationSummary[]; paging?: { total?: number } }>(
    `${base}/conversations?limit=100`,
  );
  const conv = useResource<{ conversation: Conversation }>(
    id ? `${base}/conversations/${enc(id)}` : null,
  );
  const limits = useResource<Adherence>(`${projectApi(project)}/limitadherence`);
  // Whether the server can answer at all, known before anyone types.
  const status = useResource<{ configured: boolean; message?: string }>(base);
  const [pending, setPending] = useState<Pending | null>(null);
  const [notice, setNotice] = useState<ApiError | null>(null);
  const [unavailable, setUnavailable] = useState(unavailableMessage);
  const [announce, setAnnounce] = useState('');

  // A stale value stays while another conversation loads: show only the one asked for.
  const current = id && conv.value?.conversation.id === id ? conv.value.conversation : undefined;
  const { reload: reloadConv, loading: convLoading } = conv;
  const { reload: reloadList } = list;
  const { reload: reloadLimits } = limits;

  // Messages leave the pending question when a new conversation is opened.
  useEffect(() => {
    setNotice(null);
  }, [id]);

  // A question still being answered when its conversation opens (a reload, another tab).
  useEffect(() => {
    if (pending || !current) return;
    const last = current.messages[current.messages.length - 1];
    const job = last && linkOf(last.link, 'scache');
    if (last && job && !isFinal(last.status))
      setPending({
        question: last.question,
        conversation: current.id,
        message: last.id,
        job,
        status: last.status,
        trail: [],
      });
  }, [pending, current]);

  // Poll the job: every 250 ms for 15 s, then every second.
  const job = pending?.job;
  const ended = !!pending?.final;
  useEffect(() => {
    if (!job || ended) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    const finish = (j: AiJob) => {
      setPending((p) => (p && p.job === job ? { ...withProgress(p, j), final: j } : p));
      setAnnounce(announcement(j));
      reloadList();
      reloadLimits();
    };
    const tick = async () => {
      try {
        const j = await get<AiJob>(job);
        if (!live) return;
        if (isFinal(j.status)) return finish(j);
        setPending((p) => (p && p.job === job ? withProgress(p, j) : p));
      } catch (e) {
        if (!live) return;
        const err = asApiError(e);
        if (err.status === 403 || err.status === 404)
          return finish({ id: '', status: 'ERROR', message: err.message });
      }
      timer = setTimeout(tick, Date.now() - started < 15_000 ? 250 : 1000);
    };
    void tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [job, ended, reloadList, reloadLimits]);

  // Once the job ended, read the conversation again until it holds the answer (its result
  // shows meanwhile); a conversation left or deleted meanwhile just lets it go.
  const tries = useRef(0);
  useEffect(() => {
    if (!pending?.final) {
      tries.current = 0;
      return;
    }
    if (pending.conversation !== id || conv.error) return setPending(null);
    if (convLoading) return;
    const m = current?.messages.find((x) => x.id === pending.message);
    if ((m && isFinal(m.status)) || tries.current >= 20) return setPending(null);
    const t = setTimeout(
      () => {
        tries.current++;
        reloadConv();
      },
      tries.current ? 300 : 0,
    );
    return () => clearTimeout(t);
  }, [pending, current, convLoading, conv.error, id, reloadConv]);

  const ask = useCallback(
    async (question: string): Promise<boolean> => {
      setNotice(null);
      setAnnounce('');
      setPending({ question, conversation: id, trail: [] });
      const from = location.pathname;
      try {
        const r = await api<Asked>('POST', `${base}/messages`, {
          question,
          ...(id ? { conversation: id } : {}),
        });
        setPending((p) => ({
          ...(p ?? { question, trail: [] }),
          conversation: r.conversation,
          message: r.message,
          job: linkOf(r.link, 'scache'),
          status: 'PREPARED',
        }));
        // A new conversation gets its address (unless the member went elsewhere meanwhile).
        if (!id && location.pathname === from)
          navigate(appPath('p', project, 'chat', r.conversation));
        reloadList();
        reloadLimits();
        return true;
      } catch (e) {
        setPending(null);
        const err = asApiError(e);
        if (err.status === 503 && !err.context.starting) {
          unavailableMessage = err.message;
          setUnavailable(err.message);
        } else setNotice(err);
        if (err.status === 402) reloadLimits();
        return false;
      }
    },
    [base, id, project, reloadList, reloadLimits],
  );

  const stop = useCallback(async () => {
    if (!job) return;
    try {
      await api('POST', `${job}/cancel`);
    } catch (e) {
      // Already finished: the next poll shows how.
      if (asApiError(e).status !== 409) setNotice(asApiError(e));
    }
  }, [job]);

  const remove = useCallback(
    async (c: ConversationSummary) => {
      if (!confirm(`Delete the conversation “${c.title}” with its questions and answers?`)) return;
      try {
        await api('DELETE', `${base}/conversations/${enc(c.id)}`);
      } catch (e) {
        setNotice(asApiError(e));
        return;
      }
      setPending((p) => (p?.conversation === c.id ? null : p));
      setAnnounce(`Deleted the conversation “${c.title}”.`);
      if (c.id === id) navigate(appPath('p', project, 'chat'), true);
      reloadList();
    },
    [base, id, project, reloadList],
  );

  const notConfigured =
    status.value && !status.value.configured ? (status.value.message ?? 'not configured') : null;
  return {
    list,
    conv,
    current,
    usage: limits.value?.aiMessagesPerDay,
    pending,
    notice,
    unavailable: unavailable ?? notConfigured,
    announce,
    ask,
    stop,
    remove,
  };
}
