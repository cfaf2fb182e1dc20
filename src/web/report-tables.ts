// The tables of report pages (and their PDF): a result's rows, coloured by the table's
// conditional formatting, and a pivot with its subtotals. The pages' CSP allows their one
// stylesheet and no style="": each cell colouring (shared/conditional.ts, the function every
// client calls) becomes a class of that stylesheet, collected while the page is written.
import type { ReportRun } from '../engine/reports/reports.js';
import { cellStyle, styleCss } from '../shared/conditional.js';
import { defaultNumber, formatNumber } from '../shared/number-format.js';
import { html, type Html } from '../shared/html.js';
import { lineLabels, pivotHead, type HeadCell } from '../shared/pivot-layout.js';

export const TABLE_STYLE = `
.pivot-wrap{overflow:auto;max-width:100%}
table.pivot th,table.pivot td{border:1px solid var(--line)}
table.pivot thead th{text-align:center}
table.pivot thead th.m{text-align:right}
table.pivot tbody th{font-weight:normal;background:var(--card)}
table.pivot .total,table.pivot tr.sub>*,table.pivot tr.total>*{font-weight:650}
table.pivot tr.sub>*,table.pivot tr.total>*{background:#f0f3f7}
@media print{.pivot-wrap{overflow:visible}table.pivot{font-size:7pt}
table.pivot th,table.pivot td{padding:2px 3px;white-space:normal}table.pivot th,table.pivot td{overflow-wrap:normal}
table.pivot thead{display:table-header-group}table.pivot tr{break-inside:avoid}}
`;

/** Cell colourings as classes of the page's stylesheet (`.cf0{background:#…}`), one per style. */
export class CellClasses {
  private readonly names = new Map<string, string>();

  /** The class of a style's CSS ('' for none). */
  of(css: string): string {
    if (!css) return '';
    let name = this.names.get(css);
    if (!name) {
      name = `cf${this.names.size}`;
      this.names.set(css, name);
    }
    return name;
  }

  /** The rules to add to the page's stylesheet. */
  css(): string {
    // The declarations are built by styleCss from #rrggbb colours only.
    return [...this.names].map(([css, name]) => `.${name}{${css}}`).join('\n');
  }
}

const isNumeric = (dataType: string) => dataType === 'integer' || dataType === 'number';

/**
 * A number cell as the app writes it: a metric's own format, else a measure grouped with at
 * most two decimals (1,588,368); a dimension of numbers (the year 2001) as it is.
 */
export function cellText(c: ReportRun['columns'][number], v: string): string {
  if (v === '') return v;
  if (c.format) return formatNumber(v, c.format);
  return c.kind === 'measure' ? defaultNumber(v) : v;
}

/** A result's rows as a table, cells coloured by its conditional formatting. */
export function rowsTable(r: ReportRun, maxRows: number, classes: CellClasses): Html {
  const shown = r.rows.slice(0, maxRows);
  const cls = (base: string, i: number, v: string) => {
    const c = [base, classes.of(styleCss(cellStyle(r.conditional, i, v)))].filter(Boolean);
    return c.length ? html` class="${c.join(' ')}"` : '';
  };
  return html`<table>
<thead><tr>${r.columns.map((c) => (isNumeric(c.dataType) ? html`<th class="n">${c.title}</th>` : html`<th>${c.title}</th>`))}</tr></thead>
<tbody>${shown.map(
    (row) =>
      html`<tr>${r.columns.map((c, i) =>
        isNumeric(c.dataType)
          ? html`<td${cls('n', i, row[i] ?? '')}>${cellText(c, row[i] ?? '')}</td>`
          : html`<td${cls('', i, row[i] ?? '')}>${row[i] ?? ''}</td>`,
      )}</tr>`,
  )}</tbody>
</table>
${r.rows.length > shown.length && html`<p class="note">${shown.length} of ${r.rows.length} rows shown.</p>`}
${r.rows.length === 0 && html`<p class="note">No rows.</p>`}`;
}

const span = (c: HeadCell) =>
  html`${c.colspan > 1 && html` colspan="${String(c.colspan)}"`}${c.rowspan > 1 && html` rowspan="${String(c.rowspan)}"`}`;
const headClass = (c: HeadCell) => {
  const names = [c.total && 'total', c.measure && 'm'].filter(Boolean);
  return names.length ? html` class="${names.join(' ')}"` : '';
};

/** A pivot as a table: subtotal and total rows and columns bold, numbers in their formats. */
export function pivotTable(r: ReportRun): Html {
  const p = r.pivot!;
  const m = p.columns.length;
  return html`<div class="pivot-wrap"><table class="pivot">
<thead>${pivotHead(p).map(
    (row) =>
      html`<tr>${row.map((c) => html`<th scope="col"${span(c)}${headClass(c)}>${c.text}</th>`)}</tr>`,
  )}</thead>
<tbody>${p.lines.map(
    (line) =>
      html`<tr${line.level === 0 ? html` class="total"` : line.level < p.rows.length ? html` class="sub"` : ''}>${lineLabels(
        p,
        line,
      ).map((c) => html`<th scope="row"${span(c)}>${c.text}</th>`)}${line.cells.map((key, k) =>
        key.map(
          (v, i) =>
            html`<td class="n${p.keys[k]!.level < m ? ' total' : ''}">${cellText(p.measures[i]!, v)}</td>`,
        ),
      )}</tr>`,
  )}</tbody>
</table></div>`;
}
