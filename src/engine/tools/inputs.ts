// The arguments of each tool, defined once for every door that carries it: their types,
// bounds and the texts a model reads. A door passes its own limits (an MCP answer has more
// room than a chat turn); the MCP door adds `project`, and run_aql's `cursor` there.
import { z } from 'zod';
import { PLAIN_MARKS } from '../../shared/chart/spec.js';
import { TOOL_LIMITS, type Door } from './catalog.js';

const rows = (door: Door) => TOOL_LIMITS[door];

/** An optional `limit` from 1 to `max`, saying its default. */
const limit = (what: string, def: number, max: number) =>
  z.number().int().min(1).max(max).optional().describe(`${what} (default ${def}, max ${max})`);

/**
 * `exact` of the MCP tools answering cells (aql/format.ts jsonCell); the chat agent reads
 * rounded numbers.
 */
export const EXACT_INPUT = z
  .boolean()
  .optional()
  .describe(
    'true: a fraction no JSON number holds exactly (e.g. a PostgreSQL numeric AVG) comes as its exact decimal text instead of a number rounded to 15 significant digits',
  );

/** Arguments only the MCP door carries. */
const mcpOnly = <T extends z.ZodRawShape>(door: Door, shape: T): Partial<T> =>
  door === 'mcp' ? shape : {};

export const TOOL_INPUTS = {
  get_model: (door: Door) => ({
    search: z
      .string()
      .optional()
      .describe('Only objects whose id, title or description contain this'),
    dataset: z.string().optional().describe('Only this dataset (its name)'),
    cursor: z.string().optional().describe('nextCursor of the previous page'),
    limit: limit('Datasets per page', rows(door).modelPage, 100),
  }),
  search_objects: (door: Door) => ({
    query: z.string().min(1).describe('Text to search for'),
    limit: limit('How many hits', 20, rows(door).searchMax),
  }),
  get_attribute_values: (door: Door) => ({
    attribute: z.string().min(1).describe('Attribute or label id or title'),
    prefix: z.string().optional().describe('Only values starting with this, in any case'),
    limit: limit('How many values', rows(door).valuesDefault, rows(door).valuesMax),
  }),
  compatible_objects: () => ({
    object: z.string().min(1).describe('Metric, fact, attribute or label id or title'),
  }),
  run_aql: (door: Door) => ({
    aql: z.string().min(1).describe('The AQL query'),
    limit: limit('Rows to return', rows(door).defaultRows, rows(door).maxRows),
    ...mcpOnly(door, { exact: EXACT_INPUT }),
  }),
  explain_aql: () => ({ aql: z.string().min(1).describe('The AQL query') }),
  aql_help: () => ({}),
  make_chart: () => ({
    query: z.string().min(1).describe('The query id from run_aql, e.g. q1'),
    mark: z.enum(PLAIN_MARKS).describe('bar, line, area, point or arc (pie)'),
    x: z
      .string()
      .min(1)
      .describe('Column for the x axis (categories or time; for arc, the slices)'),
    y: z.string().min(1).describe('Numeric column for the y axis (for arc, the slice sizes)'),
    color: z.string().optional().describe('Optional column splitting the data into series'),
    title: z.string().max(200).optional().describe('Optional chart title'),
  }),
  find_dashboards: () => ({
    query: z
      .string()
      .max(200)
      .optional()
      .describe('Words of the title, description or id, e.g. "ops"; leave out to list all'),
    kind: z
      .enum(['dashboard', 'report'])
      .optional()
      .describe('Only dashboards or only reports (default both)'),
    limit: limit('How many', 20, 50),
  }),
};
