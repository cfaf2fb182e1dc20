// pmd/check/model and pmd/check/obj: problems a model can drift into, since loads change
// datasets under objects that depend on them. Each problem has a `kind` (docs/api.md lists
// them), a message that says what to do, and the objects and datasets involved.
import type { DatasetInfo } from '../data/datasets.js';
import { AQL_KIND, type ObjectType } from './defs.js';
import type { CompileCheck } from './object-refs.js';
import type { ModelScope } from './scope.js';
import type { ObjectRow } from './store.js';

export interface Problem {
  kind: string;
  message: string;
  objects?: string[];
  datasets?: string[];
  /** Where in the object the problem is (`def.aql`, `def.items.0.report`). */
  field?: string;
  reference?: string;
  /** ambiguous_join: each path as the reference attributes it follows. */
  paths?: string[][];
}

interface Reference {
  attribute: ObjectRow;
  from: string;
  to: string;
  target: string | null;
}

function referencesOf(rows: ObjectRow[]): Reference[] {
  const out: Reference[] = [];
  for (const row of rows) {
    if (row.type !== 'attribute') continue;
    const def = row.def as {
      dataset?: string;
      reference?: { dataset: string; attribute: string | null };
    };
    if (def.reference && def.dataset)
      out.push({
        attribute: row,
        from: def.dataset,
        to: def.reference.dataset,
        target: def.reference.attribute,
      });
  }
  return out;
}

export function checkModel(s: ModelScope, datasets: DatasetInfo[]): Problem[] {
  const problems: Problem[] = [];
  const loaded = new Map(datasets.map((d) => [d.name, d]));
  const rows = s.rows();
  const refs = referencesOf(rows);

  for (const r of refs) {
    const target = loaded.get(r.to);
    if (!target)
      problems.push({
        kind: 'broken_reference',
        message: `${r.attribute.ident} references dataset "${r.to}", which is not loaded; load it or remove the reference from dataset "${r.from}"`,
        objects: [r.attribute.ident],
        datasets: [r.from, r.to],
      });
    else if (!target.primaryKey)
      problems.push({
        kind: 'reference_without_primary_key',
        message: `${r.attribute.ident} references dataset "${r.to}", which has no primary key; set its primarykey and reload it`,
        objects: [r.attribute.ident],
        datasets: [r.from, r.to],
      });
  }

  for (const row of rows) {
    if (row.type !== 'label') continue;
    const attribute = (row.def as { attribute?: string }).attribute;
    const target = attribute ? s.index.byIdent.get(attribute) : undefined;
    if (!target || target.type !== 'attribute')
      problems.push({
        kind: 'orphan_label',
        message: `label ${row.ident} describes attribute "${attribute ?? ''}", which does not exist; reload dataset "${String(row.def.dataset)}"`,
        objects: [row.ident],
        datasets: [String(row.def.dataset)],
      });
  }

  problems.push(...ambiguousJoins(refs.filter((r) => loaded.has(r.to) && loaded.has(r.from))));

  for (const group of s.index.duplicateTitles()) {
    const shown = group.filter(s.visible);
    if (shown.length < 2) continue;
    problems.push({
      kind: 'duplicate_title',
      message: `${shown.length} objects are titled "${shown[0]!.name}" (${shown
        .map((r) => r.ident)
        .join(', ')}): [${shown[0]!.name}] is ambiguous in AQL; rename all but one`,
      objects: shown.map((r) => r.ident),
    });
  }
  return problems;
}

/** Path enumeration stops after this many steps per start dataset (graphs can be dense). */
const PATH_BUDGET = 20_000;

/** Dataset pairs joined by two different reference paths: AQL refuses to pick one. */
function ambiguousJoins(refs: Reference[]): Problem[] {
  const adj = new Map<string, Reference[]>();
  for (const r of refs) adj.set(r.from, [...(adj.get(r.from) ?? []), r]);
  const problems: Problem[] = [];
  for (const start of [...adj.keys()].sort()) {
    const found = new Map<string, string[][]>();
    let budget = PATH_BUDGET;
    const walk = (node: string, visited: Set<string>, path: string[]) => {
      for (const r of adj.get(node) ?? []) {
        if (visited.has(r.to) || --budget < 0) continue;
        const next = [...path, r.attribute.ident];
        const paths = found.get(r.to) ?? [];
        paths.push(next);
        found.set(r.to, paths);
        walk(r.to, new Set([...visited, r.to]), next);
      }
    };
    walk(start, new Set([start]), []);
    for (const [end, paths] of [...found].sort(([a], [b]) => a.localeCompare(b))) {
      if (paths.length < 2) continue;
      problems.push({
        kind: 'ambiguous_join',
        message: `dataset "${start}" reaches "${end}" by ${paths.length} reference paths (${paths
          .map((p) => p.join(' → '))
          .join('; ')}); AQL cannot choose one, so remove all references but one`,
        datasets: [start, end],
        objects: [...new Set(paths.flat())],
        paths,
      });
    }
  }
  return problems;
}

const CHECKED: readonly string[] = [
  'metric',
  'filter',
  'report',
  'dashboard',
  'folder',
  'trigger',
  'flow',
];

export async function checkObjects(
  s: ModelScope,
  compile: CompileCheck | null,
): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const row of s.rows()) {
    if (!CHECKED.includes(row.type)) continue;
    let flagged = false;
    for (const ref of s.index.refs(row)) {
      if (ref.dataset) continue; // COUNT([flights]) counts a dataset's rows
      const targets = ref.targets.filter(s.visible);
      const shown = ref.aql ? `[${ref.text}]` : `"${ref.text}"`;
      if (!targets.length) {
        flagged = true;
        problems.push({
          kind: 'missing_dependency',
          message: `${row.type} ${row.ident} uses ${shown} in ${ref.field}, which does not exist`,
          objects: [row.ident],
          field: ref.field,
          reference: ref.text,
        });
      } else if (targets.length > 1) {
        flagged = true;
        problems.push({
          kind: 'ambiguous_reference',
          message: `${row.type} ${row.ident} uses ${shown} in ${ref.field}, a title of ${targets.length} objects (${targets
            .map((t) => t.ident)
            .join(', ')}); write the identifier instead`,
          objects: [row.ident, ...targets.map((t) => t.ident)],
          field: ref.field,
          reference: ref.text,
        });
      }
    }
    // Unknown or ambiguous references are reported above; compiling would only repeat them.
    if (!compile || flagged) continue;
    const texts: Array<[string, unknown, 'metric' | 'filter' | 'report']> = [];
    const kind = AQL_KIND[row.type as ObjectType];
    if (kind && row.def.aql !== undefined) texts.push(['def.aql', row.def.aql, kind]);
    if (row.type === 'dashboard')
      ((row.def.filters as Array<{ aql?: string }> | undefined) ?? []).forEach((f, i) => {
        if (f.aql !== undefined) texts.push([`def.filters.${i}.aql`, f.aql, 'filter']);
      });
    for (const [field, aql, k] of texts) {
      const err = await compile(s.actor, String(aql), k);
      if (err)
        problems.push({
          kind: 'does_not_compile',
          message: `${row.type} ${row.ident}: ${field} no longer compiles: ${err}`,
          objects: [row.ident],
          field,
        });
    }
  }
  return problems;
}
