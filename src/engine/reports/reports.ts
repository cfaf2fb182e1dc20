// Reports and dashboards, computed for a reader (SHARING.md "Rendering"). Every item runs as
// the reader: their roles decide which reports exist for them and their row-level filter
// applies. A dashboard shared with them (a private share) opens it and its reports even where
// the ACL hides them, still under their own row filter. Dashboard filters (`def.filters`, with
// values chosen by the caller) narrow every item the way a row filter does: wherever the
// item's data reaches the attribute.
import type { DashboardFilter, ReportColumn } from '../../contract/dashboards.js';
import type { AttributeValues } from '../../contract/model.js';
import type { ProjectActor } from '../access/actor.js';
import type { Aql, QueryResult } from '../aql/service.js';
import type { ModelSnapshot } from '../aql/model.js';
import { EngineError, invalid, notFound } from '../errors.js';
import { seesEverything } from '../model/acl.js';
import type { ModelObjects } from '../model/objects.js';
import { showDef } from '../model/saved-aql.js';
import { reportDef } from '../model/defs.js';
import { parseInput } from '../validate.js';
import { jsonCell } from '../aql/format.js';
import { snapshotNames } from '../aql/saved-refs.js';
import type { ModelScope } from '../model/scope.js';
import type { ObjectRow } from '../model/store.js';
import { MAX_CHART_ROWS, renderChartSvg, type ChartSize, type ChartSpec } from './chart.js';
import { FilterValueError, valuesCondition as valuesAql } from '../../shared/filter-values.js';
import {
  columnTitle,
  isChart,
  kpiColumn,
  visualizationSpec,
  type Visualization,
} from './visualization.js';
import { computePivot, type PivotRun } from './pivot.js';
import { resolveRules, type ConditionalRule, type ResolvedRule } from '../../shared/conditional.js';
import { mapWarning, unmatchedRegions } from './visualization-kinds.js';
import { computeKpi, kpiRow, type Kpi } from './kpi.js';

/** Whether a dashboard is shared with this member (a private share naming them). */
export type ShareGrant = (projectId: string, dashboard: string, email: string) => Promise<boolean>;

/** Each metric's display format by its title, lower-cased (the title a result column has). */
export function metricFormats(snap: ModelSnapshot): Map<string, string> {
  const formats = new Map<string, string>();
  for (const o of snap.byIdent.values()) {
    const f = (o.def as { format?: unknown }).format;
    if (o.type === 'metric' && typeof f === 'string' && f) formats.set(o.name.toLowerCase(), f);
  }
  return formats;
}

export type { ReportColumn };

export interface ReportRun {
  ident: string;
  name: string;
  description: string;
  visualization: Visualization;
  columns: ReportColumn[];
  rows: string[][];
  /**
   * The chart of a chart visualization: its chart spec (data inline) and SVG (left out when
   * run with `svg: false`: for a client that draws the spec itself, the app).
   */
  chart?: { spec: ChartSpec; svg?: string };
  /** A `kpi`: the number, as computed (a JSON cell, aql/format.ts) and as shown (kpi.ts). */
  kpi?: Kpi;
  /** A `pivot`: its cells as text, totals computed at their grain (pivot.ts). */
  pivot?: PivotRun;
  /** A table's conditional formatting, resolved against every row (shared/conditional.ts). */
  conditional?: ResolvedRule[];
  warnings?: QueryResult['warnings'];
}

/**
 * A run's KPI as JSON answers give it: `value` as jsonCell gives the cell, rounded or, with
 * `exact`, a fraction no JSON number holds as its exact text (aql/format.ts).
 */
export function kpiJson(r: ReportRun, exact = false): ReportRun['kpi'] {
  if (!r.kpi || !exact || !r.rows.length) return r.kpi;
  const i = kpiColumn(r.visualization, r);
  const col = r.columns[i];
  const row = kpiRow(r.visualization, r);
  return { ...r.kpi, value: jsonCell(row?.[i] ?? '', col?.dataType ?? 'string', true) };
}

export interface DashboardItemRun {
  id: string;
  title: string;
  /** The report it shows; a text item has none, and its `text` instead. */
  report?: string;
  text?: string;
  /** The tab it is on, on a dashboard with tabs. */
  tab?: string;
  layout: { x: number; y: number; w: number; h: number };
  result?: ReportRun;
  /** Why this item could not be computed (the rest of the dashboard still is). */
  error?: string;
}

/**
 * A filter as applied, and (asked for by pages without the API: a public share, the HTML
 * page) the values a reader may pick, most frequent first, with their counts.
 */
export type AppliedFilter = DashboardFilter & { choices?: AttributeValues };

/** How many values a page's picker lists (the app searches the API for the rest). */
export const CHOICES = 200;

/** Lists an attribute's values for a reader (the catalog's, with its counts). */
export type ValueLister = (
  a: ProjectActor,
  attribute: string,
  opts: { limit: number },
) => Promise<AttributeValues>;

export interface DashboardRun {
  ident: string;
  name: string;
  description: string;
  filters: AppliedFilter[];
  items: DashboardItemRun[];
  /** Its tabs, in order (none: one page). */
  tabs?: { id: string; title: string }[];
  /** Seconds between automatic refreshes of an open dashboard. */
  refresh?: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Chart size in pixels (a dashboard sizes each item's chart by its layout). */
  size?: ChartSize;
  /** false: the chart's spec only, not drawn to SVG (most of a dashboard's time). */
  svg?: boolean;
}

interface DashboardDef {
  items: ({ id: string; title?: string; tab?: string } & ({ report: string } | { text: string }))[];
  layout?: { item: string; x: number; y: number; w: number; h: number }[];
  filters?: { attribute: string; values?: string[]; aql?: string; items?: string[] }[];
  tabs?: { id: string; title: string }[];
  refresh?: number;
}

/** Layout grid: 12 columns; a cell is this many pixels for sizing charts. */
export const GRID_COLUMNS = 12;
const CELL_W = 80;
const CELL_H = 60;
const MAX_FILTER_VALUES = 1000;
const DATE_TYPES = new Set(['date', 'datetime']);

export class Reports {
  private grant: ShareGrant = async () => false;
  private values: ValueLister | null = null;

  constructor(
    private readonly objects: ModelObjects,
    private readonly aql: Aql,
  ) {}

  /** The sharing service tells who a dashboard is shared with. */
  setShareGrant(grant: ShareGrant): void {
    this.grant = grant;
  }

  /** The catalog lists the values a filter's picker offers. */
  setValueLister(values: ValueLister): void {
    this.values = values;
  }

  /** Dashboards (or reports) the reader may open: by their roles, or shared with them. */
  async list(a: ProjectActor, type: 'dashboard' | 'report'): Promise<ObjectRow[]> {
    const s = await this.objects.scope(a);
    const out: ObjectRow[] = [];
    for (const r of s.index.rows)
      if (r.type === type && (await this.opens(a, s, r)) !== null) out.push(r);
    return out;
  }

  /** A report computed for the reader, with its chart or number. */
  async report(
    a: ProjectActor,
    ident: string,
    opts: RunOptions & { filter?: unknown } = {},
  ): Promise<ReportRun> {
    const s = await this.objects.scope(a);
    const row = await this.mustOpen(a, s, ident, 'report');
    const seeAll = (await this.opens(a, s, row)) === 'shared';
    return this.run(a, row, seeAll, opts);
  }

  /** A dashboard computed for the reader; `filter` holds the caller's `attribute:value` picks. */
  async dashboard(
    a: ProjectActor,
    ident: string,
    filter: unknown,
    opts: {
      signal?: AbortSignal;
      /** Compute this item only (its download). */ only?: string;
      /** Each filter (not a date's) with the values its picker offers (`choices`). */
      choices?: boolean;
      /** false: charts as their spec only (RunOptions). */
      svg?: boolean;
    } = {},
  ): Promise<DashboardRun> {
    const s = await this.objects.scope(a);
    const dash = await this.mustOpen(a, s, ident, 'dashboard');
    const shared = (await this.opens(a, s, dash)) === 'shared';
    const def = dash.def as unknown as DashboardDef;
    const filters = await this.applyFilters(a, def, filter);
    // Each item read through the filters wired to it (`items`; none named: every item).
    const readerOf = (item: string): ProjectActor => {
      const condition = filterCondition(filters.filter((f) => !f.items || f.items.includes(item)));
      return condition
        ? { ...a, filter: a.filter ? `(${a.filter}) AND (${condition})` : condition }
        : a;
    };
    const firstTab = def.tabs?.[0]?.id;
    const placed = placeItems(def).filter(
      (p) => opts.only === undefined || p.item.id === opts.only,
    );
    if (opts.only !== undefined && !placed.length)
      throw notFound(`item "${opts.only}" not found on dashboard "${ident}"`, { item: opts.only });
    const items = await Promise.all(
      placed.map(async ({ item, layout }): Promise<DashboardItemRun | null> => {
        const tab = firstTab === undefined ? {} : { tab: item.tab ?? firstTab };
        if ('text' in item)
          return { id: item.id, title: item.title ?? '', text: item.text, ...tab, layout };
        const report = s.index.byIdent.get(item.report);
        // An item whose report the reader cannot open is left out, unnamed.
        if (!report || report.type !== 'report' || (!shared && !s.visible(report))) return null;
        const base = {
          id: item.id,
          title: item.title ?? report.name,
          report: report.ident,
          ...tab,
          layout,
        };
        const size = {
          width: layout.w * CELL_W - 40,
          height: Math.max(120, layout.h * CELL_H - 90),
        };
        try {
          const run = { signal: opts.signal, size, svg: opts.svg };
          return { ...base, result: await this.run(readerOf(item.id), report, shared, run) };
        } catch (err) {
          if (err instanceof EngineError) return { ...base, error: err.message };
          throw err;
        }
      }),
    );
    const values = this.values;
    const offered =
      opts.choices && values
        ? await Promise.all(
            filters.map(async (f) =>
              DATE_TYPES.has(f.dataType)
                ? f
                : { ...f, choices: await values(a, f.attribute, { limit: CHOICES }) },
            ),
          )
        : filters;
    return {
      ident: dash.ident,
      name: dash.name,
      description: dash.description,
      filters: offered,
      items: items.filter((i): i is DashboardItemRun => i !== null),
      ...(def.tabs?.length ? { tabs: def.tabs.map((t) => ({ id: t.id, title: t.title })) } : {}),
      ...(def.refresh ? { refresh: def.refresh } : {}),
    };
  }

  /**
   * How the reader may open an object: through a share (which opens what their roles hide),
   * by their roles, or not at all. A share wins: a member who reads a dashboard by role and
   * is also named in its share sees the reports the share opens.
   */
  private async opens(
    a: ProjectActor,
    s: ModelScope,
    row: ObjectRow,
  ): Promise<'acl' | 'shared' | null> {
    if (seesEverything(a)) return 'acl'; // Admins and MD Admins read every object already
    if (row.type === 'dashboard' && (await this.grant(a.projectId, row.ident, a.email)))
      return 'shared';
    if (row.type === 'report') {
      let viaShare = false;
      for (const d of s.index.rows)
        if (
          d.type === 'dashboard' &&
          (d.def as unknown as DashboardDef).items.some(
            (i) => 'report' in i && i.report === row.ident,
          ) &&
          (await this.grant(a.projectId, d.ident, a.email))
        ) {
          viaShare = true;
          break;
        }
      if (viaShare) return 'shared';
    }
    return s.visible(row) ? 'acl' : null;
  }

  private async mustOpen(
    a: ProjectActor,
    s: ModelScope,
    ident: string,
    type: 'report' | 'dashboard',
  ): Promise<ObjectRow> {
    const row = s.index.byIdent.get(ident);
    // Hidden and missing read the same: a hidden object does not exist for the reader.
    if (!row || row.type !== type || (await this.opens(a, s, row)) === null)
      throw notFound(`${type} "${ident}" not found`, { ident, type });
    return row;
  }

  /**
   * A report that is not saved (Explore's question): its definition (`{ aql, visualization }`,
   * checked as a saved report's is) computed for the reader as a saved one would be — the
   * same chart spec, number or pivot with its totals at their grain — under their object
   * visibility and row filter.
   */
  async compute(a: ProjectActor, def: unknown, opts: RunOptions = {}): Promise<ReportRun> {
    const { aql, visualization } = parseInput(reportDef, def, 'report');
    // It runs as written (as Explore runs it), so its columns have the titles the reader wrote.
    const head = { ident: '', name: '', description: '' };
    return this.computeRun(a, head, aql, visualization as Visualization, false, opts);
  }

  private async run(
    a: ProjectActor,
    row: ObjectRow,
    seeAll: boolean,
    opts: RunOptions,
  ): Promise<ReportRun> {
    const def = row.def as unknown as { aql: string; visualization: Visualization };
    // Saved AQL is stored by identifier; run it as shown (what was written by title reads by
    // title again), so a column's title is what its author wrote, not `SUM([fact.x.y])`.
    const snap = await this.aql.snapshot(a.projectId);
    const text = (showDef(row.type, row.def, snapshotNames(snap)) as { aql: string }).aql;
    return this.computeRun(a, row, text, def.visualization, seeAll, opts);
  }

  private async computeRun(
    a: ProjectActor,
    row: { ident: string; name: string; description: string },
    text: string,
    vis: Visualization,
    seeAll: boolean,
    opts: RunOptions,
  ): Promise<ReportRun> {
    const signal = opts.signal ?? new AbortController().signal;
    const r = await this.aql.query(a, text, signal, { seeAll });
    const columns = await this.withFormats(a, r.columns);
    const out: ReportRun = {
      ident: row.ident,
      name: row.name,
      description: row.description,
      visualization: vis,
      columns,
      rows: r.rows,
      ...(r.warnings?.length ? { warnings: r.warnings } : {}),
    };
    if (vis.type === 'kpi') {
      out.kpi = computeKpi(vis, { columns, rows: r.rows }, row.name);
    } else if (vis.type === 'pivot') {
      out.pivot = await computePivot(text, vis, out, (aql) =>
        this.aql.query(a, aql, signal, { seeAll }),
      );
    } else if (isChart(vis.type)) {
      if (r.rows.length > MAX_CHART_ROWS)
        throw invalid(
          `${row.name ? `report "${row.name}"` : 'the query'} returned ${r.rows.length} rows; a chart shows at most ${MAX_CHART_ROWS}: aggregate or filter its query`,
          { ...(row.ident ? { ident: row.ident } : {}), rows: r.rows.length },
        );
      if (r.rows.length > 0) {
        const spec = visualizationSpec(vis, r, opts.size ?? { width: 640, height: 360 });
        out.chart = opts.svg === false ? { spec } : { spec, svg: await renderChartSvg(spec) };
        // A region the map has no boundary for is said, not silently left out.
        const unmatched = unmatchedRegions(spec);
        if (unmatched.length) out.warnings = [...(out.warnings ?? []), mapWarning(spec, unmatched)];
      }
    }
    const rules = vis.conditional as ConditionalRule[] | undefined;
    if (vis.type === 'table' && rules?.length) {
      const index = (ref: string | number, role: string) => {
        const title = columnTitle(r, ref, role);
        return r.columns.findIndex((c) => c.title === title);
      };
      out.conditional = resolveRules(rules, index, r.rows);
    }
    return out;
  }

  /** Columns showing a metric carry its format (the metric whose title the column has). */
  private async withFormats(
    a: ProjectActor,
    columns: QueryResult['columns'],
  ): Promise<ReportColumn[]> {
    const formats = metricFormats(await this.aql.snapshot(a.projectId));
    return columns.map((c) => {
      const f = c.kind === 'measure' ? formats.get(c.title.toLowerCase()) : undefined;
      return f ? { ...c, format: f } : { ...c };
    });
  }

  /**
   * The dashboard's filters with the values that apply: the caller's picks
   * (`filter=<attribute>:<value>`, repeatable; the attribute by identifier or title), else
   * the dashboard's own `values`.
   */
  private async applyFilters(
    a: ProjectActor,
    def: DashboardDef,
    filter: unknown,
  ): Promise<AppliedFilter[]> {
    const declared = def.filters ?? [];
    const snap = await this.aql.snapshot(a.projectId);
    const picks = new Map<string, string[]>();
    const pick = (key: string, value: string) => {
      const f = declared.find(
        (d) =>
          d.attribute === key ||
          snap.byIdent.get(d.attribute)?.name.toLowerCase() === key.toLowerCase(),
      );
      if (!f)
        throw invalid(
          `filter "${key}" is not a filter of this dashboard; its filters: ${declared.map((d) => d.attribute).join(', ') || 'none'}`,
          { field: 'filter', filters: declared.map((d) => d.attribute) },
        );
      // An empty value (`filter=attr.region:`, an empty form field) selects all values.
      const list = picks.get(f.attribute) ?? [];
      if (value !== '') list.push(value);
      picks.set(f.attribute, list);
    };
    const shape = () =>
      invalid(
        'filter must be <attribute>:<value> (repeatable), or filter[<attribute>]=<value>; e.g. filter=attr.region:EU',
        { field: 'filter' },
      );
    // filter=<attribute>:<value>, repeatable; or filter[<attribute>]=<value> (a form's fields).
    const entries: [string, string][] = [];
    if (
      filter !== undefined &&
      filter !== null &&
      typeof filter === 'object' &&
      !Array.isArray(filter)
    ) {
      for (const [key, v] of Object.entries(filter as Record<string, unknown>))
        for (const one of Array.isArray(v) ? v : [v]) {
          if (typeof one !== 'string') throw shape();
          entries.push([key, one]);
        }
    } else {
      for (const g of filter === undefined ? [] : Array.isArray(filter) ? filter : [filter]) {
        if (typeof g !== 'string') throw shape();
        if (g === '') continue;
        const at = g.indexOf(':');
        if (at <= 0) throw shape();
        entries.push([g.slice(0, at).trim(), g.slice(at + 1)]);
      }
    }
    if (entries.length > MAX_FILTER_VALUES)
      throw invalid(`at most ${MAX_FILTER_VALUES} filter values`, { field: 'filter' });
    for (const [key, value] of entries) pick(key, value);
    return declared.map((d) => {
      const obj = snap.byIdent.get(d.attribute);
      const values = picks.get(d.attribute) ?? d.values ?? [];
      const dataType = String((obj?.def as { dataType?: unknown } | undefined)?.dataType ?? '');
      valuesCondition(d.attribute, values, dataType); // refuse bad values up front
      return {
        attribute: d.attribute,
        title: obj?.name ?? d.attribute,
        values,
        ...(d.aql ? { aql: d.aql } : {}),
        ...(d.items ? { items: d.items } : {}),
        dataType,
      };
    });
  }
}

/** A filter's values as AQL; a value that cannot be one is the caller's 400. */
function valuesCondition(attribute: string, values: string[], dataType: string): string | null {
  try {
    return valuesAql(attribute, values, dataType);
  } catch (e) {
    if (e instanceof FilterValueError)
      throw invalid(e.message, { field: 'filter', attribute: e.attribute });
    throw e;
  }
}

/** The AQL condition of the applied filters (null when none narrows anything). */
function filterCondition(filters: AppliedFilter[]): string | null {
  const parts: string[] = [];
  for (const f of filters) {
    const values = valuesCondition(f.attribute, f.values, f.dataType);
    if (values) parts.push(values);
    if (f.aql) parts.push(`(${f.aql})`);
  }
  return parts.length ? parts.join(' AND ') : null;
}

/** Items with their grid cell: as laid out, then the unplaced ones full width below. */
function placeItems(def: DashboardDef) {
  const cells = new Map((def.layout ?? []).map((l) => [l.item, l]));
  let bottom = Math.max(0, ...(def.layout ?? []).map((l) => l.y + l.h));
  return def.items.map((item) => {
    const l = cells.get(item.id);
    if (l) {
      const w = Math.min(l.w, GRID_COLUMNS);
      return { item, layout: { x: Math.min(l.x, GRID_COLUMNS - w), y: l.y, w, h: l.h } };
    }
    const layout = { x: 0, y: bottom, w: GRID_COLUMNS, h: 5 };
    bottom += 5;
    return { item, layout };
  });
}
