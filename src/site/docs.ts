// The documentation llms.txt points to, served as raw Markdown at /docs/<name>.md so that
// every link in llms.txt resolves on this server. Read once at start-up; a document not
// written yet (docs/mcp.md comes with the MCP server) is simply left out until it exists.
import fs from 'node:fs';
import path from 'node:path';
import { DOCS_DIR } from './paths.js';

export interface DocFile {
  /** File name, e.g. `api.md`; also its URL: /docs/api.md. */
  name: string;
  title: string;
  /** What a reader finds there, for llms.txt. */
  about: string;
  /** `mcp` for the MCP docs (listed with the MCP server in llms.txt). */
  topic: 'api' | 'mcp';
  /** Its H2 headings: the sections, so a reader can tell where to look. */
  sections: string[];
  markdown: string;
}

const WANTED: readonly Omit<DocFile, 'sections' | 'markdown'>[] = [
  {
    name: 'api.md',
    title: 'REST API reference',
    about:
      'every route of /api/v1 with levels, request and response fields, errors and curl examples',
    topic: 'api',
  },
  {
    name: 'aql.md',
    title: 'AQL reference',
    about:
      'the query language: references in square brackets, measures, metrics, conditions, dates',
    topic: 'api',
  },
  {
    name: 'loading.md',
    title: 'Loading data',
    about: 'structure guess, prescriptions, data types, attributes, labels, facts and references',
    topic: 'api',
  },
  {
    name: 'flows.md',
    title: 'Flows and triggers',
    about:
      'data integration: boxes reading files, HTTP APIs, PostgreSQL and SFTP into datasets, runs, triggers, credentials, network rules',
    topic: 'api',
  },
  {
    name: 'sharing.md',
    title: 'Sharing dashboards',
    about:
      'private shares for named members, public shares served without signing in, the embedding settings, and framing a dashboard with an iframe',
    topic: 'api',
  },
  {
    name: 'app.md',
    title: 'The web application',
    about:
      'the screens at /app for people: chat with the data, dashboards, explore with AQL, data loads, the model and administration',
    topic: 'api',
  },
  {
    name: 'sql.md',
    title: 'SQL API',
    about:
      'PostgreSQL clients (psql, pandas, JDBC, ODBC, BI tools) reading the semantic model over the PostgreSQL wire protocol: connecting, the SQL understood, the catalog, types and errors',
    topic: 'api',
  },
  {
    name: 'delivery.md',
    title: 'Delivery: data alerts',
    about:
      'alerts on a metric or measure that tell members by e-mail (each with their own rows) or a signed webhook, once per firing',
    topic: 'api',
  },
  {
    name: 'operations.md',
    title: 'Operations',
    about: 'configuration variables, data directory, command line, identity, plans and limits',
    topic: 'api',
  },
  {
    name: 'ai.md',
    title: 'AI chat',
    about:
      'plain-language questions answered by an agent running AQL as the member: providers, conversations, grounding, charts, limits',
    topic: 'api',
  },
  {
    name: 'mcp.md',
    title: 'MCP server guide',
    about: 'connecting AI assistants: endpoint, authentication, tools, resources and prompts',
    topic: 'mcp',
  },
];

export const docPath = (d: DocFile): string => `/docs/${d.name}`;

export function loadDocs(dir = DOCS_DIR): DocFile[] {
  return WANTED.flatMap((w) => {
    const file = path.join(dir, w.name);
    if (!fs.existsSync(file)) return [];
    const markdown = fs.readFileSync(file, 'utf8');
    // Headings inside fenced code blocks (shell comments) are not sections.
    const prose = markdown.replace(/^```[\s\S]*?^```/gm, '');
    const sections = [...prose.matchAll(/^## +(.+?)\s*$/gm)].map((m) => m[1]!.replace(/`/g, ''));
    return [{ ...w, sections, markdown }];
  });
}
