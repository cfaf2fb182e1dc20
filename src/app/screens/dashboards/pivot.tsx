// A pivot report's table, drawn from the API's `pivot` (every total computed by the engine at
// its grain): the same header and line labels as its page and PDF (shared/pivot-layout.ts),
// subtotal rows and columns bold, numbers in their metric's format. A wide pivot scrolls
// inside its card.
import type { JsonCell } from '../../../contract/data';
import type { PivotTable } from '../../../contract/dashboards';
import { lineLabels, pivotHead, type HeadCell } from '../../../shared/pivot-layout';
import { formatMeasure } from '../../format';

const text = (v: JsonCell, format?: string) =>
  v === null || v === '' ? '–' : typeof v === 'object' ? '' : formatMeasure(v, format);

const span = (c: HeadCell) => ({
  colSpan: c.colspan > 1 ? c.colspan : undefined,
  rowSpan: c.rowspan > 1 ? c.rowspan : undefined,
});

export function PivotView({ pivot: p, title }: { pivot: PivotTable<JsonCell>; title: string }) {
  const m = p.columns.length;
  return (
    <div
      class="scroll pivot-scroll"
      tabIndex={0}
      role="region"
      aria-label={`${title}: pivot table`}
    >
      <table class="pivot">
        <thead>
          {pivotHead(p).map((row, r) => (
            <tr key={r}>
              {row.map((c, i) => (
                <th
                  key={i}
                  scope="col"
                  {...span(c)}
                  class={
                    [c.total && 'total', c.measure && 'n'].filter(Boolean).join(' ') || undefined
                  }
                >
                  {c.text}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {p.lines.map((line, l) => (
            <tr
              key={l}
              class={line.level === 0 ? 'total' : line.level < p.rows.length ? 'sub' : undefined}
            >
              {lineLabels(p, line).map((c, i) => (
                <th key={`l${i}`} scope="row" {...span(c)}>
                  {c.text}
                </th>
              ))}
              {line.cells.map((key, k) =>
                key.map((v, i) => (
                  <td key={`${k}.${i}`} class={p.keys[k]!.level < m ? 'n total' : 'n'}>
                    {text(v, p.measures[i]?.format)}
                  </td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
