// A query's result as a table (the first rows; the CSV has them all) and its CSV download.
import { useState } from 'preact/hooks';
import { ApiError, download } from '../../api';
import { ErrorNote } from '../../ui';
import type { QueryResult } from './query';

/** Rows drawn in the page; more are in the CSV. */
const SHOWN = 500;
const NUMBER = /^-?\d+(\.\d+)?$/;

export function ResultView({ result }: { result: QueryResult }) {
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const { columns, rows } = result;
  const shown = rows.slice(0, SHOWN);
  // A column of numbers (empty cells aside) is right-aligned, its title too.
  const numeric = columns.map(
    (_, j) => shown.some((r) => r[j]) && shown.every((r) => !r[j] || NUMBER.test(r[j])),
  );
  const csv = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await download('GET', `${result.data}?format=csv`, 'result.csv');
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="explore-result" aria-labelledby="explore-result-h">
      <div class="explore-bar">
        <h2 id="explore-result-h">Result</h2>
        <p class="muted" role="status">
          {rows.length === 1 ? '1 row' : `${rows.length} rows`}
          {rows.length > SHOWN ? `, the first ${SHOWN} shown` : ''}
        </p>
        <button type="button" class="quiet" onClick={csv} disabled={busy}>
          Download CSV
        </button>
      </div>
      <ErrorNote error={error} />
      <div class="scroll" tabIndex={0} role="region" aria-label="Result table">
        <table>
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={i} scope="col" class={numeric[i] ? 'n' : undefined}>
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r, i) => (
              <tr key={i}>
                {columns.map((_, j) => (
                  <td key={j} class={numeric[j] ? 'n' : undefined}>
                    {r[j] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && <p class="muted">No rows.</p>}
    </section>
  );
}
