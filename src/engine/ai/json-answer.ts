// An answer's query results as JSON renderings of rows give them (aql/format.ts jsonCell):
// stored answers keep text cells (the grounding check reads text); what a client
// reads — MCP ask, a conversation, the `ai` job — has number columns as JSON numbers.
import type { AiQuery as JsonQuery } from '../../contract/chat.js';
import { jsonRows } from '../aql/format.js';
import type { AiQuery } from './types.js';

export const jsonQuery = (q: AiQuery): JsonQuery => ({ ...q, rows: jsonRows(q.columns, q.rows) });

/** An answer (or anything holding `queries`) with its queries' cells typed. */
export function jsonAnswer<T extends { queries: AiQuery[] }>(
  a: T,
): Omit<T, 'queries'> & { queries: JsonQuery[] } {
  return { ...a, queries: a.queries.map(jsonQuery) };
}
