// The queries behind an answer, each folded: its AQL, then its result table (the first 200
// rows the agent saw) or why it failed. Measures are written as everywhere in the app
// (format.ts: their metric's format, else grouped), dimensions as they are (the year 2001).
import { formatMeasure, formatNumber, nestedText } from '../../format';
import type { AiQuery } from '../../../contract/chat';

const NUMERIC_TYPES = new Set(['number', 'integer', 'decimal', 'float', 'double']);

const rowsText = (q: AiQuery) =>
  q.error
    ? 'failed'
    : `${formatNumber(q.totalRows)} ${q.totalRows === 1 ? 'row' : 'rows'}${q.truncated ? `, first ${q.rows.length} shown` : ''}`;

function Result({ q }: { q: AiQuery }) {
  if (q.error)
    return (
      <p class="error">
        The query failed: <span class="chat-pre">{q.error}</span>
      </p>
    );
  const numeric = q.columns.map((c) => NUMERIC_TYPES.has(c.dataType.toLowerCase()));
  const cell = (i: number, v: AiQuery['rows'][number][number] | undefined): string => {
    if (v === null || v === undefined || v === '') return '';
    if (Array.isArray(v)) return nestedText(v);
    const c = q.columns[i]!;
    return numeric[i] && c.kind === 'measure' ? formatMeasure(v, c.format) : String(v);
  };
  return (
    <div
      class="scroll chat-result"
      tabIndex={0}
      role="region"
      aria-label={`Result of query ${q.id}`}
    >
      <table>
        <thead>
          <tr>
            {q.columns.map((c, i) => (
              <th key={i} scope="col" class={numeric[i] ? 'n' : undefined}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {q.rows.map((row, r) => (
            <tr key={r}>
              {q.columns.map((_, i) => (
                <td key={i} class={numeric[i] ? 'n' : undefined}>
                  {cell(i, row[i])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Queries({ queries }: { queries: AiQuery[] }) {
  if (queries.length === 0) return null;
  return (
    <div class="chat-queries">
      {queries.map((q) => (
        <details key={q.id} class="chat-query">
          <summary>
            Query {q.id} <span class="muted">· {rowsText(q)}</span>
          </summary>
          <pre class="chat-aql">
            <code>{q.aql}</code>
          </pre>
          <Result q={q} />
        </details>
      ))}
    </div>
  );
}
