// Reports and dashboards as pages people look at: charts as inline SVG (drawn by the engine,
// nothing loaded from anywhere), tables, KPIs with the metric's format, and the dashboard's
// layout grid, which stacks into one column on a phone. The same pages are printed to PDF.
import { kpiChangeText, kpiTrend } from '../shared/chart/sparkline.js';
import { sparklineSvg } from '../engine/reports/kpi-svg.js';
import type { ProjectActor } from '../engine/access/actor.js';
import { apiHref } from '../contract/urls.js';
import type { Engine } from '../engine/engine.js';
import type {
  AppliedFilter,
  DashboardItemRun,
  DashboardRun,
  ReportRun,
} from '../engine/reports/reports.js';
import type { AttributeValues } from '../contract/model.js';
import { GRID_COLUMNS } from '../engine/reports/reports.js';
import { defaultNumber } from '../shared/number-format.js';
import { CellClasses, pivotTable, rowsTable, TABLE_STYLE } from './report-tables.js';
import { SHARE_PATH } from '../engine/sharing/shares.js';
import { html, raw, type Html } from '../shared/html.js';
import { renderPage, type Page } from './page.js';
import { textItemHtml } from './text-markdown.js';

/** Rows a page shows of a table (JSON and CSV hold them all). */
export const PAGE_ROWS = 500;
const ITEM_ROWS = 100;
/** Rows of a table item in a printed dashboard: the whole table, up to what an item holds. */
const PRINT_ROWS = 1000;

const STYLE = `
:root{color-scheme:light;--fg:#1d2330;--bg:#f4f6f9;--card:#fff;--muted:#5f6b7a;--line:#dde3ea;
--accent:#1f5fbf;--err:#b3261e}
body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--fg);background:var(--bg)}
header{padding:20px 24px 8px}
h1{font-size:1.5rem;margin:0 0 4px}
.desc{color:var(--muted);margin:0}
.applied{color:var(--muted);margin:0 0 12px}
main{padding:8px 24px 24px}
.band{display:grid;grid-template-columns:repeat(${GRID_COLUMNS},minmax(0,1fr));grid-auto-rows:60px;gap:14px;margin-bottom:14px}
.band.long{grid-auto-rows:minmax(60px,auto)}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px;
overflow:auto;min-width:0;display:flex;flex-direction:column}
.card h2{font-size:1rem;margin:0 0 8px}
.card h2 a{color:inherit;text-decoration:none}
.chart{flex:1;min-height:0;display:flex;align-items:center;justify-content:center}
.chart svg{max-width:100%;max-height:100%;height:auto}
.kpi{flex:1;display:flex;flex-direction:column;justify-content:center}
.kpi .value{font-size:2.6rem;font-weight:650;letter-spacing:-.02em}
.kpi .label{color:var(--muted)}
.kpi .change{font-weight:600;margin-top:.2rem}.kpi .up{color:#1a7f37}.kpi .down{color:#cf222e}
.kpi .sparkline{display:block;margin-top:.5rem;max-width:100%;height:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{padding:5px 8px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
th{position:sticky;top:0;background:var(--card)}
th.n{text-align:right}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.text .md>:first-child{margin-top:0}.text .md>:last-child{margin-bottom:0}
.text .md h3,.text .md h4,.text .md h5,.text .md h6{margin:.6em 0 .3em}
.text .md p,.text .md ul,.text .md ol{margin:.4em 0}
.text a{color:var(--accent)}
.note{color:var(--muted);font-size:.85rem;margin:6px 0 0}
.error{color:var(--err)}
.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:8px 0 16px}
.filters label{display:flex;flex-direction:column;font-size:.85rem;color:var(--muted)}
.filters input,.filters select{font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:6px;min-width:160px;background:var(--card);color:inherit}
.filters fieldset{display:flex;flex-wrap:wrap;gap:10px;align-items:end;border:0;margin:0;padding:0;min-width:0}
.filters legend{padding:0;margin-bottom:4px;font-weight:600;font-size:.85rem}
.filters button{font:inherit;padding:6px 14px;border-radius:6px;border:1px solid var(--accent);
background:var(--accent);color:#fff}
.links{font-size:.9rem;margin:6px 0 0}
.pick{position:relative}
.field{display:flex;flex-direction:column;gap:2px}
.narrows{margin:0;max-width:280px}
.tabs ul{display:flex;flex-wrap:wrap;gap:4px 16px;list-style:none;margin:0 0 8px;padding:0}
.tabs a{color:var(--accent)}
.tab-title{font-size:1.15rem;margin:18px 0 10px}
.pick summary{cursor:pointer;font:inherit;padding:5px 8px;border:1px solid var(--line);border-radius:6px;min-width:160px;max-width:280px;background:var(--card);white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.pick-panel{position:absolute;z-index:2;margin-top:4px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px;width:min(300px,90vw);box-shadow:0 6px 18px rgba(0,0,0,.12)}
.pick ul{list-style:none;margin:0;padding:0;max-height:260px;overflow:auto}
.pick input[type=checkbox]{min-width:0}
.pick li label{display:flex;flex-direction:row;gap:6px;align-items:center;color:var(--fg);font-size:.9rem;padding:2px 0}
.pick .count{margin-left:auto;color:var(--muted);font-variant-numeric:tabular-nums}
.single{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px;
overflow-x:auto}
.single .chart svg{width:100%}
@media (max-width:800px){
header,main{padding-left:12px;padding-right:12px}
.band{display:flex;flex-direction:column}
.card{min-height:0}
.card .chart{min-height:220px}
}
@media print{body{background:#fff}.filters,.links,.tabs{display:none}
.tab+.tab{break-before:page}
.band{break-inside:avoid;grid-auto-rows:40px;gap:10px;margin-bottom:10px}
.band.long{break-inside:auto;grid-auto-rows:auto}
.card{break-inside:avoid;padding:10px 12px}
.card.rows{overflow:visible;break-inside:auto;box-decoration-break:clone;-webkit-box-decoration-break:clone;display:block;align-self:start}
.card.rows tr{break-inside:avoid}
.card.rows th{position:static}}
`;

export interface PageLinks {
  /** Link report titles to their pages (`null`: a public share, whose readers have no API). */
  report?: (ident: string) => string;
  /** Downloads offered under a report (CSV, JSON…). */
  downloads?: { title: string; href: string }[];
}

/** A KPI: its number, what it is, and (a result with a date) its change and sparkline. */
function kpiBody(k: NonNullable<ReportRun['kpi']>): Html {
  const trend = kpiTrend(k);
  const change = kpiChangeText(k);
  const arrow = trend === 'up' ? '▲ ' : trend === 'down' ? '▼ ' : '';
  // The sparkline is markup we drew from the numbers (sparklineSvg), nothing we were given.
  return html`<div class="kpi"><div class="value">${k.formatted}</div><div class="label">${k.title}${k.period ? ` · ${k.period}` : ''}</div>${change && html`<div class="change ${trend}">${arrow}${change}</div>`}${raw(sparklineSvg(k, 240, 48))}</div>`;
}

/** A report's body: its chart, number, pivot or table. */
function reportBody(r: ReportRun, maxRows: number, classes: CellClasses): Html {
  if (r.kpi) return kpiBody(r.kpi);
  // The SVG is ECharts' drawing of a spec we built (data inline, nothing fetched), and it
  // escapes the text it draws: it is markup we made, not markup we were given.
  if (r.chart)
    return html`<div class="chart" role="img" aria-label="${r.name}">${raw(r.chart.svg ?? '')}</div>`;
  if (r.pivot) return pivotTable(r);
  return rowsTable(r, maxRows, classes);
}

function warnings(r: ReportRun): Html | false {
  return (
    Boolean(r.warnings?.length) &&
    html`${r.warnings!.map((w) => html`<p class="note">${(w as { message?: string }).message ?? ''}</p>`)}`
  );
}

export function reportPage(r: ReportRun, links: PageLinks = {}): Page {
  const classes = new CellClasses();
  const body = reportBody(r, PAGE_ROWS, classes);
  return renderPage({
    title: r.name,
    description: r.description || undefined,
    style: `${STYLE}${TABLE_STYLE}${classes.css()}`,
    body: html`<header><h1>${r.name}</h1>${r.description && html`<p class="desc">${r.description}</p>`}</header>
<main><div class="single">${body}${warnings(r)}</div>
${links.downloads?.length && html`<p class="links">${links.downloads.map((d, i) => html`${i > 0 && ' · '}<a href="${d.href}">${d.title}</a>`)}</p>`}
</main>`,
  });
}

/** A table item (no chart, no number): printed whole, across pages if need be. */
const isRows = (i: DashboardItemRun) => Boolean(i.result && !i.result.kpi && !i.result.chart);

function item(
  i: DashboardItemRun,
  n: number,
  links: PageLinks,
  rows: number,
  classes: CellClasses,
): Html {
  if (i.text !== undefined)
    return html`<section class="card text i${n}">${i.title && html`<h2>${i.title}</h2>`}<div class="md">${textItemHtml(i.text)}</div></section>`;
  const title =
    links.report && i.report ? html`<a href="${links.report(i.report)}">${i.title}</a>` : i.title;
  return html`<section class="card${isRows(i) ? ' rows' : ''} i${n}"><h2>${title}</h2>
${i.error ? html`<p class="error">${i.error}</p>` : i.result && html`${reportBody(i.result, rows, classes)}${warnings(i.result)}`}
</section>`;
}

/**
 * The layout in bands: items whose rows overlap, top to bottom. Each band is a grid of its
 * own, so a printed page breaks between bands (rows of the layout), never through a chart.
 */
function bands(items: DashboardItemRun[]): { top: number; items: DashboardItemRun[] }[] {
  const out: { top: number; bottom: number; items: DashboardItemRun[] }[] = [];
  for (const i of items) {
    const last = out.at(-1);
    if (last && i.layout.y < last.bottom) {
      last.items.push(i);
      last.bottom = Math.max(last.bottom, i.layout.y + i.layout.h);
    } else out.push({ top: i.layout.y, bottom: i.layout.y + i.layout.h, items: [i] });
  }
  return out;
}

/** Each item's cell in its band, as a class: the page's CSP allows its one stylesheet, no style="". */
const cells = (
  list: { top: number; items: DashboardItemRun[] }[],
  index: Map<DashboardItemRun, number>,
) =>
  list
    .flatMap((b) =>
      b.items.map(
        (i) =>
          `.i${index.get(i)}{grid-column:${i.layout.x + 1} / span ${i.layout.w};grid-row:${i.layout.y - b.top + 1} / span ${i.layout.h}}`,
      ),
    )
    .join('\n');

const DATE_TYPES = new Set(['date', 'datetime']);
/** The periods a date filter offers, as the app's (the values the API reads). */
const PERIODS: [value: string, label: string][] = [
  ['', 'Any time'],
  ['last 7 days', 'Last 7 days'],
  ['last 30 days', 'Last 30 days'],
  ['last 90 days', 'Last 90 days'],
  ['this month', 'This month'],
  ['this year', 'This year'],
];
/** The period meaning "between the two days" (`from[…]`, `to[…]`; foldDateFields). */
const BETWEEN = '..';
const RANGE = /^(\d{4}-\d{2}-\d{2})?\.\.(\d{4}-\d{2}-\d{2})?$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date filter without scripts: a period (Any time, Last 7/30/90 days, This month, This
 * year, Between the dates) and two date fields, `from[<attribute>]` and `to[<attribute>]`,
 * folded into one range by foldDateFields when the form is sent.
 */
function dateRangeFields(f: { attribute: string; title: string; values: string[] }): Html {
  const v = f.values[0]?.trim().toLowerCase().replace(/\s+/g, ' ') ?? '';
  const range = RANGE.exec(v) ?? (DAY.test(v) ? [v, v, v] : null);
  const period = range ? BETWEEN : v;
  const periods: [string, string][] = [
    ...PERIODS,
    // A period the list lacks (last 14 days) stays as it is.
    ...(range || PERIODS.some(([p]) => p === v) ? [] : [[v, v] as [string, string]]),
    [BETWEEN, 'Between the dates'],
  ];
  const id = (part: string) => `f-${part}-${f.attribute.replace(/[^\w-]/g, '_')}`;
  return html`<fieldset class="range"><legend>${f.title}</legend>
<label for="${id('period')}">Period<select id="${id('period')}" name="filter[${f.attribute}]">${periods.map(
    ([value, label]) =>
      html`<option value="${value}"${value === period && ' selected'}>${label}</option>`,
  )}</select></label>
<label for="${id('from')}">From<input type="date" id="${id('from')}" name="from[${f.attribute}]" value="${range?.[1] ?? ''}"></label>
<label for="${id('to')}">To<input type="date" id="${id('to')}" name="to[${f.attribute}]" value="${range?.[2] ?? ''}"></label>
</fieldset>`;
}

/**
 * A filter form's query with its date fields folded in: `from[<attribute>]` and
 * `to[<attribute>]` become `filter[<attribute>]=<from>..<to>` when the period is "Between the
 * dates", or none is chosen (Any time) and a day is given; a chosen period wins over the days.
 * What the engine reads as `filter` (anything else is passed on as it is).
 */
export function foldDateFields(query: Record<string, unknown>): unknown {
  const { filter, from, to } = query;
  const days = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const [starts, ends] = [days(from), days(to)];
  const attributes = new Set([...Object.keys(starts), ...Object.keys(ends)]);
  const byField = filter === undefined ? {} : filter;
  if (typeof byField !== 'object' || byField === null || Array.isArray(byField)) return filter;
  const out: Record<string, unknown> = { ...(byField as Record<string, unknown>) };
  // "Between the dates" without a day: every day.
  for (const [key, v] of Object.entries(out)) if (v === BETWEEN) out[key] = '';
  for (const a of attributes) {
    const start = typeof starts[a] === 'string' ? (starts[a] as string).trim() : '';
    const end = typeof ends[a] === 'string' ? (ends[a] as string).trim() : '';
    const period = (byField as Record<string, unknown>)[a];
    if ((start || end) && (period === BETWEEN || period === '' || period === undefined))
      out[a] = `${start}..${end}`;
  }
  return filter === undefined && Object.keys(out).length === 0 ? undefined : out;
}

/**
 * A filter's values to pick, as the app's picker: a drop-down of check boxes, the values most
 * frequent first with their counts, those chosen checked. Each checked value is a field of its
 * own (`filter[<attribute>]`, repeated), so several values reach the engine as several; the
 * hidden empty field makes "none checked" mean all values. No script: the page needs none
 * (the app's picker searches the API; here the list scrolls).
 */
function valuePicker(f: AppliedFilter, choices: AttributeValues): Html {
  const listed = new Set(choices.values.map((v) => v.value));
  // Values chosen that the list does not reach (rare ones) are offered first, checked.
  const extra = f.values.filter((v) => !listed.has(v)).map((value) => ({ value, count: null }));
  const all: { value: string; count: number | null }[] = [...extra, ...choices.values];
  const chosen = new Set(f.values);
  const summary = f.values.length ? f.values.join(', ') : 'All';
  const id = `f-pick-${f.attribute.replace(/[^\w-]/g, '_')}`;
  return html`<fieldset class="pick"><legend id="${id}">${f.title}</legend>
<details><summary aria-describedby="${id}">${summary}</summary><div class="pick-panel">
<input type="hidden" name="filter[${f.attribute}]" value="">
<ul role="group" aria-label="${f.title} values">${all.map(
    (v) =>
      html`<li><label><input type="checkbox" name="filter[${f.attribute}]" value="${v.value}"${chosen.has(v.value) && ' checked'}> ${v.value || '(empty)'}${v.count !== null && html` <span class="count">${defaultNumber(String(v.count))}</span>`}</label></li>`,
  )}</ul>${choices.truncated && html`<p class="note">The ${choices.values.length} most frequent values.</p>`}
</div></details></fieldset>`;
}

export interface DashboardPageOptions extends PageLinks {
  /** Where the filter form submits (the page itself); no form without it. */
  formAction?: string;
  frameAncestors?: string[];
  /** For printing (a PDF): tables with all their rows, across pages. */
  print?: boolean;
}

export function dashboardPage(d: DashboardRun, opts: DashboardPageOptions = {}): Page {
  // Items in reading order, so the one-column phone layout keeps the grid's order.
  const items = [...d.items].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
  // One field per filter (`filter[<attribute>]=value`); a value the dashboard already has is
  // shown, several as they are written in the address. A date filter is a period and two
  // days (dateRangeFields).
  // A filter wired to some items says which (the others are not narrowed by it).
  const titles = new Map(d.items.map((i) => [i.id, i.title || 'Text']));
  const narrowed = (f: AppliedFilter) =>
    (f.items ?? [])
      .filter((id) => titles.has(id))
      .map((id) => titles.get(id))
      .join(', ');
  const narrows = (f: AppliedFilter) =>
    f.items && html`<p class="note narrows">Narrows ${narrowed(f)} only</p>`;
  const filters =
    d.filters.length > 0 &&
    html`<form class="filters" method="get" action="${opts.formAction ?? ''}">
${d.filters.map(
  (f) =>
    html`<div class="field">${
      DATE_TYPES.has(f.dataType) && f.values.length <= 1
        ? dateRangeFields(f)
        : f.choices
          ? valuePicker(f, f.choices)
          : html`<label>${f.title}<input name="filter[${f.attribute}]" value="${f.values.length === 1 ? f.values[0] : ''}" placeholder="${f.values.length > 1 ? f.values.join(', ') : 'all'}"></label>`
    }${narrows(f)}</div>`,
)}
${opts.formAction !== undefined && html`<button type="submit">Apply</button>`}
</form>`;
  // Printed, the form gives way to what it selects, so a filtered PDF says it is filtered.
  const applied = d.filters.filter((f) => f.values.length > 0);
  const selection =
    opts.print &&
    applied.length > 0 &&
    html`<p class="applied">${applied.map(
      (f, n) =>
        html`${n > 0 && ' · '}<strong>${f.title}:</strong> ${f.values.map((v) => v.replace('..', ' – ')).join(', ')}${f.items && ` (${narrowed(f)} only)`}`,
    )}</p>`;
  const index = new Map(items.map((i, n) => [i, n]));
  const rows = opts.print ? PRINT_ROWS : ITEM_ROWS;
  // A dashboard with tabs: each tab a section of its own grid, one after the other, reached
  // from the list of tabs at the top (a page without script shows them all; so does print).
  const pages = d.tabs?.length
    ? d.tabs.map((t) => ({ tab: t, layout: bands(items.filter((i) => i.tab === t.id)) }))
    : [{ tab: null, layout: bands(items) }];
  const tabId = (id: string) => `tab-${id.replace(/[^\w-]/g, '_')}`;
  const classes = new CellClasses();
  const grid = (layout: ReturnType<typeof bands>) =>
    layout.map(
      (b) =>
        html`<div class="band${b.items.some(isRows) ? ' long' : ''}">${b.items.map((i) => item(i, index.get(i)!, opts, rows, classes))}</div>`,
    );
  const content = d.tabs?.length
    ? html`<nav class="tabs" aria-label="Tabs"><ul>${d.tabs.map((t) => html`<li><a href="#${tabId(t.id)}">${t.title}</a></li>`)}</ul></nav>
${pages.map((p) => html`<section class="tab" id="${tabId(p.tab!.id)}" aria-labelledby="${tabId(p.tab!.id)}-h"><h2 class="tab-title" id="${tabId(p.tab!.id)}-h">${p.tab!.title}</h2>${grid(p.layout)}</section>`)}`
    : grid(pages[0]!.layout);
  return renderPage({
    title: d.name,
    description: d.description || undefined,
    style: `${STYLE}${TABLE_STYLE}${classes.css()}\n@media (min-width:801px){\n${pages.map((p) => cells(p.layout, index)).join('\n')}\n}`,
    frameAncestors: opts.frameAncestors,
    body: html`<header><h1>${d.name}</h1>${d.description && html`<p class="desc">${d.description}</p>`}</header>
<main>${opts.print ? selection : filters}
${content}
${items.length === 0 && html`<p class="note">This dashboard has no items you can see.</p>`}
</main>`,
  });
}

/**
 * The page a URL of this site shows the caller, for printing (`app/export/url`): a dashboard
 * or report of their project, computed as them. null: not such a page.
 */
export async function sitePageHtml(
  engine: Engine,
  actor: ProjectActor,
  url: URL,
): Promise<{ title: string; html: string } | null> {
  // A public share (`/share/{token}`) is the same page for everyone: as its sharing Admin sees it.
  const share = new RegExp(`^${SHARE_PATH}/([^/]+)$`).exec(url.pathname);
  if (share) {
    const filter = filterParams(url.searchParams);
    const { run } = await engine.shares.publicDashboard(decodeURIComponent(share[1]!), filter);
    return { title: run.name, html: dashboardPage(run, { print: true }).html };
  }
  const prefix = apiHref('/projects/');
  if (!url.pathname.startsWith(prefix)) return null;
  const parts = url.pathname.slice(prefix.length).split('/').map(decodeURIComponent);
  if (parts.length !== 4 || parts[1] !== 'app' || parts[0] !== actor.projectId) return null;
  const [, , kind, ident] = parts as [string, string, string, string];
  const filter = filterParams(url.searchParams);
  if (kind === 'dashboards') {
    const d = await engine.reports.dashboard(actor, ident, filter);
    return { title: d.name, html: dashboardPage(d, { print: true }).html };
  }
  if (kind === 'reports') {
    const r = await engine.reports.report(actor, ident);
    return { title: r.name, html: reportPage(r).html };
  }
  return null;
}

/** The dashboard filters of a query string, both spellings as `attribute:value`. */
export function filterParams(params: URLSearchParams): string[] {
  const out: string[] = [];
  const fields: Record<string, Record<string, string | string[]>> = {
    filter: {},
    from: {},
    to: {},
  };
  for (const [key, value] of params) {
    if (key === 'filter') out.push(value);
    const m = /^(filter|from|to)\[(.+)\]$/.exec(key);
    if (!m) continue;
    const [field, attribute] = [fields[m[1]!]!, m[2]!];
    const had = field[attribute];
    field[attribute] = had === undefined ? value : [had, value].flat();
  }
  const folded = foldDateFields(fields) as Record<string, string | string[]> | undefined;
  for (const [attribute, value] of Object.entries(folded ?? {}))
    for (const one of [value].flat()) out.push(`${attribute}:${one}`);
  return out;
}
