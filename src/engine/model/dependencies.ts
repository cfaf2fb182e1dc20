// Which objects an object depends on. AQL references resolve as the compiler resolves them
// (exact identifier, then title case-insensitively, AQL.md §2); every other reference is an
// identifier. An ambiguous title depends on every object that has it: deleting either would
// change what the AQL means, so both are protected.
import { referencesIn } from '../aql/references.js';
import { refModel, type RefModel } from '../aql/ref-rewrite.js';
import { TITLED_TYPES, titleKey } from './defs.js';
import type { ObjectRow } from './store.js';

export interface Ref {
  /** The text as written: an identifier, or in AQL possibly a title. */
  text: string;
  /** Where it was found, as a path into the object (`def.aql`, `def.items.0.report`). */
  field: string;
  /** AQL references may name a title; other fields hold identifiers only. */
  aql: boolean;
}

type Def = Record<string, unknown>;
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const rec = (v: unknown): Def => (v && typeof v === 'object' ? (v as Def) : {});

/** The references written in a def (defs are read defensively: old rows may predate a rule). */
export function refsOf(type: string, def: Def): Ref[] {
  const out: Ref[] = [];
  const ident = (v: unknown, field: string) => {
    const s = str(v);
    if (s) out.push({ text: s, field, aql: false });
  };
  const aql = (v: unknown, field: string) => {
    const s = str(v);
    if (s) for (const text of referencesIn(s)) out.push({ text, field, aql: true });
  };
  switch (type) {
    case 'metric':
    case 'filter':
    case 'report':
      aql(def.aql, 'def.aql');
      break;
    case 'dashboard':
      arr(def.items).forEach((it, i) => ident(rec(it).report, `def.items.${i}.report`));
      arr(def.filters).forEach((f, i) => {
        ident(rec(f).attribute, `def.filters.${i}.attribute`);
        aql(rec(f).aql, `def.filters.${i}.aql`);
      });
      break;
    case 'folder':
      arr(def.content).forEach((c, i) => ident(c, `def.content.${i}`));
      break;
    case 'trigger':
      for (const f of ['flow', 'after', 'credentials']) ident(def[f], `def.${f}`);
      break;
    case 'subscription':
      ident(def.dashboard, 'def.dashboard');
      break;
    case 'alert':
      ident(def.metric, 'def.metric');
      ident(rec(def.webhook).secret, 'def.webhook.secret');
      aql(def.aql, 'def.aql');
      break;
    case 'flow':
      arr(def.boxes).forEach((b, i) => ident(rec(b).credentials, `def.boxes.${i}.credentials`));
      break;
    case 'label':
      ident(def.attribute, 'def.attribute');
      break;
    case 'attribute':
      ident(rec(def.reference).attribute, 'def.reference.attribute');
      break;
  }
  return out;
}

export interface ResolvedRef extends Ref {
  targets: ObjectRow[];
  /** The dataset an AQL reference names (no object: it is no dependency). */
  dataset?: string;
}

/** The whole model of a project, indexed for resolution in both directions. */
export class ModelIndex {
  readonly byIdent: Map<string, ObjectRow>;
  private readonly byTitle = new Map<string, ObjectRow[]>();
  private reverse: Map<string, Set<string>> | null = null;
  private named: RefModel | null = null;

  constructor(readonly rows: ObjectRow[]) {
    this.byIdent = new Map(rows.map((r) => [r.ident, r]));
    for (const r of rows) {
      // Only what AQL can use is named by title (aql/model.ts resolves the same way).
      if (!TITLED_TYPES.includes(r.type)) continue;
      const key = titleKey(r.name);
      const list = this.byTitle.get(key);
      if (list) list.push(r);
      else this.byTitle.set(key, [r]);
    }
  }

  /** Resolution by name, datasets included, for storing and showing saved AQL (ref-rewrite.ts). */
  get names(): RefModel {
    return (this.named ??= refModel(this.rows));
  }

  resolve(ref: Ref): ObjectRow[] {
    const exact = this.byIdent.get(ref.text);
    if (exact) return [exact];
    return ref.aql ? (this.byTitle.get(titleKey(ref.text)) ?? []) : [];
  }

  refs(row: ObjectRow): ResolvedRef[] {
    return refsOf(row.type, row.def).map((r) => {
      const targets = this.resolve(r);
      // AQL names a dataset where no object takes the name: COUNT([flights]).
      const named =
        r.aql && !targets.length
          ? (this.names.byIdent(r.text) ?? this.names.byTitle(r.text)[0])
          : undefined;
      return { ...r, targets, ...(named?.type === 'dataset' ? { dataset: named.name } : {}) };
    });
  }

  /** Objects `row` depends on (its predecessors), each once. */
  predecessors(row: ObjectRow): ObjectRow[] {
    const out = new Map<string, ObjectRow>();
    for (const r of this.refs(row))
      for (const t of r.targets) if (t.ident !== row.ident) out.set(t.ident, t);
    return [...out.values()];
  }

  /** `row` and every object it depends on, directly or through others, each once. */
  withAncestors(row: ObjectRow): ObjectRow[] {
    const out = new Map<string, ObjectRow>([[row.ident, row]]);
    const todo = [row];
    for (let r = todo.pop(); r; r = todo.pop())
      for (const p of this.predecessors(r))
        if (!out.has(p.ident)) {
          out.set(p.ident, p);
          todo.push(p);
        }
    return [...out.values()];
  }

  /** Objects that depend on `ident` (its successors). */
  successors(ident: string): ObjectRow[] {
    if (!this.reverse) {
      this.reverse = new Map();
      for (const row of this.rows) {
        for (const p of this.predecessors(row)) {
          const set = this.reverse.get(p.ident) ?? new Set<string>();
          set.add(row.ident);
          this.reverse.set(p.ident, set);
        }
      }
    }
    return [...(this.reverse.get(ident) ?? [])].map((i) => this.byIdent.get(i)!);
  }

  /** Titles shared by more than one object (`[Title]` is then ambiguous in AQL). */
  duplicateTitles(): ObjectRow[][] {
    return [...this.byTitle.values()].filter((l) => l.length > 1);
  }
}
