// pmd/graph/ldm (datasets, their columns and the references between them) and
// pmd/graph/odm (objects and what they depend on), both limited to what the actor can read:
// a column whose object is hidden is left out, a dataset with no readable column too.
import { objectIdOf, type DatasetInfo } from '../data/datasets.js';
import type { Prescription } from '../data/prescription.js';
import type { ModelScope } from './scope.js';

const TYPE_OF = { A: 'attribute', L: 'label', F: 'fact' } as const;

export interface LdmColumn {
  id: string;
  ident: string;
  type: 'attribute' | 'label' | 'fact';
  name: string;
  dataType: string;
  primaryKey: boolean;
  /** Labels: the attribute column they display. */
  labelOf?: string;
}

export interface LdmDataset {
  name: string;
  /** Rows over the whole dataset; null for a reader with a row-level filter. */
  rows: number | null;
  primaryKey: string | null;
  columns: LdmColumn[];
}

/** A many-to-one reference: `from`.`column` → the dataset `to` (its key attribute `target`). */
export interface LdmReference {
  from: string;
  column: string;
  attribute: string;
  to: string;
  target: string | null;
}

export interface LdmGraph {
  datasets: LdmDataset[];
  references: LdmReference[];
}

export function ldmGraph(
  s: ModelScope,
  datasets: Array<DatasetInfo & { prescription: Prescription }>,
): LdmGraph {
  const out: LdmDataset[] = [];
  for (const d of datasets) {
    const columns: LdmColumn[] = [];
    for (const c of d.prescription.columns) {
      const ident = objectIdOf(d.name, c);
      const row = s.get(ident);
      if (!row) continue;
      columns.push({
        id: c.id,
        ident,
        type: TYPE_OF[c.objectType],
        name: row.name,
        dataType: c.dataType,
        primaryKey: c.id === d.primaryKey,
        ...(c.labelOf ? { labelOf: c.labelOf } : {}),
      });
    }
    // A row-level filter's reader must not learn how many rows exist outside it.
    const rows = s.actor.filter ? null : d.rows;
    if (columns.length) out.push({ name: d.name, rows, primaryKey: d.primaryKey, columns });
  }
  const shown = new Set(out.map((d) => d.name));
  const references: LdmReference[] = [];
  for (const row of s.rows()) {
    if (row.type !== 'attribute') continue;
    const def = row.def as {
      dataset?: string;
      column?: string;
      reference?: { dataset: string; attribute: string | null };
    };
    if (!def.reference || !shown.has(def.dataset!) || !shown.has(def.reference.dataset)) continue;
    references.push({
      from: def.dataset!,
      column: def.column!,
      attribute: row.ident,
      to: def.reference.dataset,
      target: def.reference.attribute,
    });
  }
  return { datasets: out, references };
}

export interface OdmNode {
  ident: string;
  type: string;
  name: string;
}

/** `from` depends on `to` (`to` is a predecessor of `from`). */
export interface OdmEdge {
  from: string;
  to: string;
}

export interface OdmGraph {
  nodes: OdmNode[];
  edges: OdmEdge[];
}

export function odmGraph(s: ModelScope): OdmGraph {
  const rows = s.rows();
  const edges: OdmEdge[] = [];
  for (const row of rows)
    for (const p of s.index.predecessors(row))
      if (s.visible(p)) edges.push({ from: row.ident, to: p.ident });
  return {
    nodes: rows.map((r) => ({ ident: r.ident, type: r.type, name: r.name })),
    edges,
  };
}
