// Drilling from a mark of a saved report's chart into Explore: the AQL of "see the rows behind
// it" (a listing of the report's fact dataset) and of "break out by…" (the report's question
// with one more breakdown), each narrowed to the mark's values, the report's own WHERE and the
// dashboard's filters on the item. The engine adds the member's row filter when it runs them.
import { valuesCondition } from '../../shared/filter-values.js';

/** A column of the report's result (titles in SELECT order). */
export interface DrillColumn {
  title: string;
  dataType: string;
}

/** A dashboard filter as the computed dashboard answers it. */
export interface DrillFilter {
  attribute: string;
  values: string[];
  dataType: string;
  aql?: string;
  items?: string[];
}

/** A model object as GET pmd/obj lists it (with the def fields a listing needs). */
export interface DrillObject {
  ident: string;
  type: string;
  name: string;
  def?: { dataset?: string; dataType?: string; primaryKey?: boolean };
}

export interface DrillSource {
  /** The report's AQL. */
  aql: string;
  columns: DrillColumn[];
  /** The mark's values: column title → value as the result wrote it. */
  values: Record<string, string>;
  /** The dashboard's filters and the item they are applied to. */
  filters: DrillFilter[];
  item: string;
}

/** Rows a listing asks for (Explore shows the first 500; the CSV has them all). */
export const ROWS_LIMIT = 1000;
/** Attributes a listing shows at most, besides the mark's own columns. */
const MAX_ATTRIBUTES = 12;

interface Parsed {
  items: { expr: string; text: string }[];
  where?: string;
  /** HAVING, QUALIFY, ORDER BY, LIMIT as written. */
  tail: string;
}

const CLAUSE = /^(SELECT|WHERE|HAVING|QUALIFY|ORDER\s+BY|LIMIT)\b/i;

/** The query's top-level clauses (outside brackets, strings and parentheses). */
export function parseQuery(aql: string): Parsed {
  const cuts: { at: number; kw: string; len: number }[] = [];
  const commas: number[] = [];
  let depth = 0;
  for (let i = 0; i < aql.length; i++) {
    const c = aql[i]!;
    if (c === '"' || c === "'") {
      const end = aql.indexOf(c, i + 1);
      i = end < 0 ? aql.length : end;
    } else if (c === '[') {
      const end = aql.indexOf(']', i + 1);
      i = end < 0 ? aql.length : end;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && c === ',') commas.push(i);
    else if (depth === 0 && /[A-Za-z]/.test(c) && (i === 0 || !/\w/.test(aql[i - 1]!))) {
      const m = CLAUSE.exec(aql.slice(i));
      if (m) cuts.push({ at: i, kw: m[1]!.toUpperCase().replace(/\s+/g, ' '), len: m[0].length });
    }
  }
  const part = (kw: string) => {
    const k = cuts.findIndex((c) => c.kw === kw);
    if (k < 0) return undefined;
    const c = cuts[k]!;
    return { from: c.at + c.len, to: cuts[k + 1]?.at ?? aql.length, start: c.at };
  };
  const select = part('SELECT');
  if (!select) throw new Error('the report has no SELECT');
  const bounds = [select.from, ...commas.filter((i) => i > select.from && i < select.to)];
  const items = bounds.map((from, k) => {
    const text = aql.slice(from + (k ? 1 : 0), bounds[k + 1] ?? select.to).trim();
    const alias = /\s+AS\s+("(?:[^"]|"")*"|\w+)$/i.exec(text);
    return { text, expr: alias ? text.slice(0, alias.index).trim() : text };
  });
  const where = part('WHERE');
  const rest = cuts.find((c) => c.at >= (where?.to ?? select.to));
  return {
    items,
    ...(where ? { where: aql.slice(where.from, where.to).trim() } : {}),
    tail: rest ? aql.slice(rest.at).trim() : '',
  };
}

const literal = (v: string, dataType: string) =>
  dataType === 'integer' || dataType === 'number' || dataType === 'boolean'
    ? v
    : `"${v.replace(/"/g, '""')}"`;

/** The conditions: the report's WHERE, the mark's values, the dashboard's filters on the item. */
function conditions(src: DrillSource, q: Parsed): string[] {
  const out: string[] = [];
  if (q.where) out.push(`(${q.where})`);
  for (const [title, value] of Object.entries(src.values)) {
    const j = src.columns.findIndex((c) => c.title === title);
    const item = q.items[j];
    if (!item) continue;
    out.push(
      value === ''
        ? `${item.expr} IS NULL`
        : `${item.expr} = ${literal(value, src.columns[j]!.dataType)}`,
    );
  }
  for (const f of src.filters) {
    if (f.items && !f.items.includes(src.item)) continue;
    const values = valuesCondition(f.attribute, f.values, f.dataType);
    if (values) out.push(values);
    if (f.aql) out.push(`(${f.aql})`);
  }
  return out;
}

const whereOf = (conds: string[]) => (conds.length ? `\nWHERE ${conds.join('\n  AND ')}` : '');

/** The report's question with `attribute` as one more breakdown, narrowed to the mark. */
export function breakOutAql(src: DrillSource, attribute: DrillObject): string {
  const q = parseQuery(src.aql);
  const items = [...q.items.map((i) => i.text), `[${attribute.ident}]`];
  return `SELECT ${items.join(', ')}${whereOf(conditions(src, q))}${q.tail ? `\n${q.tail}` : ''}`;
}

/**
 * The rows of `dataset` behind the mark: its primary key, the mark's own columns, the
 * dataset's other attributes, and (one row per key) its facts; at most ROWS_LIMIT rows.
 */
export function rowsAql(src: DrillSource, dataset: string, objects: DrillObject[]): string {
  const q = parseQuery(src.aql);
  const own = objects.filter((o) => o.def?.dataset === dataset);
  const key = own.find((o) => o.type === 'attribute' && o.def?.primaryKey);
  const marked = Object.keys(src.values)
    .map((t) => q.items[src.columns.findIndex((c) => c.title === t)]?.expr)
    .filter((e): e is string => e !== undefined);
  const attrs = own
    .filter((o) => o.type === 'attribute' && o !== key && !marked.includes(`[${o.name}]`))
    .slice(0, MAX_ATTRIBUTES)
    .map((o) => `[${o.ident}] AS "${o.name.replace(/"/g, '""')}"`);
  // Facts are aggregated: per primary key, a fact's SUM is the row's own value.
  const facts = key
    ? own
        .filter((o) => o.type === 'fact')
        .map((o) => `SUM([${o.ident}]) AS "${o.name.replace(/"/g, '""')}"`)
    : [];
  const items = [
    ...(key ? [`[${key.ident}] AS "${key.name.replace(/"/g, '""')}"`] : []),
    ...marked,
    ...attrs,
    ...facts,
  ];
  return `SELECT ${items.join(', ')}${whereOf(conditions(src, q))}\nLIMIT ${ROWS_LIMIT}`;
}
