// A query's result as a chart (picked by its columns' kinds and types, switchable: drawn as its
// report will be, result-chart.tsx) and a table
// (the first rows, measures in the app's number format; the CSV has them all, as they are).
import { AlertMeButton } from '../../alert-me';
import { useState } from 'preact/hooks';
import { ApiError, download } from '../../api';
import { formatNumber } from '../../format';
import { ErrorNote } from '../../ui';
import type { DrillObject } from '../../chart/drill';
import { measureColumns } from './chart-data';
import { ResultChart, type Preset, type Shown } from './result-chart';
import type { Sort } from './builder-aql';
import type { QueryResult } from './query';

/** Rows drawn in the page; more are in the CSV. */
const SHOWN = 500;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** A file name for a result: the open report's title, else what it shows ("Flights by Carrier"). */
export function resultName(result: QueryResult, report?: string): string {
  if (report) return report;
  const measures = result.columns.filter((c) => c.kind === 'measure').map((c) => c.title);
  const by = result.columns.filter((c) => c.kind !== 'measure').map((c) => c.title);
  const name = measures.length && by.length ? `${measures.join(', ')} by ${by.join(', ')}` : '';
  return (name || result.columns.map((c) => c.title).join(', ') || 'Result').slice(0, 100);
}

/** A title as a file name, as the API makes one: no path, reserved or control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const safe = (name: string) => name.replace(/[/\\:*?"<>|\x00-\x1f]+/g, '_').trim() || 'Result';

export function ResultView({
  project,
  result,
  objects,
  preset,
  name,
  sort,
  onSort,
  onShown,
  aql,
}: {
  project: string;
  result: QueryResult & { aql: string };
  /** The model's objects: a mark's "Break out by…" offers its attributes. */
  objects: DrillObject[];
  /** The open report's visualization: what the chart starts as. */
  preset?: Preset;
  /** The query that answered it: a one-number answer offers "Alert me…" on it. */
  aql?: string;
  /** The saved report open, whose title names the downloads. */
  name?: string;
  /** The builder's sort of this result, when the builder wrote the query. */
  sort?: Sort;
  /** Clicking a column's title sorts by it (a query of the builder's shape only). */
  onSort?: (col: number) => void;
  /** The chart shown, whenever it changes (saving a report keeps it). */
  onShown?: (shown: Shown) => void;
}) {
  const [error, setError] = useState<ApiError>();
  const [busy, setBusy] = useState(false);
  const { columns, rows } = result;
  const shown = rows.slice(0, SHOWN);
  // A column of numbers (empty cells aside) is right-aligned, its title too.
  const numeric = columns.map(
    (_, j) => shown.some((r) => r[j]) && shown.every((r) => !r[j] || NUMBER.test(r[j])),
  );
  const measure = measureColumns(columns, shown);
  // A dimension of numbers (a year) reads as a label, left-aligned like text.
  columns.forEach((c, j) => {
    if (c.kind === 'dimension') numeric[j] = false;
  });
  const save = async (format: 'csv' | 'xlsx') => {
    setBusy(true);
    setError(undefined);
    try {
      await download(
        'GET',
        `${result.data}?format=${format}`,
        `${safe(resultName(result, name))}.${format}`,
      );
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
        <button type="button" class="quiet" onClick={() => void save('csv')} disabled={busy}>
          Download CSV
        </button>
        <button type="button" class="quiet" onClick={() => void save('xlsx')} disabled={busy}>
          Download XLSX
        </button>
        {aql && columns.length === 1 && columns[0]!.kind === 'measure' && rows.length <= 1 && (
          <AlertMeButton watched={{ aql, title: columns[0]!.title }} />
        )}
      </div>
      <ErrorNote error={error} />
      <ResultChart
        project={project}
        result={result}
        title={resultName(result, name)}
        objects={objects}
        preset={preset}
        onShown={onShown}
      />
      <div class="scroll" tabIndex={0} role="region" aria-label="Result table">
        <table>
          <thead>
            <tr>
              {columns.map((c, i) => {
                const by = sort?.col === i + 1 ? sort : undefined;
                return (
                  <th
                    key={i}
                    scope="col"
                    class={numeric[i] ? 'n' : undefined}
                    title={c.aql}
                    aria-sort={by ? (by.desc ? 'descending' : 'ascending') : undefined}
                  >
                    {onSort ? (
                      <button
                        type="button"
                        class="th-sort"
                        title={`Sort by ${c.title}`}
                        onClick={() => onSort(i + 1)}
                      >
                        {c.title}
                      </button>
                    ) : (
                      c.title
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {shown.map((r, i) => (
              <tr key={i}>
                {columns.map((_, j) => (
                  <td key={j} class={numeric[j] ? 'n' : undefined}>
                    {columns[j]!.dataType === 'nested' ? (
                      <NestedCell text={r[j] ?? ''} title={columns[j]!.title} />
                    ) : measure[j] && numeric[j] && r[j] ? (
                      formatNumber(r[j])
                    ) : (
                      (r[j] ?? '')
                    )}
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

/** A NEST cell: its rows as a small table of their own (the JSON list `values` holds). */
function NestedCell({ text, title }: { text: string; title: string }) {
  let rows: Record<string, string | number | boolean | null>[] = [];
  try {
    rows = text ? (JSON.parse(text) as typeof rows) : [];
  } catch {
    return <>{text}</>;
  }
  if (!rows.length) return <span class="muted">–</span>;
  return (
    <table class="nested" aria-label={title}>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {Object.values(row).map((v, j) => (
              <td key={j} class={typeof v === 'number' ? 'n' : undefined}>
                {typeof v === 'number' ? formatNumber(v) : v === null ? '–' : String(v)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
