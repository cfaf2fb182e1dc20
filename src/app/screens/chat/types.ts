// The AI chat as the REST API answers it (docs/api.md "AI chat", docs/ai.md): conversations,
// their messages, the `ai` job a question starts and the answer it ends with.

import type { Link } from '../../../contract/links';

export type ApiLink = Link;

export interface ConversationSummary {
  id: string;
  title: string;
  created: string;
  updated: string;
  messages: number;
}

export interface AiQuery {
  id: string;
  aql: string;
  /** `kind` and `format` are absent from answers stored before they existed. */
  columns: { title: string; kind?: 'dimension' | 'measure'; dataType: string; format?: string }[];
  /** Number columns' cells are JSON numbers (null when empty). */
  rows: (string | number | null)[][];
  totalRows: number;
  truncated: boolean;
  error?: string;
}

export interface AiChart {
  queryId: string;
  spec: Record<string, unknown>;
  svg: string;
}

export interface AiLink {
  kind: string;
  ident: string;
  name: string;
  url: string;
}

/** A finished question's answer (the job's result; on a message without its ids). */
export interface AiAnswer {
  answer: string;
  queries: AiQuery[];
  chart: AiChart | null;
  links?: AiLink[];
  usage?: { inputTokens: number; outputTokens: number };
  steps?: number;
  complete?: boolean;
  unverifiedNumbers?: string[];
}

export interface Message {
  id: string;
  question: string;
  status: string;
  jobId: string;
  created: string;
  finished?: string;
  answer?: AiAnswer;
  error?: string;
  link: ApiLink[];
}

export interface Conversation {
  id: string;
  title: string;
  created: string;
  updated: string;
  messages: Message[];
}

/** What an `ai` job shows while it runs. */
export interface AiProgress {
  steps?: number;
  inputTokens?: number;
  outputTokens?: number;
  queries?: number;
  tool?: string | null;
  /** The tool call under way (and its AQL): the query being run. */
  running?: { tool: string; aql?: string } | null;
}

export interface AiJob {
  id: string;
  status: string;
  message?: string;
  progress?: AiProgress;
  result?: AiAnswer;
}

/** The 202 answer to a question. */
export interface Asked {
  link: ApiLink[];
  conversation: string;
  message: string;
}

export const FINAL = ['OK', 'ERROR', 'CANCELLED'];
export const isFinal = (status: string | undefined) => !!status && FINAL.includes(status);

export const linkOf = (links: ApiLink[] | undefined, rel: string) =>
  links?.find((l) => l.rel === rel)?.href;
