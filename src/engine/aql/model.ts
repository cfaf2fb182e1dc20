// The model as AQL sees it: objects by identifier and title, datasets with their columns,
// and the logical data model (references many-to-one) with the join path between datasets.
import type { Prescription } from '../data/prescription.js';
import { TITLED_TYPES, titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';

export interface DatasetNode {
  name: string;
  /** What one row is (the prescription's description). */
  description: string | null;
  primaryKey: string | null;
  columns: Map<string, string>; // column id → dataType
  /** Reference columns: column id → referenced dataset. */
  refs: Map<string, string>;
}

/** One step of a join path: from `from`.`column` to the primary key of `to`. */
export interface Edge {
  from: string;
  column: string;
  to: string;
}

export class ModelSnapshot {
  readonly byIdent = new Map<string, ObjectRow>();
  readonly byTitle = new Map<string, ObjectRow[]>();
  readonly datasets = new Map<string, DatasetNode>();
  private pathCache = new Map<string, Edge[][]>();

  constructor(objects: ObjectRow[], datasets: Array<{ name: string; prescription: Prescription }>) {
    for (const o of objects) {
      this.byIdent.set(o.ident, o);
      // Only what AQL can use is named by title: a report may share a metric's title.
      if (!TITLED_TYPES.includes(o.type)) continue;
      const key = titleKey(o.name);
      const list = this.byTitle.get(key) ?? [];
      list.push(o);
      this.byTitle.set(key, list);
    }
    for (const d of datasets) {
      this.datasets.set(d.name, {
        name: d.name,
        description: d.prescription.description || null,
        primaryKey: d.prescription.primarykey || null,
        columns: new Map(d.prescription.columns.map((c) => [c.id, c.dataType])),
        refs: new Map(),
      });
    }
    // References come from the attributes loads made: only those whose target is loaded.
    for (const o of objects) {
      if (o.type !== 'attribute') continue;
      const def = o.def as { dataset?: string; column?: string; reference?: { dataset?: string } };
      const from = def.dataset ? this.datasets.get(def.dataset) : undefined;
      const to = def.reference?.dataset ? this.datasets.get(def.reference.dataset) : undefined;
      if (from && to?.primaryKey && def.column && from.columns.has(def.column))
        from.refs.set(def.column, to.name);
    }
  }

  /** Every distinct many-to-one path from `from` to `to` (none when unreachable). */
  paths(from: string, to: string): Edge[][] {
    const key = `${from}\u0000${to}`;
    let found = this.pathCache.get(key);
    if (!found) {
      found = [];
      const walk = (at: string, path: Edge[], seen: Set<string>) => {
        if (at === to) {
          found!.push(path);
          return;
        }
        for (const [column, target] of this.datasets.get(at)?.refs ?? []) {
          if (seen.has(target)) continue; // reference cycles never loop
          walk(target, [...path, { from: at, column, to: target }], new Set(seen).add(target));
        }
      };
      walk(from, [], new Set([from]));
      this.pathCache.set(key, found);
    }
    return found;
  }

  reaches(from: string, to: string): boolean {
    return this.paths(from, to).length > 0;
  }
}

export const describePath = (p: Edge[]): string =>
  p.length
    ? `${p[0]!.from}${p.map((e) => ` -(${e.column})-> ${e.to}`).join('')}`
    : '(same dataset)';
