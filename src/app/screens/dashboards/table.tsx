// An item's columns and rows as a table: numbers right-aligned, measures in their metric's
// format or grouped (format.ts), cells coloured by the table's conditional formatting (the
// engine's resolved rules through shared/conditional.ts, as on its page and PDF).
import { formatMeasure, formatNumber, nestedText } from '../../format';
import { cellStyle } from '../../../shared/conditional';
import type { JsonCell as Cell } from '../../../contract/data';
import type {
  DashboardItem,
  ReportColumn as Column,
  ReportResult,
} from '../../../contract/dashboards';

/**
 * Drill-down: what filtering the dashboard by values (column title → value) does, undefined
 * when the dashboard has a filter for none of those columns.
 */
/** An item with its report's result (not a text item, nor one that failed). */
export type ComputedItem = DashboardItem & ReportResult;

export const computed = (i: DashboardItem): i is ComputedItem =>
  i.columns !== undefined && i.rows !== undefined && i.rowCount !== undefined;

export type Drill = (values: Record<string, string>) => (() => void) | undefined;

const NUMERIC = new Set(['number', 'integer', 'decimal', 'float', 'double']);
const numeric = (c: Column) => NUMERIC.has(c.dataType);
function cell(c: Column, v: Cell): string {
  if (v === null || v === '') return '–';
  if (Array.isArray(v)) return nestedText(v);
  return numeric(c) && c.kind === 'measure' ? formatMeasure(v, c.format) : String(v);
}

export function DataTable({ item, drill }: { item: ComputedItem; drill?: Drill }) {
  if (!item.rows.length) return <p class="muted">No rows.</p>;
  return (
    <div class="scroll" tabIndex={0} role="region" aria-label={`${item.title}: data`}>
      <table>
        <thead>
          <tr>
            {item.columns.map((c) => (
              <th key={c.title} scope="col" class={numeric(c) ? 'n' : undefined}>
                {c.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {item.rows.map((row, i) => (
            <tr key={i}>
              {item.columns.map((c, j) => (
                <td
                  key={c.title}
                  class={numeric(c) ? 'n' : undefined}
                  style={{ ...cellStyle(item.conditional, j, row[j]) }}
                >
                  <CellView column={c} value={row[j] ?? null} drill={drill} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {item.rowCount > item.rows.length && (
        <p class="muted">
          The first {formatNumber(item.rows.length)} of {formatNumber(item.rowCount)} rows.
        </p>
      )}
    </div>
  );
}

function CellView(p: { column: Column; value: Cell; drill?: Drill }) {
  const text = cell(p.column, p.value);
  const go =
    p.drill && p.column.kind !== 'measure' && p.value !== null && p.value !== ''
      ? p.drill({ [p.column.title]: String(p.value) })
      : undefined;
  if (!go) return <>{text}</>;
  return (
    <button
      type="button"
      class="dash-drill"
      title={`Filter the dashboard by ${p.column.title}: ${text}`}
      aria-label={`Filter the dashboard by ${p.column.title}: ${text}`}
      onClick={go}
    >
      {text}
    </button>
  );
}
