// The metrics a table mapping proposes (not creates): a count of each fact table and the sum
// of each money-like fact of it (a price on a table of things, summed, would mean nothing),
// for the tables just mapped, in AQL over the titles they now hold.
// The caller accepts one by creating it (MCP create_metric, POST pmd/obj type metric).
import type { SuggestedMetric } from '../../contract/jobs.js';
import { humanize } from '../data/guess/titles.js';
import { words } from '../data/guess/names.js';
import type { Prescription } from '../data/prescription.js';
import { titleKey } from '../model/defs.js';
import type { ObjectRow } from '../model/store.js';

/** Words of a fact's name that say it is money (or another quantity that adds up). */
const MONEY =
  /^(amount|amt|price|total|subtotal|revenue|cost|costs|net|gross|sales|value|spend|paid|fee|fees|tax|discount|balance|income|profit|margin|payment|charge)$/;

/** `[Title]`, or `[ident]` for a title AQL cannot name in brackets. */
const ref = (o: ObjectRow) => (o.name.includes(']') ? `[${o.ident}]` : `[${o.name}]`);

export function suggestMetrics(
  mapped: readonly string[],
  datasets: ReadonlyMap<string, Prescription>,
  objects: readonly ObjectRow[],
): SuggestedMetric[] {
  const titles = new Set(objects.map((o) => titleKey(o.name)));
  const metricAql = new Set(
    objects
      .filter((o) => o.type === 'metric')
      .map((o) => String((o.def as { aql?: string }).aql ?? '').trim()),
  );
  const attrOf = (dataset: string, column: string) =>
    objects.find(
      (o) =>
        o.type === 'attribute' &&
        (o.def as { dataset?: string }).dataset === dataset &&
        (o.def as { column?: string }).column === column,
    );
  // dataset → the datasets whose columns reference it.
  const referencedBy = new Map<string, Set<string>>();
  const references = new Map<string, Set<string>>();
  for (const o of objects) {
    const def = o.def as { dataset?: string; reference?: { dataset?: string } };
    const to = def.reference?.dataset;
    if (o.type !== 'attribute' || !to || !def.dataset || !datasets.has(to)) continue;
    referencedBy.set(to, (referencedBy.get(to) ?? new Set()).add(def.dataset));
    references.set(def.dataset, (references.get(def.dataset) ?? new Set()).add(to));
  }
  const out: SuggestedMetric[] = [];
  const add = (m: SuggestedMetric) => {
    if (titles.has(titleKey(m.title)) || metricAql.has(m.aql)) return;
    titles.add(titleKey(m.title));
    out.push(m);
  };
  for (const name of mapped) {
    const p = datasets.get(name);
    if (!p) continue;
    // A fact table: no other table references it, or it references others.
    const fact = !referencedBy.get(name)?.size || (references.get(name)?.size ?? 0) > 0;
    const key = p.primarykey ? attrOf(name, p.primarykey) : undefined;
    if (!fact) continue;
    if (key)
      add({
        title: `Number of ${humanize(name)}`,
        aql: `SELECT COUNT(${ref(key)})`,
        description: `How many rows of ${name} (one per ${key.name}).`,
        format: '#,##0',
      });
    for (const c of p.columns) {
      if (c.objectType !== 'F' || !words(c.originalheader || c.id).some((w) => MONEY.test(w)))
        continue;
      const f = objects.find(
        (o) =>
          o.type === 'fact' &&
          (o.def as { dataset?: string }).dataset === name &&
          (o.def as { column?: string }).column === c.id,
      );
      if (!f) continue;
      add({
        title: /\btotal\b/i.test(f.name) ? `Sum of ${f.name}` : `Total ${f.name}`,
        aql: `SELECT SUM(${ref(f)})`,
        description: `The sum of ${f.name} over the rows of ${name}.`,
        format: '#,##0.00',
      });
    }
  }
  return out;
}
