// Every tool Ursa offers assistants, defined once: name, title, description, which doors carry
// it (the MCP server, the AI chat agent) and its limits. The MCP registrations, the chat
// agent's tool specs and the public server card all read it, so they cannot drift apart.
// Argument schemas live with each door's handler (MCP tools take a project; the chat runs in
// one), and their shared limits are here.

export type Door = 'mcp' | 'chat';

export interface ToolEntry {
  title: string;
  description: string;
  doors: readonly Door[];
  /** Reads only (MCP annotation readOnlyHint). */
  readOnly: boolean;
}

export const TOOLS = {
  list_projects: {
    title: 'List projects',
    description:
      'The projects you can query, with your level in each (mdAdmin may create metrics). Other tools take one of these ids as "project".',
    doors: ['mcp'],
    readOnly: true,
  },
  get_model: {
    title: 'Get the model',
    description:
      'The queryable model: datasets with their attributes, labels and facts (id, title, type, cardinality, example values), and saved metrics and filters. Use the ids or titles in AQL as [Title]. Filter with search or dataset; page with cursor.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  search_objects: {
    title: 'Search objects',
    description:
      'Full-text search over model objects (datasets, attributes, facts, metrics, filters, reports…) by id, title, description and tags, best matches first.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  get_object: {
    title: 'Get an object',
    description:
      "One model object by id (or title) with its definition (a metric's or report's AQL is def.aql); related=true adds what it uses and what uses it.",
    doors: ['mcp'],
    readOnly: true,
  },
  get_attribute_values: {
    title: 'Get attribute values',
    description:
      'Distinct values of an attribute or label, each with the number of rows of its dataset that hold it, most frequent first (ties by value); prefix narrows them. Use it so filters use values that exist.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  compatible_objects: {
    title: 'Compatible objects',
    description:
      'For a metric or fact: the attributes that can break it down. For an attribute or label: the facts and metrics it can break down.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  run_aql: {
    title: 'Run an AQL query',
    description:
      'Run an AQL query as you (your permissions and row filter apply), e.g. SELECT [<attribute>], SUM([<fact>]) WHERE [<attribute>] = "value" ORDER BY 2 DESC (names: get_model; rules: aql_help). Returns up to limit rows, number columns as JSON numbers (fractions to 15 significant digits); when truncated or RUNNING, call again with cursor alone. No rows: warnings name filter values matching no member.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  explain_aql: {
    title: 'Explain an AQL query',
    description:
      'Check a query without running it: the objects it uses, each aggregation with its dataset and joins, the SQL, and your row filter. Errors say where and how to fix.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  aql_help: {
    title: 'AQL cheatsheet',
    description:
      'The AQL cheatsheet: query form, names in brackets, what COUNT counts (COUNT([dataset]) for rows), conditional aggregation, shares (BY ALL keeps WHERE), dates, windows and QUALIFY, functions and conditions, with examples. Read it before writing AQL, or when a query is refused.',
    doors: ['mcp', 'chat'],
    readOnly: true,
  },
  ask: {
    title: 'Ask a question',
    description:
      "Ask a question about the project's data in plain language; Ursa's own agent finds the objects, runs AQL as you and answers in Markdown with the queries it ran (their cells typed as in run_aql). Continue with conversation. Counts against the plan's AI messages per day.",
    doors: ['mcp'],
    readOnly: false,
  },
  list_reports: {
    title: 'List reports',
    description:
      'Saved reports (an AQL query each), optionally filtered by text; run one with run_report.',
    doors: ['mcp'],
    readOnly: true,
  },
  run_report: {
    title: 'Run a report',
    description:
      'Run a saved report (by id or title) as you and return its rows like run_aql (continue with run_aql and the cursor); a KPI report adds its formatted number, a chart report its chart as a PNG image; url is its web page. Cells and the KPI value are typed as in run_aql.',
    doors: ['mcp'],
    readOnly: true,
  },
  list_dashboards: {
    title: 'List dashboards',
    description:
      'Dashboards you can open (by your roles, or shared with you): id, title, description, number of items and the link to its web page. Open one with get_dashboard.',
    doors: ['mcp'],
    readOnly: true,
  },
  get_dashboard: {
    title: 'Get a dashboard',
    description:
      'A dashboard (by id or title) computed as you (your permissions and row-level filter apply): each item\'s columns and rows, KPI numbers formatted, per-item errors, and each chart as a PNG image. filters sets its filter values as "attribute:value"; url is its web page. Cells and KPI values are typed as in run_aql.',
    doors: ['mcp'],
    readOnly: true,
  },
  create_metric: {
    title: 'Create a metric',
    description:
      'Save a metric (MD Admin). aql is a metric definition: SELECT <measure> [BY ALL …] [WHERE …], e.g. SELECT SUM([<fact>]) WHERE [<attribute>] = "value". Use it in queries as [title].',
    doors: ['mcp'],
    readOnly: false,
  },
  update_object: {
    title: 'Update an object',
    description:
      'Change a model object (MD Admin): its title, description, tags, or the AQL of a metric, filter or report. Fields left out keep their value; the change is saved as a new revision.',
    doors: ['mcp'],
    readOnly: false,
  },
  create_subscription: {
    title: 'Subscribe to a dashboard',
    description:
      'Mail a dashboard on a schedule (cron in a time zone) as an image with a PDF, or XLSX/CSV of items; each recipient gets their own rows. Without confirm=true it only says what would be sent to whom: show that to the user and ask first.',
    doors: ['mcp'],
    readOnly: false,
  },
  create_alert: {
    title: 'Create a data alert',
    description:
      'Tell members once when a metric or one AQL measure crosses a value (>, >=, <, <=) or changes by more than a percent, checked on a schedule and/or after loads. Without confirm=true it only says whom it would tell of what: ask the user first.',
    doors: ['mcp'],
    readOnly: false,
  },
  list_deliveries: {
    title: 'List subscriptions and alerts',
    description:
      'Your subscriptions and alerts (all of them for an MD Admin): each with what it sends to whom and when, and whether it is paused.',
    doors: ['mcp'],
    readOnly: true,
  },
  change_delivery: {
    title: 'Change a subscription or alert',
    description:
      'Change when, what or to whom a subscription or alert sends (your own, addressed to you; any as an MD Admin), or pause it; what you leave out stays. Without confirm=true it only says what it would then send: ask the user first.',
    doors: ['mcp'],
    readOnly: false,
  },
  remove_delivery: {
    title: 'Remove a subscription or alert',
    description:
      'Delete a subscription or alert by id: your own, or any as an MD Admin. Nothing more is sent for it.',
    doors: ['mcp'],
    readOnly: false,
  },
  list_flows: {
    title: 'List flows',
    description:
      'Data integration flows: each with its inputs (files, HTTP APIs, PostgreSQL, SFTP), outputs (datasets, files), whether it is running and its last run. fullLoad=true adds each definition and its triggers.',
    doors: ['mcp'],
    readOnly: true,
  },
  run_flow: {
    title: 'Run a flow',
    description:
      'Start a flow (MD Admin): it reads its inputs and, when every box succeeds, replaces or upserts its output datasets and files. Waits for the run like run_aql; when it answers RUNNING, follow it with get_flow_run. A flow already running is refused.',
    doors: ['mcp'],
    readOnly: false,
  },
  get_flow_run: {
    title: 'Get a flow run',
    description:
      'A flow run by its job id: status (RUNNING, OK, ERROR, CANCELLED), rows and time per box, what it wrote, and the error naming the box and field when it failed.',
    doors: ['mcp'],
    readOnly: true,
  },
  create_project: {
    title: 'Create a project',
    description:
      'Create a project (organization administrators; you become its Admin). With warehouse { host, port?, database, user, password, schema } it is bound to that PostgreSQL schema (login and schema checked first, password stored encrypted): AQL runs in PostgreSQL on the tables you map with map_tables, nothing is copied. A refused binding creates nothing and says why.',
    doors: ['mcp'],
    readOnly: false,
  },
  list_warehouse_tables: {
    title: 'List warehouse tables',
    description:
      "A warehouse project's tables and views in its bound PostgreSQL schema (MD Admin): each with whether the login may read it, the dataset name it maps to by default, and the dataset it is already mapped as.",
    doors: ['mcp'],
    readOnly: true,
  },
  map_tables: {
    title: 'Map warehouse tables',
    description:
      'Map tables or views of a warehouse project as datasets (MD Admin): columns typed from PostgreSQL, primary keys, foreign keys between mapped tables as references, so AQL can join them; the data stays in PostgreSQL. Map related tables in one call. Waits for the mapping job like run_aql; when it answers RUNNING, call again with jobId. Mapping a mapped table again refreshes it from the catalog.',
    doors: ['mcp'],
    readOnly: false,
  },
  make_chart: {
    title: 'Make a chart',
    description:
      'Draw one query result as a chart shown with your answer (the last call wins). Columns are named by their titles as run_aql returned them.',
    doors: ['chat'],
    readOnly: true,
  },
  find_dashboards: {
    title: 'Find dashboards and reports',
    description:
      'Dashboards and saved reports you can open (by your roles, or shared with you) whose title, description or id contain the words of query (none: all), each with its url. Answer a request to show or open one with a Markdown link to that url, exactly as given; never write a URL this tool did not return.',
    doors: ['chat'],
    readOnly: true,
  },
} as const satisfies Record<string, ToolEntry>;

export type ToolName = keyof typeof TOOLS;

/** Limits of the query tools, per door (a chat turn has less room than an MCP answer). */
export const TOOL_LIMITS = {
  mcp: {
    defaultRows: 100,
    maxRows: 1000,
    modelPage: 20,
    searchMax: 100,
    valuesDefault: 50,
    valuesMax: 1000,
  },
  chat: {
    defaultRows: 50,
    maxRows: 200,
    modelPage: 10,
    searchMax: 50,
    valuesDefault: 30,
    valuesMax: 200,
    maxChars: 12_000,
  },
} as const;

/** The catalog entry of a tool; a tool missing from it is a programming error. */
export function toolEntry(name: string, door: Door): ToolEntry & { name: string } {
  const e = (TOOLS as Record<string, ToolEntry>)[name];
  if (!e || !e.doors.includes(door))
    throw new Error(
      `tool ${name} is not in the tool catalog for ${door} (src/engine/tools/catalog.ts)`,
    );
  return { name, ...e };
}

/** The tools a door carries, in catalog order. */
export const toolsOf = (door: Door): (ToolEntry & { name: string })[] =>
  Object.entries(TOOLS as Record<string, ToolEntry>)
    .filter(([, e]) => e.doors.includes(door))
    .map(([name, e]) => ({ name, ...e }));
