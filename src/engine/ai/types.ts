// What an AI chat message produces: the result of a finished `ai` job, also kept on the
// conversation. Every number in `answer` should come from `queries`.

export interface AiUsage {
  inputTokens: number;
  outputTokens: number;
  /** Set when the provider reported no usage for some call and it was estimated (~4 chars a token). */
  estimated?: true;
}

/** One AQL query the agent ran, with its result table (capped) or its error. */
export interface AiQuery {
  /** "q1", "q2"… in the order run; charts name the query they draw. */
  id: string;
  aql: string;
  /**
   * `kind` tells a measure from a dimension (a year is a number but not a measure), as AQL
   * results do; answers stored before it existed have none. `format` is the display format
   * of the metric a measure column shows, when it has one.
   */
  columns: { title: string; kind?: 'dimension' | 'measure'; dataType: string; format?: string }[];
  rows: string[][];
  totalRows: number;
  /** More rows exist than `rows` holds. */
  truncated: boolean;
  /** Set when the query failed (the agent was told and could retry). */
  error?: string;
}

/** A chart of one query's result: the Vega-Lite spec (data inline) and its SVG rendering. */
export interface AiChart {
  queryId: string;
  spec: Record<string, unknown>;
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

export interface AiAnswer {
  conversation: string;
  message: string;
  question: string;
  /** Markdown. */
  answer: string;
  queries: AiQuery[];
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
