// The AI chat as the REST API answers it (docs/api.md "AI chat", docs/ai.md): conversations,
// their messages, the `ai` job a question starts (its progress) and the answer it ends with.
// Answers are stored with text cells (`Cell` = string); what a client reads has a number
// column's cells as JSON numbers (the default, JsonCell).
import type { ChartSpec } from '../shared/chart/spec.js';
import type { JsonCell } from './data.js';
import type { JobStatus } from './jobs.js';
import type { Link } from './links.js';

export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  /** Set when the provider reported no usage for some call and it was estimated (~4 chars a token). */
  estimated?: true;
}

/** One AQL query the agent ran, with its result table (capped) or its error. */
export interface AiQuery<Cell = JsonCell> {
  /** "q1", "q2"… in the order run; charts name the query they draw. */
  id: string;
  aql: string;
  /**
   * `kind` tells a measure from a dimension (a year is a number but not a measure), as AQL
   * results do; answers stored before it existed have none. `format` is the display format
   * of the metric a measure column shows, when it has one.
   */
  columns: { title: string; kind?: 'dimension' | 'measure'; dataType: string; format?: string }[];
  rows: Cell[][];
  totalRows: number;
  /** More rows exist than `rows` holds. */
  truncated: boolean;
  /** Set when the query failed (the agent was told and could retry). */
  error?: string;
}

/** A chart of one query's result: Ursa's chart spec (data inline) and its SVG rendering. */
export interface AiChart {
  queryId: string;
  spec: ChartSpec;
  svg: string;
}

/** A dashboard or report the answer links to, as find_dashboards returned it. */
export interface AiLink {
  kind: 'dashboard' | 'report';
  ident: string;
  name: string;
  /** `{site_url}/api/v1/projects/{project}/app/dashboards/{id}` (or `…/app/reports/{id}`). */
  url: string;
}

/** A finished question's answer: the `ai` job's result. */
export interface AiAnswer<Cell = JsonCell> {
  conversation: string;
  message: string;
  question: string;
  /** Markdown. */
  answer: string;
  queries: AiQuery<Cell>[];
  chart: AiChart | null;
  /** Dashboards and reports linked in `answer`: only URLs a tool returned in this turn. */
  links: AiLink[];
  usage: AiUsage;
  /** Model calls made. */
  steps: number;
  provider: string;
  model: string;
  /** False when the step or token budget ended the work before a final answer. */
  complete: boolean;
  /** Numbers in the answer found in no query result, the question or the conversation. */
  unverifiedNumbers: string[];
}

/** The answer as a message holds it (without the ids the message already gives). */
export type MessageAnswer<Cell = JsonCell> = Omit<
  AiAnswer<Cell>,
  'conversation' | 'message' | 'question'
>;

export interface ChatMessage<Cell = JsonCell> {
  id: string;
  question: string;
  /** The status of its `ai` job. */
  status: JobStatus;
  jobId: string;
  created: string;
  finished?: string;
  /** Present once the job is OK. */
  answer?: MessageAnswer<Cell>;
  /** Why the job ended in ERROR or CANCELLED. */
  error?: string;
  /** `scache` (its job) and, when it drew one, `chart`. */
  link: Link[];
}

/** A conversation in the list of one's conversations. */
export interface ConversationSummary {
  id: string;
  title: string;
  created: string;
  updated: string;
  messages: number;
}

export interface Conversation<Cell = JsonCell> extends Omit<ConversationSummary, 'messages'> {
  messages: ChatMessage<Cell>[];
  link: Link[];
}

/** What an `ai` job shows while it runs (nothing before its first model call). */
export interface AiProgress {
  steps?: number;
  inputTokens?: number;
  outputTokens?: number;
  estimated?: true;
  queries?: number;
  /** The tool last called (null before the first). */
  tool?: string | null;
  /** The tool call under way (and its AQL): the query being run. */
  running?: { tool: string; aql?: string } | null;
}

/** The 202 answer to a question: links `scache` (the `ai` job) and `conversation`. */
export interface Asked {
  link: Link[];
  conversation: string;
  message: string;
}
