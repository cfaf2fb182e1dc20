// The model as an AI assistant (or a person) needs it to write correct AQL: datasets with
// their attributes, labels, facts and metrics, each with its title, type, cardinality and a
// few example values — compact, filterable, paginated, and only what the caller may see.
import { createHash } from 'node:crypto';
import type { AttributeValues } from '../../contract/model.js';
import type { ProjectActor } from '../access/actor.js';
import type { Aql } from '../aql/service.js';
import type { DataProfile } from '../backends/backend.js';
import type { Backends } from '../backends/create.js';
import { datasetIdent } from '../aql/dataset-names.js';
import type { ModelSnapshot } from '../aql/model.js';
import { AqlError } from '../aql/errors.js';
import { invalid, notFound } from '../errors.js';
import { TITLED_TYPES, titleKey } from '../model/defs.js';
import { effectiveRoles, visibility } from '../model/acl.js';
import type { ObjectRow } from '../model/store.js';
import { refModel } from '../aql/ref-rewrite.js';
import { showDef } from '../model/saved-aql.js';

export interface CatalogColumn {
  id: string;
  title: string;
  type: 'attribute' | 'label' | 'fact';
  dataType: string;
  description?: string;
  /** Distinct values (attributes and labels). */
  cardinality?: number;
  examples?: string[];
  /** A label's attribute, an attribute's referenced dataset. */
  labelOf?: string;
  references?: string;
  primaryKey?: boolean;
}

export interface CatalogDataset {
  name: string;
  /** What one row is. */
  description?: string;
  /** Rows over the whole dataset; null for a member with a row-level filter. */
  rows: number | null;
  primaryKey: string | null;
  references: { column: string; dataset: string }[];
  columns: CatalogColumn[];
  /** A warehouse table that could not be read for the profile: why (rows are then null). */
  warning?: string;
}

export interface Catalog {
  datasets: CatalogDataset[];
  metrics: { id: string; title: string; description?: string; aql: string }[];
  filters: { id: string; title: string; description?: string; aql: string }[];
  total: number;
  nextCursor: string | null;
}

const EXAMPLES = 3;

export class CatalogService {
  // Profiles (cardinality, examples) per project and data version: computing them scans data.
  private profiles = new Map<string, Profile>();

  constructor(
    private readonly aql: Aql,
    /** A project's profile is read by its query backend (a warehouse's expires: data changes). */
    private readonly backends: Backends,
    private readonly dataVersion: (projectId: string) => Promise<number>,
  ) {}

  private async visibleObjects(a: ProjectActor): Promise<ObjectRow[]> {
    const snap = await this.aql.snapshot(a.projectId);
    const all = [...snap.byIdent.values()];
    const see = visibility(
      a,
      effectiveRoles(
        a,
        all.filter((o) => o.type === 'userrole'),
      ),
    );
    return all.filter(see);
  }

  /**
   * The catalog; `search` filters by title/id/description, `dataset` by dataset name (both
   * ignoring case). A cursor continues only the listing it came from (same search, dataset).
   */
  async catalog(
    a: ProjectActor,
    opts: { search?: string; dataset?: string; cursor?: string; limit?: number; profile?: boolean },
  ): Promise<Catalog> {
    const snap = await this.aql.snapshot(a.projectId);
    const objs = await this.visibleObjects(a);
    const q = opts.search?.trim().toLowerCase();
    const matches = (o: { ident: string; name: string; description?: string }) =>
      !q ||
      o.ident.toLowerCase().includes(q) ||
      o.name.toLowerCase().includes(q) ||
      (o.description ?? '').toLowerCase().includes(q);
    const profile = opts.profile === false ? null : await this.profile(a.projectId);
    // Examples, distinct counts and row counts are read over all rows: a member with a
    // row-level filter would learn about rows outside it, so they get none of them.
    const values = a.filter ? null : profile;
    const only = opts.dataset?.trim().toLowerCase();
    let datasets: CatalogDataset[] = [...snap.datasets.values()]
      .filter((d) => !only || d.name === only)
      .map((d) => {
        const columns = objs
          .filter(
            (o) =>
              ['attribute', 'label', 'fact'].includes(o.type) &&
              (o.def as { dataset?: string }).dataset === d.name,
          )
          .filter(matches)
          .map((o) => this.column(o, values));
        return {
          name: d.name,
          ...(d.description ? { description: d.description } : {}),
          rows: values ? (values.rows.get(d.name) ?? null) : null,
          primaryKey: d.primaryKey,
          references: [...d.refs].map(([column, dataset]) => ({ column, dataset })),
          columns,
          ...(profile?.failed.has(d.name) ? { warning: profile.failed.get(d.name) } : {}),
        };
      })
      .filter((d) => d.columns.length || (!q && !only));
    if (only && !snap.datasets.has(only)) {
      throw notFound(
        `no dataset "${opts.dataset}"; datasets: ${[...snap.datasets.keys()].join(', ') || 'none loaded yet'}`,
      );
    }
    const names = refModel(snap.byIdent.values());
    const saved = (type: string) =>
      objs
        .filter((o) => o.type === type && matches(o))
        .map((o) => ({
          id: o.ident,
          title: o.name,
          ...(o.description ? { description: o.description } : {}),
          aql: String(showDef(o.type, o.def, names).aql ?? ''),
        }));
    // Pagination walks datasets; metrics and filters come with the first page.
    const limit = Math.min(Math.max(opts.limit ?? 20, 1), 100);
    const listing = listingKey(q, only);
    const start = opts.cursor ? decodeCursor(opts.cursor, listing) : 0;
    const total = datasets.length;
    datasets = datasets.slice(start, start + limit);
    const next = start + limit < total ? encodeCursor(start + limit, listing) : null;
    return {
      datasets,
      metrics: start === 0 ? saved('metric') : [],
      filters: start === 0 ? saved('filter') : [],
      total,
      nextCursor: next,
    };
  }

  /**
   * Every dataset the caller reads with its columns, and the metrics: the whole model as the
   * SQL API shows it (no profile, no pages).
   */
  async schema(a: ProjectActor): Promise<{
    datasets: Omit<CatalogDataset, 'rows'>[];
    metrics: { id: string; title: string; description?: string }[];
  }> {
    const snap = await this.aql.snapshot(a.projectId);
    const objs = await this.visibleObjects(a);
    const datasets = [...snap.datasets.values()]
      .map((d) => ({
        name: d.name,
        ...(d.description ? { description: d.description } : {}),
        primaryKey: d.primaryKey,
        references: [...d.refs].map(([column, dataset]) => ({ column, dataset })),
        columns: objs
          .filter(
            (o) =>
              ['attribute', 'label', 'fact'].includes(o.type) &&
              (o.def as { dataset?: string }).dataset === d.name,
          )
          .map((o) => this.column(o, null)),
      }))
      .filter((d) => d.columns.length);
    const metrics = objs
      .filter((o) => o.type === 'metric')
      .map((o) => ({
        id: o.ident,
        title: o.name,
        ...(o.description ? { description: o.description } : {}),
      }));
    return { datasets, metrics };
  }

  private column(o: ObjectRow, profile: Profile | null): CatalogColumn {
    const def = o.def as {
      dataset: string;
      column: string;
      dataType: string;
      attribute?: string;
      reference?: { dataset?: string };
      primaryKey?: boolean;
    };
    const p = o.type === 'fact' ? undefined : profile?.byColumn.get(`${def.dataset}.${def.column}`);
    return {
      id: o.ident,
      title: o.name,
      type: o.type as CatalogColumn['type'],
      dataType: def.dataType,
      ...(o.description ? { description: o.description } : {}),
      ...(p ? { cardinality: p.cardinality, examples: p.examples } : {}),
      ...(def.attribute ? { labelOf: def.attribute } : {}),
      ...(def.reference?.dataset ? { references: def.reference.dataset } : {}),
      ...(def.primaryKey ? { primaryKey: true } : {}),
    };
  }

  private async profile(projectId: string): Promise<Profile> {
    const version = await this.dataVersion(projectId);
    const hit = this.profiles.get(projectId);
    const { query } = await this.backends.of(projectId);
    const ttl = query.profileTtlMs;
    if (hit && hit.version === version && (ttl === null || Date.now() - hit.at < ttl)) return hit;
    const snap = await this.aql.snapshot(projectId);
    const datasets = [...snap.datasets.values()].map((d) => ({
      name: d.name,
      columns: [...d.columns.keys()],
    }));
    const p: Profile = {
      version,
      at: Date.now(),
      ...(await query.profile(projectId, datasets, EXAMPLES)),
    };
    // A profile with failures is not kept: the next call tries the database again.
    if (!p.failed.size) this.profiles.set(projectId, p);
    return p;
  }

  /**
   * Distinct values of an attribute or label with their row counts, under the caller's
   * row-level filter (through AQL), optionally starting with a prefix.
   */
  async attributeValues(
    a: ProjectActor,
    ref: string,
    opts: { prefix?: string; limit?: number },
  ): Promise<AttributeValues> {
    const obj = await this.find(a, ref);
    if (obj.type !== 'attribute' && obj.type !== 'label')
      throw invalid(`[${obj.name}] is a ${obj.type}; values are listed for attributes and labels`);
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), 1000);
    const def = obj.def as { dataset: string };
    // The facts' rows (flights per origin state, not airports), else the attribute's own
    // dataset's, key or no key (by its identifier: no title can take it). Ties are in value
    // order (then by the attribute a label shows, as AQL sorts).
    const counted = factsOf(await this.aql.snapshot(a.projectId), def.dataset) ?? def.dataset;
    const counter = `COUNT([${datasetIdent(counted)}])`;
    // Any case: people type "atl" for Atlanta. No escape character: % and _ in a prefix stay
    // wildcards (documented).
    const where = opts.prefix ? ` WHERE [${obj.ident}] ILIKE ${aqlString(`${opts.prefix}%`)}` : '';
    const text = `SELECT [${obj.ident}], ${counter}${where} ORDER BY 2 DESC, 1 LIMIT ${limit + 1}`;
    const rows = await this.aql.run(a, text);
    return {
      values: rows.slice(0, limit).map((r) => ({ value: r[0] ?? '', count: Number(r[1] ?? 0) })),
      truncated: rows.length > limit,
      counts: counted,
    };
  }

  /** Which attributes can break a metric/fact down, or which measures an attribute can break down. */
  async compatible(
    a: ProjectActor,
    ref: string,
  ): Promise<{
    object: { id: string; title: string; type: string };
    anchors: string[];
    compatible: { id: string; title: string; type: string }[];
  }> {
    const obj = await this.find(a, ref);
    const snap = await this.aql.snapshot(a.projectId);
    const objs = await this.visibleObjects(a);
    const datasetOf = (o: ObjectRow) => (o.def as { dataset?: string }).dataset;
    const anchorsOf = async (o: ObjectRow): Promise<string[]> => {
      if (o.type === 'fact') return [datasetOf(o)!];
      if (o.type === 'metric') return this.aql.anchors(a, o.ident);
      return [];
    };
    const view = (o: ObjectRow) => ({ id: o.ident, title: o.name, type: o.type });
    if (obj.type === 'fact' || obj.type === 'metric') {
      const anchors = await anchorsOf(obj);
      const dims = objs.filter(
        (o) =>
          (o.type === 'attribute' || o.type === 'label') &&
          anchors.every((an) => an === datasetOf(o) || snap.paths(an, datasetOf(o)!).length === 1),
      );
      return { object: view(obj), anchors, compatible: dims.map(view) };
    }
    if (obj.type === 'attribute' || obj.type === 'label') {
      const home = datasetOf(obj)!;
      const measures: ObjectRow[] = [];
      for (const o of objs) {
        if (o.type !== 'fact' && o.type !== 'metric') continue;
        const anchors = await anchorsOf(o);
        if (
          anchors.length > 0 &&
          anchors.every((an) => an === home || snap.paths(an, home).length === 1)
        )
          measures.push(o);
      }
      return { object: view(obj), anchors: [home], compatible: measures.map(view) };
    }
    throw invalid(
      `[${obj.name}] is a ${obj.type}; compatibility is about facts, metrics, attributes and labels`,
    );
  }

  /**
   * A visible object by identifier or title: the same rules as AQL references, then (for a
   * title AQL does not resolve) reports, dashboards, folders… by their title.
   */
  async find(a: ProjectActor, ref: string): Promise<ObjectRow> {
    const name = ref.replace(/^\[|\]$/g, '').trim();
    try {
      return await this.aql.lookup(a, name);
    } catch (err) {
      if (!(err instanceof AqlError) || 'candidates' in err.context) throw err;
      const key = titleKey(name);
      const hits = (await this.visibleObjects(a)).filter(
        (o) => !TITLED_TYPES.includes(o.type) && titleKey(o.name) === key,
      );
      if (hits.length === 1) return hits[0]!;
      if (!hits.length) throw err;
      const ids = hits.map((o) => o.ident);
      throw invalid(
        `[${name}] is ambiguous: ${ids.length} objects have that title; use an identifier: ${ids.map((i) => `[${i}]`).join(', ')}`,
        { candidates: ids },
      );
    }
  }
}

interface Profile extends DataProfile {
  version: number;
  /** When it was read (a backend's profile may expire within a data version). */
  at: number;
}

/** An AQL string literal: quotes are doubled. */
const aqlString = (v: string) => `"${v.replace(/"/g, '""')}"`;

/** What a cursor is bound to: the listing's search and dataset. */
const listingKey = (search: string | undefined, dataset: string | undefined) =>
  createHash('sha256')
    .update(JSON.stringify([search ?? '', dataset ?? '']))
    .digest('base64url')
    .slice(0, 12);

const encodeCursor = (n: number, listing: string) =>
  Buffer.from(`o:${n}:${listing}`).toString('base64url');

function decodeCursor(c: string, listing: string): number {
  const m = /^o:(\d+):([\w-]+)$/.exec(Buffer.from(c, 'base64url').toString('utf8'));
  if (!m)
    throw invalid(`invalid cursor "${c.slice(0, 40)}"; use the nextCursor of the previous page`);
  if (m[2] !== listing)
    throw invalid(
      'the cursor belongs to a listing with another search or dataset; pass the same search and dataset as the call that returned it, or no cursor',
    );
  return Number(m[1]);
}

/**
 * The dataset whose rows a value of `home` is counted in: the one dataset holding facts that
 * reaches `home` by exactly one path and that no other such dataset reaches (the flights, for
 * an airport's region: not the airports). Null when there is none, or several.
 */
export function factsOf(snap: ModelSnapshot, home: string): string | null {
  const withFacts = new Set<string>();
  for (const o of snap.byIdent.values())
    if (o.type === 'fact') withFacts.add((o.def as { dataset?: string }).dataset ?? '');
  const reaching = [...snap.datasets.keys()].filter(
    (d) => d !== home && withFacts.has(d) && snap.paths(d, home).length === 1,
  );
  const outer = reaching.filter((d) => !reaching.some((o) => o !== d && snap.reaches(o, d)));
  return outer.length === 1 ? outer[0]! : null;
}
